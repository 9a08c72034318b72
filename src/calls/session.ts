/**
 * One live call's conversation, composed of small parts with one job each:
 *
 *   carrier leg  ──events──▶  input stage (speech-to-text seam) ──▶ turn loop ──▶ LLM stage
 *        ▲                                                           │   ▲           │
 *        └── actions ◀── output stage (text-to-speech seam) ◀────────┘   └─ tool runner
 *                                          timers (max duration, silence) ──▶ turn loop
 *
 * The session knows nothing of HTTP or the database: it reports `ringing`/`answered` through
 * hooks and resolves `run()` with the outcome; src/calls/engine.ts persists it. Many sessions
 * run concurrently in one process; each holds only its own small state and timers.
 */
import type { Logger } from 'pino';
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import { CallTimers } from './timers.js';
import { toolFunction, type MidCallTool, type ToolOutcome } from './tool-runner.js';
import type { ChatMessage, LlmProvider, ToolSpec } from '../providers/llm/types.js';
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { AnsweredBy, CarrierLeg, LegEvent } from '../telephony/types.js';
import { MemoryTurnRecorder, TurnTracker, type FillerReason } from './turns.js';
import { FillerScheduler } from './fillers.js';
import type { FillerConfig } from '../db/schema.js';
import { SilenceStage } from './voice/silence.js';
import type { VoiceCall, VoiceCallFactory } from './voice/voice-call.js';
import { withoutPlaceholders } from './variables.js';
import type { BuiltinToolbox } from './builtin-tools/index.js';
import type { Frame } from './voice/frames.js';

/** The built-in function that ends the call (a hyphen keeps it apart from mid-call tool names). */
export const END_CALL_TOOL = 'end-call';
export const DEFAULT_END_CALL_DESCRIPTION = 'End the call once the conversation has reached its end or the customer wants to finish.';
export const REENGAGEMENT_LINE = 'Are you still there?';
export const APOLOGY_LINE = 'I am sorry, I am having technical difficulties. Goodbye.';
/** A carrier that reports neither an answer nor a failure within this time has lost the call. */
export const DIAL_TIMEOUT_MS = 120_000;
/** LLM rounds per turn (tool call → answer → ...), against a model that loops on tools. */
const MAX_STEPS_PER_TURN = 8;

export interface SessionSettings {
  /** Already filled with the call's variables. */
  systemPrompt: string;
  initialMessage: string;
  waitForCustomer: boolean;
  endCallOnVoicemail: boolean;
  maxDurationSec: number;
  maxSilenceSec: number;
  reengagementSec: number;
  model: string;
  temperature: number;
  tools: MidCallTool[];
  endCallDescription: string | null;
  variables: Record<string, unknown>;
  /** `fillers`: speak `fillerConfig` phrases while a tool runs or the LLM is slow (src/calls/fillers.ts). */
  fillers?: boolean;
  fillerConfig?: FillerConfig;
}

/** The seams where speech-to-text and text-to-speech stages slot in; text passes through today. */
export interface SpeechStages {
  /** What the customer said, as text. */
  hear(event: Extract<LegEvent, { type: 'customer-said' }>): string;
  /** Plays the assistant's text on the leg. */
  speak(leg: CarrierLeg, text: string): Promise<void>;
}

export const textStages: SpeechStages = {
  hear: (event) => event.text,
  speak: (leg, text) => (leg.say ? leg.say(text) : Promise.resolve()),
};

export interface ToolExecutor {
  run(tool: MidCallTool, argumentsJson: string): Promise<ToolOutcome>;
}

export interface SessionDeps {
  leg: CarrierLeg;
  llm: LlmProvider;
  tools: ToolExecutor;
  clock: Clock;
  log: Logger;
  stages?: SpeechStages;
  /** Audio legs: builds the leg's voice pipeline (STT → LLM → TTS); without it every leg converses in text. */
  voice?: VoiceCallFactory;
  /** Where the call's turns are recorded (the engine's is the database; default: kept in memory). */
  turns?: TurnTracker;
  /** The assistant's built-in tools as LLM functions (src/calls/builtin-tools). */
  builtins?: BuiltinToolbox;
}

