/**
 * The conversation of a TEXT leg (the sandbox at time scale 0, typed browser calls): whole
 * customer lines in, whole assistant lines out, one LLM round trip per step. Audio legs
 * converse through the voice pipeline instead (src/voice/); both share the session's
 * record (transcript lines, LLM history, tool records), which CallSession owns.
 */
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import type { CallTimers } from './timers.js';
import type { TurnTracker, FillerReason } from './turns.js';
import type { FillerScheduler } from './fillers.js';
import type { MidCallTool } from './tool-runner.js';
import type { BuiltinResult, BuiltinToolbox } from './builtin-tools/index.js';
import { withoutPlaceholders } from './variables.js';
import { answerToolCall } from '../voice/tool-history.js';
import { withContext } from '../voice/ports.js';
import { applyBuiltinResult } from './builtin-effects.js';
import { APOLOGY_LINE, END_CALL_TOOL, textStages, type SessionDeps, type SessionSettings, type ToolCallRecord } from './session-types.js';

/** LLM rounds per turn (tool call → answer → ...), against a model that loops on tools. */
const MAX_STEPS_PER_TURN = 8;

/** What the turn loop needs of the session that owns the call. */
export interface TextTurnHost {
  readonly ended: boolean;
  readonly lines: string[];
  readonly messages: ChatMessage[];
  readonly toolRecords: ToolCallRecord[];
  readonly specs: ToolSpec[];
  readonly toolsByName: Map<string, MidCallTool>;
  readonly turns: TurnTracker;
  readonly timers: CallTimers;
  readonly fillers: FillerScheduler;
  readonly signal: AbortSignal;
  end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string, remote?: boolean): void;
  /** assistant_transfer: another assistant's settings replace the call's (prompt, model, tools, built-ins). */
  switchAssistant(to: NonNullable<BuiltinResult['switchTo']>): void;
}

export class TextTurns {
  private turning = false;
  private pendingTurn = false;
  /** The last line handed to the leg (`saidSoFar`). */
  private saying: Promise<void> = Promise.resolve();

  constructor(
    private readonly settings: SessionSettings,
    private readonly deps: SessionDeps,
    private readonly host: TextTurnHost,
  ) {}

  /** True while the LLM is working on a reply (a new customer line then joins the same turn). */
  get busy(): boolean {
    return this.turning;
  }

  /** Starts a reply, or queues one after the reply in progress. */
  turn(): void {
    if (this.turning) {
      this.pendingTurn = true;
      return;
    }
    this.turning = true;
    void this.runTurns();
  }

  async say(said: string, reengagement = false): Promise<void> {
    const h = this.host;
    if (h.ended) return;
    // A placeholder the model echoed from its prompt is never read out (docs/decisions.md).
    const text = withoutPlaceholders(said);
    if (text === '') return;
    h.lines.push(`AI: ${text}`);
    if (!reengagement) h.timers.activity();
    h.turns.assistantSaid(text);
    // A text leg "sends audio" when it hands the line to the carrier.
    h.turns.stage('ttsFirstByte');
    h.turns.stage('firstAudio');
    const saying = (async () => {
      try {
        await (this.deps.stages ?? textStages).speak(this.deps.leg, text);
      } catch (err) {
        this.deps.log.warn({ err }, 'speaking failed');
      }
    })();
    this.saying = saying;
    await saying;
  }

  /** Resolves once the lines said so far (not fillers) have been handed to the leg: said, on a text leg. */
  saidSoFar(): Promise<void> {
    return this.saying;
  }

  /** A filler phrase: heard (transcript, turn) but not part of the LLM's history. */
  sayFiller(text: string, reason: FillerReason): void {
    this.host.lines.push(`AI: ${text}`);
    this.host.turns.filler(text, reason);
    (this.deps.stages ?? textStages).speak(this.deps.leg, text).catch((err: unknown) => this.deps.log.warn({ err }, 'speaking a filler failed'));
  }

