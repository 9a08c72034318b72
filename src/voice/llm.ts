/**
 * The LLM stage: on a reply turn it streams the model's answer as `llm-delta` frames (the
 * provider's `onText`), runs mid-call tools through the call's tools port (`tool-call` /
 * `tool-result` frames), and ends the turn's speech with `speak-end`. The conversation history
 * (`messages`, shared with the session) gets the caller's words and the assistant's answer;
 * when the caller cuts the answer off, the `interruption` frame (sent up by the output stage)
 * rewrites the turn's assistant text to what the caller heard, so the model's memory matches.
 *
 * The request carries the turn's AbortSignal: cancelling the turn aborts it.
 *
 * Speculative replies (speculation.ts): `speculate` starts a reserved turn's request with the
 * caller's words appended to a copy of the history; the history gets the words and the answer
 * only when the turn is adopted (its `turn-started` comes through), and a tool call waits for
 * that. A dropped one leaves the history as it was; a failed one is dropped, not apologised for.
 *
 * Mid-call tools and built-in tools run through the call's ports (ports.ts: `CallTools`,
 * `CallBuiltins`); a built-in's result that ends the turn (a transfer's message, the transfer,
 * another assistant) is the call's to apply (`BuiltinOutcome.finish`): it finishes the turn, so
 * the caller hears the message before the line is handed over.
 */