export interface SessionHooks {
  onRinging?(): void;
  onAnswered?(answeredBy: AnsweredBy): void;
}

export interface ToolCallRecord {
  name: string;
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface SessionResult {
  connected: boolean;
  status: EndStatus;
  answeredBy: AnsweredBy;
  /** Milliseconds from the answer to the end (0 when never connected). */
  talkMs: number;
  transcript: string;
  messages: ChatMessage[];
  toolCalls: ToolCallRecord[];
  customerUtterances: number;
  /** Where the carrier stored the call's audio, when it recorded any (the sandbox records none). */
  recordingUrl?: string | null;
}

export class CallSession {
  private readonly stages: SpeechStages;
  /** The voice pipeline of an audio leg, from the answer on. */
  private voice: VoiceCall | null = null;
  private readonly timers: CallTimers;
  private readonly turns: TurnTracker;
  private readonly fillers: FillerScheduler;
  private readonly abort = new AbortController();
  private readonly lines: string[] = [];
  private readonly messages: ChatMessage[] = [];
  private readonly toolRecords: ToolCallRecord[] = [];
  private readonly toolsByName = new Map<string, MidCallTool>();
  private readonly specs: ToolSpec[];
  private answeredBy: AnsweredBy = 'unknown';
  private answeredAt: number | null = null;
  private greeted = false;
  private turning = false;
  private pendingTurn = false;
  private customerUtterances = 0;
  private ended = false;
  private dialTimer: TimerHandle | null = null;
  private resolve!: (result: SessionResult) => void;
  readonly done: Promise<SessionResult>;