  private lastCallerText(): string | null {
    const messages = this.host.messages;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role === 'user') return m.content;
    }
    return null;
  }

  private async runTurns(): Promise<void> {
    const h = this.host;
    try {
      do {
        this.pendingTurn = false;
        await this.llmTurn();
      } while (this.pendingTurn && !h.ended);
    } catch (err) {
      if (h.ended) return;
      this.deps.log.error({ err: { message: (err as Error).message }, llm: this.deps.llm.label }, 'LLM stage failed; ending the call');
      // The call's record says why, not only the log (issue 18): a note line like the stand-in's.
      h.lines.push(`[the language model failed: ${(err as Error).message.replace(/\s+/g, ' ').slice(0, 200)}]`);
      h.turns.error({ stage: 'llm', message: (err as Error).message });
      h.messages.push({ role: 'assistant', content: APOLOGY_LINE });
      await this.say(APOLOGY_LINE);
      h.end('ended', 'LLM failure');
    } finally {
      this.turning = false;
      h.turns.finish();
      if (!h.ended) h.timers.awaitCustomer();
    }
  }

  private async llmTurn(): Promise<void> {
    const h = this.host;
    h.fillers.newTurn();
    const knowledge = this.deps.knowledge;
    // `prompt` mode: the passages for the caller's words, before the model is asked (this reply only).
    const prepared = knowledge ? await knowledge.beforeReply(h.messages) : null;
    if (h.ended) return;
    if (prepared) h.turns.knowledge(prepared.lookup);
    for (let step = 0; step < MAX_STEPS_PER_TURN; step++) {
      h.timers.activity();
      h.fillers.waiting('slow-llm', this.lastCallerText());
      const completion = await this.deps.llm.complete({
        model: this.settings.model,
        temperature: this.settings.temperature,
        messages: withContext(h.messages, prepared?.context ?? null),
        tools: h.specs,
        signal: h.signal,
        onText: () => {
          h.fillers.cancel();
          h.turns.stage('llmFirstToken');
        },
        standInContext: { variables: this.settings.variables },
      });
      h.fillers.cancel();
      if (h.ended) return;
      const text = completion.text.trim();
      // Providers that do not stream report the whole answer at once.
      h.turns.stage('llmFirstToken');
      if (completion.toolCalls.length === 0) {
        if (text !== '') {
          h.messages.push({ role: 'assistant', content: text });
          await this.say(text);
        }
        return;
      }
      h.messages.push({
        role: 'assistant',
        content: text === '' ? null : text,
        tool_calls: completion.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
      if (text !== '') await this.say(text);
      let endCall = false;
      let switched: 'switched' | 'greeted' | null = null;
      for (const call of completion.toolCalls) {
        if (h.ended) return;
        if (call.name === END_CALL_TOOL) {
          endCall = true;
          answerToolCall(h.messages, call.id, JSON.stringify({ ok: true }));
          continue;
        }
        if (switched) {
          // Another assistant has the call: the rest of this round is answered, not run (the history stays valid).
          answerToolCall(h.messages, call.id, JSON.stringify({ error: 'not run: the call was handed to another assistant' }));
          continue;
        }
        if (this.deps.builtins?.has(call.name)) {
          const step = await this.runBuiltin(this.deps.builtins, call.id, call.name, call.arguments);
          if (step === true) return;
          if (step === 'switched' || step === 'greeted') switched = step;
          continue;
        }
        if (knowledge?.has(call.name)) {
          h.fillers.waiting('tool');
          const found = await knowledge.run(call.arguments).finally(() => h.fillers.cancel());
          if (h.ended) return;
          h.turns.knowledge(found.lookup);
          answerToolCall(h.messages, call.id, found.content);
          continue;
        }
        const tool = h.toolsByName.get(call.name);
        if (!tool) {
          answerToolCall(h.messages, call.id, JSON.stringify({ error: `unknown tool ${call.name}` }));
          continue;
        }
        h.fillers.waiting('tool');
        const outcome = await this.deps.tools.run(tool, call.arguments, this.deps.log).finally(() => h.fillers.cancel());
        h.toolRecords.push({ name: tool.name, ok: outcome.ok, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs });
        if (h.ended) return;
        answerToolCall(h.messages, call.id, outcome.content);
      }
      if (switched === 'greeted') return;
      if (switched) continue; // the assistant that took over answers
      if (endCall) {
        h.end('completed', 'the assistant closed the call');
        return;
      }
    }
    this.deps.log.warn({ llm: this.deps.llm.label }, 'LLM kept calling tools; waiting for the customer');
  }

  /**
   * Runs a built-in tool; true when the call is over (a transfer ended it); `switched` when
   * another assistant took the call over (it answers next), `greeted` when it also said its
   * opening line (the turn is over). Its effects: src/calls/builtin-effects.ts.
   */
  private async runBuiltin(builtins: BuiltinToolbox, callId: string, name: string, args: string): Promise<boolean | 'switched' | 'greeted'> {
    const h = this.host;
    const started = this.deps.clock.now();
    const outcome = await builtins.run(name, args);
    h.toolRecords.push({ name, ok: outcome.ok, durationMs: Math.max(0, this.deps.clock.now() - started) });
    if (h.ended) return true;
    answerToolCall(h.messages, callId, outcome.content);
    const step = await applyBuiltinResult(
      outcome,
      {
        finishTurn: async (text) => {
          if (text) await this.say(text);
        },
        // The loop's next round answers: the model reads why in the history.
        answerWith: (instruction) => h.messages.push({ role: 'system', content: instruction }),
        greet: (text) => this.say(text),
        respond: () => undefined,
      },
      {
        get ended() {
          return h.ended;
        },
        log: this.deps.log,
        remember: (text) => h.messages.push({ role: 'assistant', content: text }),
        note: (line) => h.lines.push(line),
        end: (reason, handedOver) => h.end('completed', reason, handedOver),
        switchAssistant: (to) => {
          h.switchAssistant(to);
          return this.settings.initialMessage;
        },
      },
    );
    if (step === 'switched' || step === 'greeted') return step;
    return step === 'ended' || h.ended;
  }
}
