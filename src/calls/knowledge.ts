/**
 * An assistant's knowledge base in a call, as the voice pipeline's
 * `CallKnowledge` port (src/voice/ports.ts); text legs use the same object.
 *
 * - `function_call` (default): the model gets `search_knowledge_base` (a query in; the best
 *   passages out: document, heading, text). It is answered here, in the process — no HTTP.
 * - `prompt`: the base's text goes into the system prompt when it fits PROMPT_BUDGET_CHARS
 *   (docs/decisions.md); a larger base is searched before each reply with the caller's last words
 *   (and the turn before, for context), and the passages are put before those words for that reply.
 *
 * Every use is a `KnowledgeLookup` the turn records (GET /api/user/calls/{id}/turns). The base is
 * the call's user's own: the engine reads it with the owner in the statement (call-queries.ts).
 */
import type { Logger } from 'pino';
import type pg from 'pg';
import type { AppContext } from '../context.js';
import { knowledgeSearch, type KnowledgeContext } from '../knowledge/index.js';
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { CallKnowledge, KnowledgeLookup, KnowledgePassageUse } from '../voice/ports.js';
import type { LoadedCall } from './call-queries.js';
import type { SessionSettings } from './session-types.js';

export const KNOWLEDGE_FUNCTION = 'search_knowledge_base';
/** A base whose documents' text is at most this long goes whole into the system prompt (`prompt` mode). */
export const PROMPT_BUDGET_CHARS = 12_000;
/** Passages the search function answers with. */
export const FUNCTION_PASSAGES = 4;
/** Passages put before a reply in `prompt` mode (a base over the budget). */
export const PROMPT_PASSAGES = 3;
/** A passage's text is cut to this for the model (chunks are ~180 words; headings and overlap add some). */
const PASSAGE_CHARS = 1_500;
/** The search query of `prompt` mode: the caller's last words, and their turn before for context, cut to this. */
const QUERY_CHARS = 500;

/** A search hit as the calls need it (src/knowledge/search.ts `SearchHit`). */
export interface KnowledgeHit {
  chunkId: number;
  documentId: number;
  documentName: string;
  heading: string;
  content: string;
  score: number;
}

export interface KnowledgeSearcher {
  search(knowledgeBaseId: number, query: string, limit: number): Promise<KnowledgeHit[]>;
}

export interface KnowledgeSettings {
  knowledgeBaseId: number;
  mode: 'function_call' | 'prompt';
}

const SPEC: ToolSpec = {
  name: KNOWLEDGE_FUNCTION,
  description:
    "Searches the business's knowledge base (its documents and website) and returns the best matching passages. " +
    'Use it whenever the caller asks about something the conversation has not answered yet (prices, opening hours, services, policies…), and answer from the passages.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for, in a few words (the language of the documents works best)' } },
    required: ['query'],
    additionalProperties: false,
  },
};

const use = (h: KnowledgeHit): KnowledgePassageUse => ({ documentId: h.documentId, documentName: h.documentName, chunkId: h.chunkId, heading: h.heading, score: h.score });
const passageText = (h: KnowledgeHit) => (h.content.length > PASSAGE_CHARS ? `${h.content.slice(0, PASSAGE_CHARS)}…` : h.content);

interface DocumentRow {
  id: number;
  name: string;
  /** Present only when the whole base fits the budget. */
  text: string | null;
}

/**
 * The knowledge base of a call being started (null without one): `prompt` mode with a base within
 * the budget appends the base to `settings.systemPrompt`. A base that cannot be read leaves the call
 * without it (logged), rather than failing the call. Multimodal assistants search (`prompt` is
 * refused for them by the API; a row that has it anyway is read as function_call). The call's load
 * has checked that the base is the call user's (CLAIM_AND_LOAD).
 */