  constructor(
    private readonly settings: SessionSettings,
    private readonly deps: SessionDeps,
    private readonly hooks: SessionHooks = {},
  ) {
    this.stages = deps.stages ?? textStages;
    this.turns = deps.turns ?? new TurnTracker(new MemoryTurnRecorder(), deps.clock);
    this.fillers = new FillerScheduler(
      settings.fillers ?? false,
      settings.fillerConfig ?? { neutral: [], negative: [], positive: [], question: [] },
      deps.clock,
      (text, reason) => this.sayFiller(text, reason),
    );
    this.done = new Promise((resolve) => (this.resolve = resolve));
    if (deps.llm.transcriptNote) this.lines.push(deps.llm.transcriptNote);
    if (settings.systemPrompt.trim() !== '') this.messages.push({ role: 'system', content: settings.systemPrompt });
    for (const tool of settings.tools) this.toolsByName.set(tool.name, tool);
    this.specs = [
      ...settings.tools.map(toolFunction),
      ...(deps.builtins?.specs ?? []),
      {
        name: END_CALL_TOOL,
        description: deps.builtins?.endCallDescription || settings.endCallDescription?.trim() || DEFAULT_END_CALL_DESCRIPTION,
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
    ];
    this.timers = new CallTimers(
      deps.clock,
      {
        maxDurationMs: settings.maxDurationSec * 1000,
        maxSilenceMs: settings.maxSilenceSec * 1000,
        reengagementMs: settings.reengagementSec * 1000,
      },
      {
        onMaxDuration: () => this.end('ended', 'maximum call duration reached'),
        onReengage: () => this.reengage(),
        onSilenceTimeout: () => this.end('ended_by_assistant', 'customer silent after re-engagement'),
      },
    );
  }

  /** Places the call and resolves when it is over. */
  run(): Promise<SessionResult> {
    this.deps.leg.onEvent((event) => this.onLegEvent(event));
    this.dialTimer = this.deps.clock.setTimer(DIAL_TIMEOUT_MS, () => {
      if (this.ended || this.answeredAt !== null) return;
      this.deps.log.warn('the carrier reported no outcome in time; giving up on the call');
      this.ended = true;
      this.deps.leg.hangUp();
      this.finish('failed', false);
    });
    this.deps.leg.start();
    return this.done;
  }

  /** Ends the call from outside (service shutdown): status `ended`. */
  stop(reason: string): void {
    this.deps.clock.clearTimer(this.dialTimer);
    if (this.answeredAt === null && !this.ended) {
      this.ended = true;
      this.timers.stop();
      this.abort.abort();
      this.deps.leg.hangUp();
      this.finish('ended', false);
      return;
    }
    this.end('ended', reason);
  }

  private onLegEvent(event: LegEvent): void {
    if (this.ended) return;
    switch (event.type) {
      case 'ringing':
        this.hooks.onRinging?.();
        return;
      case 'unanswered':
        this.deps.clock.clearTimer(this.dialTimer);
        this.ended = true;
        this.timers.stop();
        this.finish(event.outcome satisfies UnconnectedEnd, false);
        return;
      case 'answered':
        this.onAnswered(event.answeredBy);
        return;
      case 'answered-by':
        // A late verdict of answering-machine detection (Twilio's asynchronous AMD).
        this.answeredBy = event.answeredBy;
        if (event.answeredBy === 'machine' && this.settings.endCallOnVoicemail) this.end('ended_by_assistant', 'voicemail');
        return;
      case 'customer-said':
        // On an audio leg the words join the pipeline (they are its transcript).
        if (this.voice) this.voice.customerSaid(event.text);
        else this.onCustomerSaid(this.stages.hear(event));
        return;
      case 'hung-up':
        this.end('ended_by_customer', 'customer hung up', true);
        return;
      case 'dtmf':
        this.deps.builtins?.onDigit(event.digit);
        return;
    }
  }

  private onAnswered(by: AnsweredBy): void {
    this.deps.clock.clearTimer(this.dialTimer);
    this.answeredBy = by;
    this.answeredAt = this.deps.clock.now();
    this.hooks.onAnswered?.(by);
    this.timers.start();
    if (this.deps.voice && this.deps.leg.media) this.startVoice(this.deps.voice, this.deps.leg.media);
    if (by === 'machine' && this.settings.endCallOnVoicemail) {
      this.end('ended_by_assistant', 'voicemail');
      return;
    }
    // A voicemail box greets first; so does the customer when the assistant waits for them.
    if (this.settings.waitForCustomer || by === 'machine') this.timers.awaitCustomer();
    else this.greet();
  }

  private onCustomerSaid(text: string): void {
    this.customerUtterances++;
    this.lines.push(`Customer: ${text}`);
    this.messages.push({ role: 'user', content: text });
    this.timers.activity();
    if (this.turning) this.turns.callerSaid(text);
    else {
      this.turns.begin('reply', text);
      this.turns.stage('finalTranscript');
    }
    if (!this.greeted) this.greet();
    else this.turn();
  }

  /** An audio leg converses through the voice pipeline; the session keeps the call's life and record. */
  private startVoice(factory: VoiceCallFactory, media: NonNullable<CarrierLeg['media']>): void {
    const s = this.settings;
    const voice = factory(media, {
      llm: {
        llm: this.deps.llm,
        model: s.model,
        temperature: s.temperature,
        messages: this.messages,
        tools: s.tools,
        specs: this.specs,
        executor: this.deps.tools,
        variables: s.variables,
        onToolCall: (record) => this.toolRecords.push(record),
      },
      tracker: this.turns,
      tapStages: [new SilenceStage(this.timers)],
    });
    this.voice = voice;
    voice.onLine((line) => {
      this.lines.push(`${line.speaker}: ${line.text}`);
      this.deps.leg.caption?.(line.speaker === 'AI' ? 'assistant' : 'user', line.text);
      if (line.speaker === 'Customer') this.customerUtterances++;
    });
    voice.onFrame((frame) => {
      if (this.ended) return;
      this.fillersFor(frame);
      // The caller spoke first (wait_for_customer, a voicemail greeting): the reply is the greeting.
      if (frame.kind === 'end-of-turn') this.greeted = true;
      else if (frame.kind === 'hang-up' && !frame.remote) this.end(frame.reason === 'LLM failure' ? 'ended' : 'completed', frame.reason);
    });
  }

  /** Fillers on an audio leg: while the reply's first words are slow, and while a mid-call tool runs. */
  private fillersFor(frame: Frame): void {
    switch (frame.kind) {
      case 'turn-started':
        this.fillers.newTurn();
        if (frame.turnKind === 'reply') this.fillers.waiting('slow-llm', frame.callerText);
        return;
      case 'tool-call':
        if (frame.name !== END_CALL_TOOL) this.fillers.waiting('tool');
        return;
      case 'llm-delta':
      case 'tool-result':
      case 'interruption':
      case 'cancel':
        this.fillers.cancel();
        return;
    }
  }

  private greet(): void {
    this.greeted = true;
    const opening = this.settings.initialMessage.trim();
    if (this.voice) {
      if (opening === '') this.voice.respond();
      else {
        this.messages.push({ role: 'assistant', content: opening });
        void this.voice.say(opening, 'greeting');
      }
      return;
    }
    if (opening === '') {
      if (!this.turns.active) this.turns.begin('greeting', null);
      this.turn();
      return;
    }
    this.messages.push({ role: 'assistant', content: opening });
    const position = this.turns.current ?? this.turns.begin('greeting', null);
    void this.say(opening).then(() => {
      if (!this.turning) {
        this.turns.finish({ position });
        this.timers.awaitCustomer();
      }
    });
  }

  private reengage(): void {
    if (this.ended || this.turning) return;
    this.messages.push({ role: 'assistant', content: REENGAGEMENT_LINE });
    if (this.voice) {
      void this.voice.say(REENGAGEMENT_LINE, 'reengagement');
      return;
    }
    const position = this.turns.begin('reengagement', null);
    void this.say(REENGAGEMENT_LINE, true).then(() => this.turns.finish({ position }));
  }

  private async say(said: string, reengagement = false): Promise<void> {
    if (this.ended) return;
    // A placeholder the model echoed from its prompt is never read out (docs/decisions.md).
    const text = withoutPlaceholders(said);
    if (text === '') return;
    this.lines.push(`AI: ${text}`);
    if (!reengagement) this.timers.activity();
    this.turns.assistantSaid(text);
    // A text leg "sends audio" when it hands the line to the carrier.
    this.turns.stage('ttsFirstByte');
    this.turns.stage('firstAudio');
    try {
      await this.stages.speak(this.deps.leg, text);
    } catch (err) {
      this.deps.log.warn({ err }, 'speaking failed');
    }
  }

  /** A filler phrase: heard (transcript, turn) but not part of the LLM's history. */
  private sayFiller(text: string, reason: FillerReason): void {
    if (this.ended) return;
    if (this.voice) {
      this.voice.sayFiller(text, reason);
      return;
    }
    this.lines.push(`AI: ${text}`);
    this.turns.filler(text, reason);
    this.stages.speak(this.deps.leg, text).catch((err: unknown) => this.deps.log.warn({ err }, 'speaking a filler failed'));
  }

  private lastCallerText(): string | null {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const m = this.messages[i]!;
      if (m.role === 'user') return m.content;
    }
    return null;
  }