import type { ChatMessage, LlmProvider, ToolSpec } from '../providers/llm/types.js';
import type { Frame, TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import { withContext, type CallBuiltins, type CallKnowledge, type CallTools, type ToolCallRecord } from './ports.js';
import type { SpeculativeLlm } from './speculation.js';
import { answerOpenToolCalls, answerToolCall, CANCELLED_TOOL_RESULT } from './tool-history.js';

export const END_CALL_FUNCTION = 'end-call';
export const LLM_APOLOGY = 'I am sorry, I am having technical difficulties. Goodbye.';
const MAX_STEPS_PER_TURN = 8;

export interface LlmStageOptions {
  llm: LlmProvider;
  model: string;
  temperature: number;
  /** The conversation so far (system prompt first); this stage appends to it. */
  messages: ChatMessage[];
  /** The functions the model may call (mid-call tools, built-ins and end-call, which this stage keeps). */
  specs: ToolSpec[];
  /** The call's mid-call tools (already in `specs`). */
  tools: CallTools;
  variables: Record<string, unknown>;
  onToolCall?(record: ToolCallRecord): void;
  /** The assistant's built-in tools as LLM functions (already in `specs`). */
  builtins?: CallBuiltins;
  /** A transcript line that is not speech (a built-in's note, e.g. the keys pressed). */
  onNote?(line: string): void;
  /** The assistant's knowledge base: its search function (already in `specs`) or the passages put before each reply. */
  knowledge?: CallKnowledge | null;
}

/** A speculative turn's request: what it will add to the history once adopted. */
interface Held {
  user: ChatMessage;
  /** Assistant messages of the answer so far, in order. */
  messages: ChatMessage[];
  confirmed: Promise<boolean>;
  failed: () => void;
}

export class LlmStage implements Stage, SpeculativeLlm {
  readonly name = 'llm';
  /** The assistant messages each turn added (to rewrite on interruption). */
  private readonly turnMessages = new Map<TurnId, Extract<ChatMessage, { role: 'assistant' }>[]>();
  /** Speculative turns not adopted yet. */
  private readonly held = new Map<TurnId, Held>();
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;

  constructor(private readonly options: LlmStageOptions) {}

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    push(frame);
    if (frame.kind === 'turn-started' && frame.turnKind === 'reply') {
      // An adopted speculative reply: its words and answer so far join the history; it runs on.
      if (this.commit(frame.turn)) return;
      if (frame.callerText) this.options.messages.push({ role: 'user', content: frame.callerText });
      void this.reply(frame.turn, ctx);
    } else if (frame.kind === 'interruption') {
      this.heard(frame.turn, frame.heardText);
    } else if (frame.kind === 'cancel') {
      this.held.delete(frame.turn);
    }
  }

  speculate(turn: TurnId, callerText: string, confirmed: Promise<boolean>, failed: () => void): void {
    if (!this.ctx) return;
    this.held.set(turn, { user: { role: 'user', content: callerText }, messages: [], confirmed, failed });
    void this.reply(turn, this.ctx);
  }

  /** Writes an adopted speculative turn into the history; false when `turn` is not one. */
  private commit(turn: TurnId): boolean {
    const held = this.held.get(turn);
    if (!held) return false;
    this.held.delete(turn);
    this.options.messages.push(held.user, ...held.messages);
    return true;
  }

  /** The messages a request of `turn` sends: the history, and a speculative turn's own so far. */
  private history(turn: TurnId): ChatMessage[] {
    const held = this.held.get(turn);
    return held ? [...this.options.messages, held.user, ...held.messages] : [...this.options.messages];
  }

  /** Resolves true once `turn` is no longer speculative (adopted and committed), false when it was dropped. */
  private async confirmed(turn: TurnId): Promise<boolean> {
    const held = this.held.get(turn);
    if (!held) return true;
    const ok = await held.confirmed;
    // The turn-started that commits it goes through the pipeline synchronously at adoption; in case not yet: now.
    if (ok) this.commit(turn);
    return ok;
  }

  /** Runs the model for one turn: text, tools, more text, until it answers without tools. */
  private async reply(turn: TurnId, ctx: StageContext): Promise<void> {
    const o = this.options;
    const signal = ctx.turns.signal(turn);
    const now = () => ctx.clock.now();
    const added: Extract<ChatMessage, { role: 'assistant' }>[] = [];
    this.turnMessages.set(turn, added);
    try {
      // `prompt` mode: the passages for the caller's words, before the model is asked (this reply only).
      const prepared = o.knowledge ? await o.knowledge.beforeReply(this.history(turn)) : null;
      if (signal.aborted) return;
      if (prepared) this.push({ kind: 'knowledge', turn, lookup: prepared.lookup, at: now() });
      for (let step = 0; step < MAX_STEPS_PER_TURN; step++) {
        let streamed = false;
        const completion = await o.llm.complete({
          model: o.model,
          temperature: o.temperature,
          messages: withContext(this.history(turn), prepared?.context ?? null),
          tools: o.specs,
          signal,
          onText: (delta) => {
            if (signal.aborted || delta === '') return;
            streamed = true;
            this.push({ kind: 'llm-delta', turn, text: delta, at: now() });
          },
          standInContext: { variables: o.variables },
        });
        if (signal.aborted) return;
        const text = completion.text.trim();
        // Providers that do not stream report the whole answer at once.
        if (!streamed && text !== '') this.push({ kind: 'llm-delta', turn, text, at: now() });
        this.push({ kind: 'llm-done', turn, text, at: now() });
        if (completion.toolCalls.length === 0) {
          if (text !== '') this.remember(added, { role: 'assistant', content: text }, turn);
          this.push({ kind: 'speak-end', turn, at: now() });
          return;
        }
        // A speculative reply runs no tool before the caller's turn is confirmed.
        if (!(await this.confirmed(turn)) || signal.aborted) return;
        const calling: Extract<ChatMessage, { role: 'assistant' }> = {
          role: 'assistant',
          content: text === '' ? null : text,
          tool_calls: completion.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
        };
        this.remember(added, calling, turn);
        // Cut off while the round runs: its calls are answered at once, before the caller's next turn asks the model.
        const cutOff = () => answerOpenToolCalls(o.messages, calling, CANCELLED_TOOL_RESULT);
        signal.addEventListener('abort', cutOff, { once: true });
        try {
          const over = await this.runCalls(turn, completion.toolCalls, ctx);
          if (over) return;
        } finally {
          signal.removeEventListener('abort', cutOff);
          // A round left early (a transfer that ends the call) answers the calls it did not run.
          answerOpenToolCalls(o.messages, calling, JSON.stringify({ error: 'not run: the turn ended before it' }));
        }
      }
      ctx.log.warn({ llm: o.llm.label }, 'LLM kept calling tools; waiting for the customer');
      this.push({ kind: 'speak-end', turn, at: now() });
    } catch (err) {
      if (signal.aborted) return;
      const held = this.held.get(turn);
      if (held) {
        // A speculative request failed: dropped; the confirmed turn asks again.
        ctx.log.debug({ err: { message: (err as Error).message }, llm: o.llm.label }, 'speculative LLM request failed');
        held.failed();
        return;
      }
      ctx.log.error({ err: { message: (err as Error).message }, llm: o.llm.label }, 'LLM stage failed; ending the call');
      this.push({ kind: 'error', turn, stage: this.name, message: (err as Error).message, fatal: true, at: now() });
      o.messages.push({ role: 'assistant', content: LLM_APOLOGY });
      this.push({ kind: 'speak', turn, text: LLM_APOLOGY, source: 'scripted', at: now() });
      this.push({ kind: 'speak-end', turn, at: now() });
      this.push({ kind: 'hang-up', turn, reason: 'LLM failure', remote: false, at: now() });
    }
  }

  /** Runs one round's function calls in order; true when the turn is over (ended, handed over, cut off). */
  private async runCalls(
    turn: TurnId,
    calls: readonly { id: string; name: string; arguments: string }[],
    ctx: StageContext,
  ): Promise<boolean> {
    const o = this.options;
    const signal = ctx.turns.signal(turn);
    const now = () => ctx.clock.now();
    let endCall = false;
    for (const call of calls) {
      if (signal.aborted) return true;
      this.push({ kind: 'tool-call', turn, id: call.id, name: call.name, arguments: call.arguments, at: now() });
      if (call.name === END_CALL_FUNCTION) {
        endCall = true;
        answerToolCall(o.messages, call.id, JSON.stringify({ ok: true }));
        continue;
      }
      if (o.builtins?.has(call.name)) {
        if (await this.builtin(turn, call, ctx)) return true;
        continue;
      }
      if (o.knowledge?.has(call.name)) {
        const found = await o.knowledge.run(call.arguments);
        if (signal.aborted) return true;
        answerToolCall(o.messages, call.id, found.content);
        this.push({ kind: 'knowledge', turn, lookup: found.lookup, at: now() });
        this.push({ kind: 'tool-result', turn, id: call.id, name: call.name, ok: found.ok, content: found.content, at: now() });
        continue;
      }
      if (!o.tools.has(call.name)) {
        answerToolCall(o.messages, call.id, JSON.stringify({ error: `unknown tool ${call.name}` }));
        continue;
      }
      const outcome = await o.tools.run(call.name, call.arguments);
      o.onToolCall?.({ name: call.name, ok: outcome.ok, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs });
      // Cut off meanwhile: the call was answered as cancelled when it happened (the next turn may have asked already).
      if (signal.aborted) return true;
      answerToolCall(o.messages, call.id, outcome.content);
      this.push({ kind: 'tool-result', turn, id: call.id, name: call.name, ok: outcome.ok, content: outcome.content, at: now() });
    }
    if (endCall) {
      this.push({ kind: 'speak-end', turn, at: now() });
      this.push({ kind: 'hang-up', turn, reason: 'the assistant closed the call', remote: false, at: now() });
      return true;
    }
    return false;
  }

  /**
   * Runs a built-in tool in the turn: its result goes to the history; a result that ends the
   * turn (a line, a transfer, another assistant) goes back to the call (`finish`), which finishes
   * the turn (the rest of the round is answered "not run"). True when the turn is over.
   */
  private async builtin(turn: TurnId, call: { id: string; name: string; arguments: string }, ctx: StageContext): Promise<boolean> {
    const o = this.options;
    const now = () => ctx.clock.now();
    const started = now();
    const outcome = await o.builtins!.run(call.name, call.arguments);
    o.onToolCall?.({ name: call.name, ok: outcome.ok, durationMs: Math.max(0, now() - started) });
    if (ctx.turns.signal(turn).aborted) return true;
    answerToolCall(o.messages, call.id, outcome.content);
    this.push({ kind: 'tool-result', turn, id: call.id, name: call.name, ok: outcome.ok, content: outcome.content, at: now() });
    if (!outcome.finish) {
      if (outcome.note) o.onNote?.(outcome.note);
      return false;
    }
    outcome.finish(turn);
    return true;
  }

  private remember(added: Extract<ChatMessage, { role: 'assistant' }>[], message: Extract<ChatMessage, { role: 'assistant' }>, turn?: TurnId): void {
    added.push(message);
    const held = turn === undefined ? undefined : this.held.get(turn);
    if (held) held.messages.push(message);
    else this.options.messages.push(message);
  }

  /** The caller heard only `heardText` of the turn: the history keeps only that. */
  private heard(turn: TurnId, heardText: string): void {
    const added = this.turnMessages.get(turn) ?? [];
    this.turnMessages.delete(turn);
    keepHeard(this.options.messages, added, heardText);
  }
}

/**
 * A turn cut off by the caller: its assistant messages (`added`, in `messages`) are cut to the
 * `heardText` the caller heard, in order; text heard beyond them (streamed, not yet recorded)
 * becomes an assistant message of its own. Also the speech-to-speech model's record.
 */
export function keepHeard(messages: ChatMessage[], added: readonly Extract<ChatMessage, { role: 'assistant' }>[], heardText: string): void {
  let remaining = heardText.trim();
  for (const message of added) {
    const said = message.content ?? '';
    if (said === '') continue;
    const keep = said.length <= remaining.length ? said : remaining;
    remaining = remaining.slice(keep.length).trim();
    if (keep !== '') message.content = keep;
    else if (message.tool_calls) message.content = null;
    else messages.splice(messages.indexOf(message), 1);
  }
  if (remaining !== '') messages.push({ role: 'assistant', content: remaining });
}
