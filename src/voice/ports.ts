/**
 * The voice pipeline's ports: what it needs from the call it runs in, as interfaces it owns.
 * The pipeline knows no call record, no database and no tool definitions; the call
 * (src/calls/session.ts) implements these and hands them over when it builds the pipeline:
 *
 *   - `CallTools` / `CallBuiltins`: the functions the model may call. The call knows what a
 *     mid-call tool or a built-in is and runs it; the pipeline sees names, arguments and outcomes.
 *   - `TurnLog`: where the turns' timings, words, barge-ins and failures go (the call's
 *     TurnTracker, src/calls/turns.ts, which stores them).
 *   - `SilenceClock`: the call's silence timers (src/calls/timers.ts), driven from the frames.
 *
 * The LLM history is a plain `ChatMessage[]` the call shares with the pipeline.
 */
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { TurnId } from './frames.js';

/** What a mid-call tool's run came to (the model reads `content`). */
export interface ToolOutcome {
  ok: boolean;
  /** What the LLM reads as the tool's result (JSON text). */
  content: string;
  status?: number;
  error?: string;
  durationMs: number;
}

/** One function call as the call's record keeps it. */
export interface ToolCallRecord {
  name: string;
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

/** A function call of a turn as the turn's record keeps it: what was asked, what came back, how long it took. */
export interface ToolUse {
  /** When the model's call came (the call's clock). */
  at: number;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  ok: boolean;
  /** What the model read back (JSON text). */
  answer: string;
  durationMs: number;
}

/** The call's mid-call tools (HTTP tools), by the function name the model calls. */
export interface CallTools {
  has(name: string): boolean;
  run(name: string, argumentsJson: string): Promise<ToolOutcome>;
}

/** A built-in function's result as the pipeline sees it. */
export interface BuiltinOutcome {
  ok: boolean;
  /** What the LLM reads as the function's result (JSON text). */
  content: string;
  /** A transcript line that is not speech (e.g. the keys pressed), for a result that does not end the turn. */
  note?: string;
  /**
   * Present when the result ends its turn (a line to say, a transfer, another assistant): the
   * call applies it once the function's output is in the history, and finishes `turn`
   * (VoiceCall.finishTurn) so the caller hears the line before the line is handed over.
   */
  finish?(turn: TurnId): void;
}

/** The call's built-in functions (transfer, keypad, calendar…), by function name. */
export interface CallBuiltins {
  has(name: string): boolean;
  run(name: string, argumentsJson: string): Promise<BuiltinOutcome>;
}

/** One passage of a knowledge base a turn used: which document and chunk, and how well it matched. */
export interface KnowledgePassageUse {
  documentId: number;
  documentName: string;
  /** null when a whole document was in the prompt (`prompt` mode, a base within the budget). */
  chunkId: number | null;
  heading: string;
  /** The search's score (reciprocal-rank fusion); null for a whole document in the prompt. */
  score: number | null;
}

/** One use of the knowledge base in a turn: the model's search, or what `prompt` mode put before the reply. */
export interface KnowledgeLookup {
  mode: 'function_call' | 'prompt';
  /** What was searched for; null when the whole base was in the prompt. */
  query: string | null;
  passages: KnowledgePassageUse[];
}

/**
 * The assistant's knowledge base as the call offers it (src/calls/knowledge.ts implements it;
 * the pipeline knows neither the database nor the search):
 *   - `function_call` mode: `spec` is a function the model may call; `run` searches and answers it;
 *   - `prompt` mode: `beforeReply` gives, for each reply, the passages to put before the
 *     caller's last words (or, with the whole base in the system prompt, only the record).
 */
export interface CallKnowledge {
  /** The search function offered to the model (already among the call's functions); null in `prompt` mode. */
  readonly spec: ToolSpec | null;
  has(name: string): boolean;
  /** Runs the search function: what the model reads (JSON text), and the turn's record of it. */
  run(argumentsJson: string): Promise<{ ok: boolean; content: string; lookup: KnowledgeLookup }>;
  /**
   * `prompt` mode, before the model answers the conversation `messages` (the caller's words last):
   * `context` is a system message to place before the caller's last words for this reply only
   * (null: nothing to add), `lookup` what the turn records; null: nothing to do (function_call mode).
   */
  beforeReply(messages: readonly ChatMessage[]): Promise<{ context: string | null; lookup: KnowledgeLookup } | null>;
}

/**
 * The request's messages with `context` as a system message right before the caller's last
 * words (the conversation's own history is left as it is: the passages are for this reply).
 */
export function withContext(messages: readonly ChatMessage[], context: string | null): ChatMessage[] {
  const copy = [...messages];
  if (context === null) return copy;
  let at = copy.length;
  for (let i = copy.length - 1; i >= 0; i--) {
    if (copy[i]!.role === 'user') {
      at = i;
      break;
    }
  }
  copy.splice(at, 0, { role: 'system', content: context });
  return copy;
}

export type TurnKind = 'greeting' | 'reply' | 'reengagement' | 'voicemail';

/** Stages of a turn in the order they normally happen. */
export type TurnStage = 'finalTranscript' | 'llmFirstToken' | 'ttsFirstByte' | 'firstAudio';

export type FillerReason = 'tool' | 'slow-llm';

/** A provider that failed during a turn: which stage and what it said (issue 18: the record says why). */
export interface TurnError {
  stage: 'stt' | 'llm' | 'tts';
  message: string;
}

/** Where the pipeline stamps the call's turns (one open turn at a time; `at` on the call's monotonic clock). */
export interface TurnLog {
  /** Position of the open turn, or null. */
  readonly current: number | null;
  /** Opens a turn (closing one still open); returns its position. */
  begin(kind: TurnKind, callerText: string | null, at?: number): number;
  /** The caller's words, when they arrive after the turn was opened. */
  callerSaid(text: string): void;
  /** Stamps a stage the first time it happens in the open turn. */
  stage(stage: TurnStage, at?: number): void;
  assistantSaid(text: string): void;
  bargeIn(heardText: string, at?: number): void;
  filler(text: string, reason: FillerReason, at?: number): void;
  error(error: TurnError): void;
  /** The knowledge base was used in the open turn (a search, or the passages put before the reply). */
  knowledge(lookup: KnowledgeLookup): void;
  /** A function the model called in the open turn (a mid-call tool, a built-in, a search), with its answer. */
  toolCall(use: ToolUse): void;
  /** Closes the open turn (only if it is still turn `position`, when given). */
  finish(options?: { interrupted?: boolean; heardText?: string; position?: number }): void;
}

/** The call's silence timers (max_silence_duration, reengagement_interval). */
export interface SilenceClock {
  /** Someone spoke or the assistant began a turn: the silence clock stops. */
  activity(): void;
  /** The assistant is done and the caller is silent: the silence clock runs. */
  awaitCustomer(): void;
}