  private turn(): void {
    if (this.turning) {
      this.pendingTurn = true;
      return;
    }
    this.turning = true;
    void this.runTurns();
  }

  private async runTurns(): Promise<void> {
    try {
      do {
        this.pendingTurn = false;
        await this.llmTurn();
      } while (this.pendingTurn && !this.ended);
    } catch (err) {
      if (this.ended) return;
      this.deps.log.error({ err: { message: (err as Error).message }, llm: this.deps.llm.label }, 'LLM stage failed; ending the call');
      // The call's record says why, not only the log (issue 18): a note line like the stand-in's.
      this.lines.push(`[the language model failed: ${(err as Error).message.replace(/\s+/g, ' ').slice(0, 200)}]`);
      this.messages.push({ role: 'assistant', content: APOLOGY_LINE });
      await this.say(APOLOGY_LINE);
      this.end('ended', 'LLM failure');
    } finally {
      this.turning = false;
      this.turns.finish();
      if (!this.ended) this.timers.awaitCustomer();
    }
  }

  private async llmTurn(): Promise<void> {
    this.fillers.newTurn();
    for (let step = 0; step < MAX_STEPS_PER_TURN; step++) {
      this.timers.activity();
      this.fillers.waiting('slow-llm', this.lastCallerText());
      const completion = await this.deps.llm.complete({
        model: this.settings.model,
        temperature: this.settings.temperature,
        messages: [...this.messages],
        tools: this.specs,
        signal: this.abort.signal,
        onText: () => {
          this.fillers.cancel();
          this.turns.stage('llmFirstToken');
        },
        standInContext: { variables: this.settings.variables },
      });
      this.fillers.cancel();
      if (this.ended) return;
      const text = completion.text.trim();
      // Providers that do not stream report the whole answer at once.
      this.turns.stage('llmFirstToken');
      if (completion.toolCalls.length === 0) {
        if (text !== '') {
          this.messages.push({ role: 'assistant', content: text });
          await this.say(text);
        }
        return;
      }
      this.messages.push({
        role: 'assistant',
        content: text === '' ? null : text,
        tool_calls: completion.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
      if (text !== '') await this.say(text);
      let endCall = false;
      for (const call of completion.toolCalls) {
        if (this.ended) return;
        if (call.name === END_CALL_TOOL) {
          endCall = true;
          this.messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: true }) });
          continue;
        }
        if (this.deps.builtins?.has(call.name)) {
          if (await this.runBuiltin(this.deps.builtins, call.id, call.name, call.arguments)) return;
          continue;
        }
        const tool = this.toolsByName.get(call.name);
        if (!tool) {
          this.messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ error: `unknown tool ${call.name}` }) });
          continue;
        }
        this.fillers.waiting('tool');
        const outcome = await this.deps.tools.run(tool, call.arguments).finally(() => this.fillers.cancel());
        this.toolRecords.push({ name: tool.name, ok: outcome.ok, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs });
        if (this.ended) return;
        this.messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      }
      if (endCall) {
        this.end('completed', 'the assistant closed the call');
        return;
      }
    }
    this.deps.log.warn({ llm: this.deps.llm.label }, 'LLM kept calling tools; waiting for the customer');
  }

  /** Runs a built-in tool; true when the call is over (a transfer ended it). */
  private async runBuiltin(builtins: BuiltinToolbox, callId: string, name: string, args: string): Promise<boolean> {
    const started = this.deps.clock.now();
    const outcome = await builtins.run(name, args);
    this.toolRecords.push({ name, ok: outcome.ok, durationMs: Math.max(0, this.deps.clock.now() - started) });
    if (this.ended) return true;
    let content = outcome.content;
    if (outcome.say) await this.say(outcome.say);
    let handedOver = false;
    let failed = false;
    if (outcome.end?.handOver && !this.ended) {
      try {
        await outcome.end.handOver();
        handedOver = true;
      } catch (err) {
        this.deps.log.warn({ err: { message: (err as Error).message } }, 'the carrier could not transfer the call');
        failed = true;
        content = JSON.stringify({ error: 'the transfer failed' });
      }
    }
    this.messages.push({ role: 'tool', tool_call_id: callId, content });
    if (outcome.say) this.messages.push({ role: 'assistant', content: outcome.say });
    if (failed) this.lines.push('Transfer: the carrier could not transfer the call.');
    else if (outcome.note) this.lines.push(outcome.note);
    if (!outcome.end || failed || this.ended) return this.ended;
    this.end('completed', outcome.end.reason, handedOver);
    return true;
  }

  private end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string, remote = false): void {
    if (this.ended) return;
    this.ended = true;
    this.fillers.cancel();
    // Stops playback and the providers; the turn in progress is recorded as it stands.
    if (this.voice) void this.voice.close(reason).catch((err: unknown) => this.deps.log.warn({ err }, 'closing the voice pipeline failed'));
    this.turns.finish();
    this.timers.stop();
    this.abort.abort();
    if (!remote) this.deps.leg.hangUp();
    this.deps.log.debug({ status, reason }, 'call ended');
    this.finish(status, this.answeredAt !== null);
  }

  private finish(status: EndStatus, connected: boolean): void {
    this.resolve({
      connected,
      status,
      answeredBy: this.answeredBy,
      talkMs: connected && this.answeredAt !== null ? Math.max(0, this.deps.clock.now() - this.answeredAt) : 0,
      // A call that never connected has no conversation, not even the stand-in's note.
      transcript: connected ? this.lines.join('\n') : '',
      messages: this.messages,
      toolCalls: this.toolRecords,
      customerUtterances: this.customerUtterances,
    });
  }
}
