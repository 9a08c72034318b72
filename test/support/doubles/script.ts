/**
 * Scripted answers of the conversational doubles (chat completions, Realtime): keyed on what
 * the caller last said, one answer per round (round N = the answer after N answers to that same
 * utterance, e.g. a tool call, then the words after its result).
 */
import { ProtocolDouble } from './server.js';

export interface ScriptedToolCall {
  name: string;
  /** Arguments as an object (serialised) or exact JSON text. */
  args: Record<string, unknown> | string;
  id?: string;
}

/** One answer: spoken text and/or tool calls; `json` answers a non-streamed (extraction) request. */
export interface Reply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  json?: Record<string, unknown>;
}

export const argsText = (c: ScriptedToolCall) => (typeof c.args === 'string' ? c.args : JSON.stringify(c.args));

export class ScriptBook {
  private readonly scripts: { match: string | RegExp; rounds: Reply[] }[] = [];
  private fallback: Reply | null = null;

  /** Answers for an utterance (exact text, case-insensitive, or a pattern), one per round. */
  on(match: string | RegExp, rounds: Reply[]): void {
    this.scripts.push({ match, rounds });
  }

  otherwise(reply: Reply): void {
    this.fallback = reply;
  }

  /** Forgets every script and the fallback (tests that reuse a double). */
  clear(): void {
    this.scripts.length = 0;
    this.fallback = null;
  }

  replyFor(utterance: string, round: number): Reply | null {
    for (const s of this.scripts) {
      const hit = typeof s.match === 'string' ? s.match.trim().toLowerCase() === utterance.trim().toLowerCase() : s.match.test(utterance);
      if (hit) return s.rounds[Math.min(round, s.rounds.length - 1)] ?? null;
    }
    return this.fallback;
  }
}

/** A double that answers from a ScriptBook: `on(utterance, ...rounds)`, `otherwise(reply)`. */
export abstract class ScriptedDouble extends ProtocolDouble {
  protected readonly script = new ScriptBook();

  /** Answers for what the caller said last (exact text, case-insensitive, or a pattern), one per round. */
  on(match: string | RegExp, ...rounds: Reply[]): this {
    this.script.on(match, rounds);
    return this;
  }

  /** The answer when no script matches. */
  otherwise(reply: Reply): this {
    this.script.otherwise(reply);
    return this;
  }

  /** Forgets every script (a test that reuses the double starts afresh). */
  forgetScripts(): this {
    this.script.clear();
    return this;
  }
}
