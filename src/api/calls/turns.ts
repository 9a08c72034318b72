/**
 * GET /api/user/calls/{id}/turns (issue 19): the turns of one of the caller's calls with their
 * stage timings (written by src/calls/turns.ts). A separate resource, so the spec's call record
 * keeps its exact shape. Turns are few per call (bounded by the call's maximum duration), so
 * the list is not paginated.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoMicro } from '../../db/time.js';
import { notFound } from '../toolkit/errors.js';
import { idParam, messageSchema, typed } from '../toolkit/route.js';

const CALL_NOT_FOUND = 'Call not found';

const ms = (what: string) => z.number().int().nullable().describe(`Milliseconds from the turn's start to ${what}; null when it did not happen`);

export const turnSchema = z.object({
  position: z.number().int().describe('0-based, in the order the turns began'),
  kind: z.enum(['greeting', 'reply', 'reengagement', 'voicemail']),
  started_at: z.string().describe("ISO 8601 (UTC): the caller's end of speech, or when the assistant chose to speak on its own"),
  caller_text: z.string().nullable().describe('What the caller said (null for turns the assistant started)'),
  assistant_text: z.string().describe('What the assistant said; when interrupted, only what the caller heard'),
  interrupted: z.boolean(),
  timings: z.object({
    final_transcript_ms: ms('the final transcript'),
    llm_first_token_ms: ms("the LLM's first token"),
    tts_first_byte_ms: ms("the text-to-speech provider's first audio byte"),
    first_audio_ms: ms('the first audio frame sent to the caller'),
  }),
  barge_ins: z.array(z.object({ at_ms: z.number().int(), heard_text: z.string() })).describe('Each time the caller cut the assistant off'),
  fillers: z
    .array(z.object({ at_ms: z.number().int(), text: z.string(), reason: z.enum(['tool', 'slow-llm']) }))
    .describe('Filler phrases spoken while a tool ran or the LLM was slow'),
  error: z
    .object({ stage: z.enum(['stt', 'llm', 'tts']), message: z.string() })
    .nullable()
    .describe("The first provider failure in the turn (speech-to-text, the language model, text-to-speech) and the provider's error; null when none failed"),
  knowledge: z
    .array(
      z.object({
        mode: z.enum(['function_call', 'prompt']).describe("function_call: the model searched the knowledge base; prompt: the assistant's knowledge_base_mode put the passages before the reply"),
        query: z.string().nullable().describe('What was searched for; null when the whole knowledge base was in the prompt'),
        passages: z.array(
          z.object({
            document_id: z.number().int(),
            document_name: z.string(),
            chunk_id: z.number().int().nullable().describe('The passage (null: the whole document was in the prompt)'),
            heading: z.string().describe('The headings above the passage'),
            score: z.number().nullable().describe("The search's score (reciprocal-rank fusion of its lists); null for a whole document"),
          }),
        ),
      }),
    )
    .describe("The knowledge base's passages the turn used, one entry per search"),
  tool_calls: z
    .array(
      z.object({
        at_ms: z.number().int().describe("Milliseconds from the turn's start to the model's call"),
        name: z.string().describe('The function: a mid-call tool, a built-in (end_call, transfer_call …) or search_knowledge_base'),
        arguments: z.string().describe('The arguments as the model wrote them (JSON text; at most 4,000 characters kept)'),
        ok: z.boolean().describe('false when the tool failed (an error status, a timeout, a refused target) or the function did not run'),
        answer: z.string().describe('What the model read back (JSON text: a tool\'s HTTP status and body, or the error; at most 4,000 characters kept)'),
        duration_ms: z.number().int(),
      }),
    )
    .describe('The functions the model called in the turn, in order, with their answers'),
});

export type TurnJson = z.infer<typeof turnSchema>;

interface TurnRow {
  call_id: number;
  assistant_version: number | null;
  position: number | null;
  kind: TurnJson['kind'];
  started_at: string;
  caller_text: string | null;
  assistant_text: string;
  interrupted: boolean;
  final_transcript_ms: number | null;
  llm_first_token_ms: number | null;
  tts_first_byte_ms: number | null;
  first_audio_ms: number | null;
  barge_ins: TurnJson['barge_ins'];
  fillers: TurnJson['fillers'];
  error: TurnJson['error'];
  knowledge: TurnJson['knowledge'] | null;
  tool_calls: TurnJson['tool_calls'] | null;
}

/** The call (only when it is the user's) and its turns, in one statement; no turn row for a call without turns. */
const SELECT_TURNS = `
  SELECT c.id AS call_id, c.assistant_version, t.position, t.kind, t.started_at::text AS started_at, t.caller_text, t.assistant_text, t.interrupted,
         t.final_transcript_ms, t.llm_first_token_ms, t.tts_first_byte_ms, t.first_audio_ms, t.barge_ins, t.fillers, t.error, t.knowledge, t.tool_calls
    FROM calls c
    LEFT JOIN call_turns t ON t.call_id = c.id
   WHERE c.id = $1 AND c.user_id = $2
   ORDER BY t.position`;

export function serializeTurn(row: TurnRow): TurnJson {
  return {
    position: row.position ?? 0,
    kind: row.kind,
    started_at: isoMicro(row.started_at) ?? '',
    caller_text: row.caller_text,
    assistant_text: row.assistant_text,
    interrupted: row.interrupted,
    timings: {
      final_transcript_ms: row.final_transcript_ms,
      llm_first_token_ms: row.llm_first_token_ms,
      tts_first_byte_ms: row.tts_first_byte_ms,
      first_audio_ms: row.first_audio_ms,
    },
    barge_ins: row.barge_ins,
    fillers: row.fillers,
    error: row.error,
    knowledge: row.knowledge ?? [],
    tool_calls: row.tool_calls ?? [],
  };
}

export async function callTurnRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { pool } = app.ctx.database;

  r.get('/api/user/calls/:id/turns', {
    schema: {
      tags: ['calls'],
      summary: "The turns of one of the caller's calls, with each turn's stage timings",
      description:
        "One object per turn, in order: the caller's and the assistant's text, whether the caller interrupted, barge-ins, " +
        "filler phrases, and milliseconds from the turn's start (the caller's end of speech) to the final transcript, " +
        "the LLM's first token, the speech provider's first byte and the first audio frame sent; when a provider failed, which one and why; " +
        "the knowledge base's passages the turn used (document, passage, score); and the functions the model called, with their arguments, answers and durations. Turns appear as they finish.",
      params: idParam,
      response: {
        200: z.object({
          data: z.array(turnSchema),
          assistant_version: z.number().int().nullable().describe('The version of the assistant the call was placed with (GET /api/user/assistants/{id}/versions/{number}); null for calls placed before versions were kept'),
        }),
        404: messageSchema,
      },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req) => {
    const res = await pool.query<TurnRow>({ name: 'sb_call_turns_select', text: SELECT_TURNS, values: [req.params.id, req.user.id] });
    if (res.rows.length === 0) throw notFound(CALL_NOT_FOUND);
    return { data: res.rows.filter((row) => row.position !== null).map(serializeTurn), assistant_version: res.rows[0].assistant_version };
  });
}