export function knowledgeOfCall(ctx: AppContext, call: LoadedCall, settings: SessionSettings, log: Logger): Promise<CallKnowledge | null> {
  if (call.knowledgebase_id === null) return Promise.resolve(null);
  return knowledgeFor(ctx, { knowledgeBaseId: call.knowledgebase_id, mode: call.knowledgebase_mode, assistantMode: call.mode }, settings, log);
}

/**
 * The same for a conversation that is no call record (the assistant test runner): the base is used
 * only when it is `userId`'s own. Pass the session's settings before the session is built.
 */
export async function knowledgeOfAssistant(
  ctx: KnowledgeContext,
  userId: number,
  assistant: { knowledgebase_id: number | null; knowledgebase_mode: string | null; mode: string | null },
  settings: SessionSettings,
  log: Logger,
): Promise<CallKnowledge | null> {
  if (assistant.knowledgebase_id === null) return null;
  const { rows } = await ctx.database.pool.query('SELECT 1 FROM knowledge_bases WHERE id = $1 AND user_id = $2', [assistant.knowledgebase_id, userId]);
  if (rows.length === 0) return null;
  return knowledgeFor(ctx, { knowledgeBaseId: assistant.knowledgebase_id, mode: assistant.knowledgebase_mode, assistantMode: assistant.mode }, settings, log);
}

async function knowledgeFor(
  ctx: KnowledgeContext,
  base: { knowledgeBaseId: number; mode: string | null; assistantMode: string | null },
  settings: SessionSettings,
  log: Logger,
): Promise<CallKnowledge | null> {
  const mode = base.mode === 'prompt' && base.assistantMode !== 'multimodal' ? 'prompt' : 'function_call';
  try {
    const loaded = await loadCallKnowledge(ctx.database.pool, () => knowledgeSearch(ctx), { knowledgeBaseId: base.knowledgeBaseId, mode }, log);
    if (loaded.promptAddition !== null) {
      settings.systemPrompt = settings.systemPrompt.trim() === '' ? loaded.promptAddition : `${settings.systemPrompt}\n\n${loaded.promptAddition}`;
    }
    return loaded.knowledge;
  } catch (err) {
    log.error({ err, knowledgeBaseId: base.knowledgeBaseId }, "the assistant's knowledge base could not be read; the conversation goes on without it");
    return null;
  }
}

/**
 * The call's knowledge base the assistant has none (or it is not the call user's).
 * `prompt` mode reads the base's documents once, here: `promptAddition` is what the system prompt
 * gets (a base within the budget), else the passages are searched per reply.
 */
export async function loadCallKnowledge(
  pool: pg.Pool,
  searcher: () => Promise<KnowledgeSearcher>,
  settings: KnowledgeSettings,
  log: Logger,
): Promise<{ knowledge: CallKnowledge; promptAddition: string | null }> {
  const kb = settings.knowledgeBaseId;
  if (settings.mode === 'function_call') return { knowledge: functionKnowledge(kb, searcher, log), promptAddition: null };
  // One statement: the ready documents, with their text only when all of it fits the budget.
  const { rows } = await pool.query<DocumentRow>(
    `SELECT id, name, CASE WHEN sum(length(text)) OVER () <= $2 THEN text END AS text
       FROM knowledge_documents WHERE knowledge_base_id = $1 AND status = 'ready' AND text IS NOT NULL ORDER BY id`,
    [kb, PROMPT_BUDGET_CHARS],
  );
  if (rows.length > 0 && rows.every((r) => r.text !== null)) {
    const lookup: KnowledgeLookup = {
      mode: 'prompt',
      query: null,
      passages: rows.map((r) => ({ documentId: r.id, documentName: r.name, chunkId: null, heading: '', score: null })),
    };
    const addition = [
      'Knowledge base: answer questions from these documents (say so when they do not answer a question; never make facts up).',
      ...rows.map((r) => `### ${r.name}\n${r.text!.trim()}`),
    ].join('\n\n');
    return { knowledge: wholeBase(lookup), promptAddition: addition };
  }
  return { knowledge: retrievingKnowledge(kb, searcher, log), promptAddition: null };
}

