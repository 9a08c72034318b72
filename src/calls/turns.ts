/**
 * Per-turn records of a call: what each side said, whether the caller cut the assistant off,
 * and how long each stage took to get going — served at GET /api/user/calls/{id}/turns.
 *
 * A turn starts at the caller's end of speech (a reply) or when the assistant decides to speak
 * on its own (greeting, re-engagement, voicemail message). Stage timings are milliseconds from
 * that start, read from the call's monotonic clock, so they stay right when the wall clock
 * jumps. The conversation code stamps a `TurnTracker`; when the turn is over the tracker hands
 * a `TurnRecord` to a `TurnRecorder` (the database one below, or a test's list).
 */
import type { Logger } from 'pino';
import type pg from 'pg';
import { storableJson, storableText } from '../lib/storable.js';
import type { Clock } from '../telephony/clock.js';
import type { FillerReason, KnowledgeLookup, ToolUse, TurnError, TurnKind, TurnLog, TurnStage } from '../voice/ports.js';

/** The turn vocabulary is the voice pipeline's (it stamps turns through its `TurnLog` port). */
export type { FillerReason, KnowledgeLookup, TurnError, TurnKind, TurnStage };

export interface BargeIn {
  /** Milliseconds from the turn's start to the caller's speech onset. */
  atMs: number;
  /** What the caller had heard of the reply when it was cut off. */
  heardText: string;
}

export interface FillerUse {
  atMs: number;
  text: string;
  reason: FillerReason;
}

export interface TurnRecord {
  /** 0-based, in the order the turns began. */
  position: number;
  kind: TurnKind;
  /** Wall-clock time of the turn's start (Unix milliseconds). */
  startedAt: number;
  callerText: string | null;
  /** What the assistant said, or — when interrupted — what the caller heard of it. */
  assistantText: string;
  interrupted: boolean;
  /** Milliseconds from the turn's start; null when the stage did not happen. */
  timings: Record<TurnStage, number | null>;
  bargeIns: BargeIn[];
  fillers: FillerUse[];
  /** The first provider failure in the turn; null when none failed. */
  error: TurnError | null;
  /** The knowledge base's passages the turn used (the model's searches, or what `prompt` mode put before the reply). */
  knowledge: KnowledgeLookup[];
  /** The functions the model called in the turn, in order, with their answers. */
  toolCalls: ToolCallUse[];
}

export interface ToolCallUse {
  /** Milliseconds from the turn's start to the model's call. */
  atMs: number;
  name: string;
  /** As the model wrote them (JSON text, at most TOOL_TEXT_LIMIT characters). */
  arguments: string;
  ok: boolean;
  /** What the model read back (JSON text, at most TOOL_TEXT_LIMIT characters). */
  answer: string;
  durationMs: number;
}

/** Characters of a tool call's arguments and answer a turn keeps (the model may read up to 16 KiB). */
export const TOOL_TEXT_LIMIT = 4000;
const clip = (text: string) => (text.length > TOOL_TEXT_LIMIT ? `${text.slice(0, TOOL_TEXT_LIMIT)}…` : text);

/** Where finished turns go. `record` never throws and never blocks the conversation. */
export interface TurnRecorder {
  record(turn: TurnRecord): void;
  /** Resolves once every turn recorded so far is stored. */
  flush(): Promise<void>;
}

/** Keeps turns in memory (tests, benchmarks, calls that store nothing). */
export class MemoryTurnRecorder implements TurnRecorder {
  readonly turns: TurnRecord[] = [];
  record(turn: TurnRecord): void {
    this.turns.push(turn);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
}

/** The turns of one call, stamped as they happen; one open turn at a time. */
export class TurnTracker implements TurnLog {
  private position = 0;
  private open: {
    record: TurnRecord;
    /** Monotonic clock value of the start. */
    origin: number;
  } | null = null;
  /** A failure seen while no turn was open: it belongs to the next one. */
  private pendingError: TurnError | null = null;

  constructor(
    private readonly recorder: TurnRecorder,
    private readonly clock: Clock,
    private readonly wallNow: () => number = Date.now,
  ) {}

  /**
   * Opens a turn (closing one still open, as not interrupted). `at` is the monotonic time of
   * its start when it lies in the past (the caller's end of speech, seen before the transcript).
   */
  begin(kind: TurnKind, callerText: string | null, at = this.clock.now()): number {
    if (this.open) this.finish();
    const now = this.clock.now();
    this.open = {
      origin: at,
      record: {
        position: this.position++,
        kind,
        startedAt: Math.round(this.wallNow() - (now - at)),
        callerText,
        assistantText: '',
        interrupted: false,
        timings: { finalTranscript: null, llmFirstToken: null, ttsFirstByte: null, firstAudio: null },
        bargeIns: [],
        fillers: [],
        error: this.pendingError,
        knowledge: [],
        toolCalls: [],
      },
    };
    this.pendingError = null;
    return this.open.record.position;
  }

  get active(): boolean {
    return this.open !== null;
  }

  /** Position of the open turn, or null. */
  get current(): number | null {
    return this.open?.record.position ?? null;
  }

  /** The caller's words, when they arrive after the turn was opened (streaming transcripts). */
  callerSaid(text: string): void {
    if (this.open) this.open.record.callerText = this.open.record.callerText ? `${this.open.record.callerText} ${text}` : text;
  }