function functionKnowledge(kb: number, searcher: () => Promise<KnowledgeSearcher>, log: Logger): CallKnowledge {
  return {
    spec: SPEC,
    has: (name) => name === KNOWLEDGE_FUNCTION,
    async run(argumentsJson) {
      const query = queryOf(argumentsJson);
      if (query === null) {
        const error = 'arguments must be a JSON object with a non-empty "query"';
        return { ok: false, content: JSON.stringify({ error }), lookup: { mode: 'function_call', query: null, passages: [] } };
      }
      try {
        const hits = await (await searcher()).search(kb, query, FUNCTION_PASSAGES);
        const passages = hits.map((h) => ({ document: h.documentName, heading: h.heading, text: passageText(h) }));
        const content = JSON.stringify(passages.length > 0 ? { passages } : { passages, note: 'nothing in the knowledge base matches this query' });
        return { ok: true, content, lookup: { mode: 'function_call', query, passages: hits.map(use) } };
      } catch (err) {
        log.warn({ err, knowledgeBaseId: kb }, 'searching the knowledge base failed');
        const error = 'the knowledge base could not be searched just now';
        return { ok: false, content: JSON.stringify({ error }), lookup: { mode: 'function_call', query, passages: [] } };
      }
    },
    beforeReply: () => Promise.resolve(null),
  };
}

/** The whole base is in the system prompt: each reply records that it had the documents. */
function wholeBase(lookup: KnowledgeLookup): CallKnowledge {
  return {
    spec: null,
    has: () => false,
    run: () => Promise.reject(new Error('no knowledge function in prompt mode')),
    beforeReply: (messages) => Promise.resolve(callerWords(messages).length > 0 ? { context: null, lookup } : null),
  };
}

function retrievingKnowledge(kb: number, searcher: () => Promise<KnowledgeSearcher>, log: Logger): CallKnowledge {
  return {
    spec: null,
    has: () => false,
    run: () => Promise.reject(new Error('no knowledge function in prompt mode')),
    async beforeReply(messages) {
      const words = callerWords(messages);
      if (words.length === 0) return null;
      // The last turn first: a follow-up ("and how much is it?") finds its subject in the turn before.
      const query = words.slice(-2).reverse().join(' ').slice(0, QUERY_CHARS);
      let hits: KnowledgeHit[];
      try {
        hits = await (await searcher()).search(kb, query, PROMPT_PASSAGES);
      } catch (err) {
        log.warn({ err, knowledgeBaseId: kb }, 'searching the knowledge base failed; answering without it');
        return { context: null, lookup: { mode: 'prompt', query, passages: [] } };
      }
      const lookup: KnowledgeLookup = { mode: 'prompt', query, passages: hits.map(use) };
      if (hits.length === 0) return { context: null, lookup };
      const context = [
        "Passages from the knowledge base found for the caller's words (answer from them when they fit; never read this note out):",
        ...hits.map((h, i) => `[${i + 1}] ${h.documentName}${h.heading ? ` — ${h.heading}` : ''}\n${passageText(h)}`),
      ].join('\n\n');
      return { context, lookup };
    },
  };
}

/** The caller's turns of the conversation, in order (the user messages since the last assistant message count as one turn each). */
function callerWords(messages: readonly ChatMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) if (m.role === 'user' && typeof m.content === 'string' && m.content.trim() !== '') out.push(m.content.trim());
  return out;
}

function queryOf(argumentsJson: string): string | null {
  try {
    const value: unknown = JSON.parse(argumentsJson.trim() === '' ? '{}' : argumentsJson);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const q = (value as Record<string, unknown>).query;
    return typeof q === 'string' && q.trim() !== '' ? q.trim().slice(0, 1000) : null;
  } catch {
    return null;
  }
}