  /** Stamps a stage the first time it happens in the turn; later stamps keep the first. */
  stage(stage: TurnStage, at = this.clock.now()): void {
    if (!this.open || this.open.record.timings[stage] !== null) return;
    this.open.record.timings[stage] = this.offset(at);
  }

  /** The assistant said (more of) its reply. */
  assistantSaid(text: string): void {
    if (!this.open || text === '') return;
    const r = this.open.record;
    r.assistantText = r.assistantText === '' ? text : `${r.assistantText} ${text}`;
  }

  bargeIn(heardText: string, at = this.clock.now()): void {
    if (!this.open) return;
    this.open.record.bargeIns.push({ atMs: this.offset(at), heardText });
  }

  filler(text: string, reason: FillerReason, at = this.clock.now()): void {
    if (!this.open) return;
    this.open.record.fillers.push({ atMs: this.offset(at), text, reason });
  }

  /**
   * A provider failed. The open turn keeps its first failure; with no turn open (the caller's
   * speech-to-text failing between turns) the failure is recorded on the next turn.
   */
  error(error: TurnError): void {
    const message = error.message.replace(/\s+/g, ' ').trim().slice(0, 500);
    if (!this.open) this.pendingError ??= { stage: error.stage, message };
    else this.open.record.error ??= { stage: error.stage, message };
  }

  knowledge(lookup: KnowledgeLookup): void {
    this.open?.record.knowledge.push(lookup);
  }

  toolCall(use: ToolUse): void {
    if (!this.open) return;
    this.open.record.toolCalls.push({ atMs: this.offset(use.at), name: use.name, arguments: clip(use.arguments), ok: use.ok, answer: clip(use.answer), durationMs: use.durationMs });
  }

  /**
   * Closes the open turn (only if it is still turn `position`, when given) and records it. When interrupted, `heardText` replaces the assistant's
   * text (the caller heard only that much).
   */
  finish(options: { interrupted?: boolean; heardText?: string; position?: number } = {}): void {
    const open = this.open;
    if (!open) return;
    // Closing a turn that another one already replaced is a no-op.
    if (options.position !== undefined && options.position !== open.record.position) return;
    this.open = null;
    if (options.interrupted) {
      open.record.interrupted = true;
      if (options.heardText !== undefined) open.record.assistantText = options.heardText;
    }
    this.recorder.record(open.record);
  }

  private offset(at: number): number {
    return Math.max(0, Math.round(at - this.open!.origin));
  }
}

const INSERT_TURN = `
  INSERT INTO call_turns (call_id, position, kind, started_at, caller_text, assistant_text, interrupted,
                          final_transcript_ms, llm_first_token_ms, tts_first_byte_ms, first_audio_ms, barge_ins, fillers, error, knowledge, tool_calls)
  VALUES ($1, $2, $3, to_timestamp($4::double precision / 1000), $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14::jsonb, $15::jsonb, $16::jsonb)
  ON CONFLICT (call_id, position) DO NOTHING`;

/**
 * Stores a call's turns, one INSERT per finished turn, in order and off the conversation's
 * path: a failed write is logged and the call goes on (the turns are diagnostics, not the
 * call record). The engine awaits `flush` before it writes the final record.
 */
export class DbTurnRecorder implements TurnRecorder {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly callId: number,
    private readonly log: Logger,
  ) {}

  record(turn: TurnRecord): void {
    const values = [
      this.callId,
      turn.position,
      turn.kind,
      turn.startedAt,
      // Said by the caller or a model: stored with U+FFFD for what PostgreSQL refuses (NUL, lone surrogates).
      turn.callerText === null ? null : storableText(turn.callerText),
      storableText(turn.assistantText),
      turn.interrupted,
      turn.timings.finalTranscript,
      turn.timings.llmFirstToken,
      turn.timings.ttsFirstByte,
      turn.timings.firstAudio,
      JSON.stringify(storableJson(turn.bargeIns.map((b) => ({ at_ms: b.atMs, heard_text: b.heardText })))),
      JSON.stringify(storableJson(turn.fillers.map((f) => ({ at_ms: f.atMs, text: f.text, reason: f.reason })))),
      turn.error === null ? null : JSON.stringify(storableJson(turn.error)),
      JSON.stringify(storableJson(turn.knowledge.map(knowledgeJson))),
      JSON.stringify(
        storableJson(turn.toolCalls.map((c) => ({ at_ms: c.atMs, name: c.name, arguments: c.arguments, ok: c.ok, answer: c.answer, duration_ms: c.durationMs }))),
      ),
    ];
    this.chain = this.chain
      .then(async () => {
        await this.pool.query({ name: 'sb_call_turns_insert', text: INSERT_TURN, values });
      })
      .catch((err: unknown) => this.log.warn({ err, position: turn.position }, 'storing a call turn failed'));
  }

  flush(): Promise<void> {
    return this.chain;
  }
}

/** A lookup as `call_turns.knowledge` stores it (and `/turns` shows it). */
function knowledgeJson(l: KnowledgeLookup) {
  return {
    mode: l.mode,
    query: l.query,
    passages: l.passages.map((p) => ({ document_id: p.documentId, document_name: p.documentName, chunk_id: p.chunkId, heading: p.heading, score: p.score })),
  };
}
