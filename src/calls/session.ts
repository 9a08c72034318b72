/**
 * One live call: its life (dialling, answer, timers, end) and its record (transcript lines,
 * LLM history, tool records). The conversation itself runs in one of two places:
 *
 *   audio leg ──frames──▶ voice pipeline (src/voice: VAD → STT → LLM → TTS → output)
 *   text leg  ──lines───▶ text turn loop (src/calls/text-turns.ts: LLM round trips, tools)
 *                timers (max duration, silence) ──▶ re-engagement / end
 *
 * Settings, dependencies and the result type are in src/calls/session-types.ts. The session is
 * where a call's life and both kinds of leg meet; each job of its own lives beside it and sees the
 * call through one host object (`call`): text-turns.ts (the text leg), voice-leg.ts (what the
 * audio leg's pipeline gets and gives back, the built-ins' port with it), caller-silence.ts
 * (re-engagement, the closing line), voicemail.ts (machines, the voicemail message), fillers.ts,
 * assistant-switch.ts, timers.ts, call-hooks.ts (what the built-ins may do on the call).
 * The session knows nothing of HTTP or the database: it reports `ringing`/`answered` through
 * hooks and resolves `run()` with the outcome; src/calls/engine.ts persists it. Many sessions
 * run concurrently in one process; each holds only its own small state and timers.
 */
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import { CallTimers } from './timers.js';
import type { MidCallTool } from './tool-runner.js';
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { TimerHandle } from '../telephony/clock.js';
import type { AnsweredBy, CarrierLeg, LegEvent } from '../telephony/types.js';
import { MemoryTurnRecorder, TurnTracker, type FillerReason } from './turns.js';
import { FillerScheduler } from './fillers.js';
import { SilenceStage } from '../voice/silence.js';
import type { VoiceCall, VoiceCallFactory } from '../voice/voice-call.js';
import type { LlmStageOptions } from '../voice/llm.js';
import type { BuiltinResult } from './builtin-tools/index.js';
import { TextTurns, type TextTurnHost } from './text-turns.js';
import { functionSpecs, switchAssistant } from './assistant-switch.js';
import { answerMachine, type MachineHost, type VoicemailDrop } from './voicemail.js';
import { callHooks, type CallParts } from './call-hooks.js';
import { followVoice, voiceLlmOptions, type VoiceLegHost } from './voice-leg.js';
import { CallerSilence, type CallerSilenceHost } from './caller-silence.js';
import {
  DIAL_TIMEOUT_MS,
  textStages,
  type SessionDeps,
  type SessionHooks,
  type SessionResult,
  type SessionSettings,
  type SpeechStages,
  type ToolCallRecord,
} from './session-types.js';

export * from './session-types.js';

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
  /** The turn loop of a text leg (audio legs converse through `voice`). */
  private readonly text: TextTurns;
  /** Re-engagement and the closing line when the caller goes quiet. */
  private readonly silence: CallerSilence;
  /** The call as the session's helpers see it (text loop, audio leg, silence, voicemail, the built-ins' hooks). */
  private readonly call: TextTurnHost & VoiceLegHost & CallerSilenceHost & MachineHost & CallParts;
  private customerUtterances = 0;
  private ended = false;
  private dialTimer: TimerHandle | null = null;
  /** A voicemail box answered and the message waits for its greeting to end (`voice_mail_message`). */
  private voicemail: VoicemailDrop | null = null;
  private resolve!: (result: SessionResult) => void;
  readonly done: Promise<SessionResult>;

  /** The call's settings; another assistant's replace them when it takes the call over (assistant_transfer). */
  private readonly settings: SessionSettings;
  /** The voice pipeline's LLM options (shared: a hand-over changes them in place). */
  private llmOptions: LlmStageOptions | null = null;

  constructor(
    settings: SessionSettings,
    private readonly deps: SessionDeps,
    private readonly hooks: SessionHooks = {},
  ) {
    this.settings = { ...settings };
    settings = this.settings;
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
    this.specs = functionSpecs(settings, deps.builtins, deps.knowledge);
    this.timers = new CallTimers(
      deps.clock,
      {
        maxDurationMs: settings.maxDurationSec * 1000,
        maxSilenceMs: settings.maxSilenceSec * 1000,
        reengagementMs: settings.reengagementSec * 1000,
      },
      {
        onMaxDuration: () => this.end('ended', 'maximum call duration reached'),
        onReengage: () => this.silence.reengage(),
        onSilenceTimeout: () => this.silence.timeout(),
      },
    );
    const session = this;
    this.call = {
      get ended() {
        return session.ended;
      },
      get voice() {
        return session.voice;
      },
      get text() {
        return session.text;
      },
      get customerUtterances() {
        return session.customerUtterances;
      },
      settings,
      deps,
      lines: this.lines,
      messages: this.messages,
      toolRecords: this.toolRecords,
      specs: this.specs,
      toolsByName: this.toolsByName,
      turns: this.turns,
      timers: this.timers,
      fillers: this.fillers,
      signal: this.abort.signal,
      note: (line) => this.note(line),
      end: (status, reason, remote?: boolean) => this.end(status, reason, remote),
      switchAssistant: (to) => this.switchAssistant(to),
      speechStarted: () => {
        this.silence.speechStarted();
        this.voicemail?.heardSomething();
      },
      customerLine: () => this.customerUtterances++,
      turnEnded: () => (this.greeted = true),
    };
    deps.builtins?.attach(callHooks(this.call));
    this.text = new TextTurns(settings, deps, this.call);
    this.silence = new CallerSilence(this.call);
  }

  /** A transcript line that is not speech (a built-in's step, a carrier's answer). */
  note(line: string): void {
    if (!this.ended) this.lines.push(line);
  }

  /** The conversation so far as the transcript has it (a warm transfer's summary is written from it). */
  transcriptSoFar(): string {
    return this.lines.join('\n');
  }

  /** assistant_transfer: the other assistant takes over (src/calls/assistant-switch.ts). */
  private switchAssistant(to: NonNullable<BuiltinResult['switchTo']>): void {
    const media = this.deps.leg.media;
    switchAssistant(
      {
        settings: this.settings,
        messages: this.messages,
        toolsByName: this.toolsByName,
        specs: this.specs,
        builtins: this.deps.builtins,
        knowledge: this.deps.knowledge ?? null,
        llmOptions: this.llmOptions,
        voice: this.voice && media ? { call: this.voice, sampleRate: media.sampleRate } : null,
        log: this.deps.log,
      },
      to,
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

  /**
   * Ends the call from outside (service shutdown): status `ended`, and the reason as the
   * transcript's last line — also on a call that never connected, so its record says why.
   */
  stop(reason: string): void {
    this.deps.clock.clearTimer(this.dialTimer);
    if (this.ended) return;
    const note = `[The call was ended: ${reason}.]`;
    if (this.answeredAt === null) {
      this.ended = true;
      this.timers.stop();
      this.abort.abort();
      this.deps.leg.hangUp();
      this.finish('ended', false, note);
      return;
    }
    this.lines.push(note);
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
        if (event.answeredBy === 'machine') this.onMachine();
        return;
      case 'customer-said':
        this.voicemail?.heardSomething();
        // On an audio leg the words join the pipeline (they are its transcript).
        if (this.voice) this.voice.customerSaid(event.text);
        else this.onCustomerSaid(this.stages.hear(event));
        return;
      case 'hung-up':
        this.end('ended_by_customer', 'customer hung up', true);
        return;
      case 'dtmf':
        // Into the pipeline first: it asks whether a collect-keypad call takes the key, and the
        // toolbox may finish collecting on this very key (the stop key).
        this.voice?.dtmf(event.digit);
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
    if (by === 'machine') {
      this.onMachine();
      return;
    }
    if (!this.settings.waitForCustomer) {
      this.greet();
      return;
    }
    // The customer speaks first: on an audio leg the opening line answers their first turn
    // (after the VAD's end of speech and the endpoint), never the answer itself.
    const opening = this.settings.initialMessage.trim();
    if (this.voice && opening !== '') {
      void this.voice.answerNextTurnWith(opening, 'greeting', (callerText) => {
        this.greeted = true;
        this.messages.push({ role: 'user', content: callerText }, { role: 'assistant', content: opening });
      });
    }
    this.timers.awaitCustomer();
  }

  /** Answered by a machine: the rule for machines and the voicemail message (src/calls/voicemail.ts). */
  private onMachine(): void {
    if (this.voicemail || this.ended) return;
    this.voicemail = answerMachine(this.call);
  }

  private onCustomerSaid(text: string): void {
    if (this.voicemail) {
      this.voicemail.leaveNow(text);
      return;
    }
    this.customerUtterances++;
    this.lines.push(`Customer: ${text}`);
    this.messages.push({ role: 'user', content: text });
    this.timers.activity();
    if (this.text.busy) this.turns.callerSaid(text);
    else {
      this.turns.begin('reply', text);
      this.turns.stage('finalTranscript');
    }
    if (!this.greeted) this.greet();
    else this.text.turn();
  }

  /** An audio leg converses through the voice pipeline (src/calls/voice-leg.ts); the session keeps the call's life and record. */
  private startVoice(factory: VoiceCallFactory, media: NonNullable<CarrierLeg['media']>): void {
    const llmOptions = voiceLlmOptions(this.call);
    this.llmOptions = llmOptions;
    const voice = factory(media, {
      llm: llmOptions,
      tracker: this.turns,
      tapStages: [new SilenceStage(this.timers)],
      keysTaken: () => this.deps.builtins?.collectingKeys ?? false,
    });
    this.voice = voice;
    followVoice(voice, this.call);
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
      this.text.turn();
      return;
    }
    this.messages.push({ role: 'assistant', content: opening });
    const position = this.turns.current ?? this.turns.begin('greeting', null);
    void this.text.say(opening).then(() => {
      if (!this.text.busy) {
        this.turns.finish({ position });
        this.timers.awaitCustomer();
      }
    });
  }

  /** A filler phrase: heard (transcript, turn) but not part of the LLM's history. */
  private sayFiller(text: string, reason: FillerReason): void {
    if (this.ended) return;
    if (this.voice) this.voice.sayFiller(text, reason);
    else this.text.sayFiller(text, reason);
  }

  private end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string, remote = false): void {
    if (this.ended) return;
    this.ended = true;
    this.fillers.cancel();
    this.voicemail?.stop();
    // Stops playback and the providers; the turn in progress is recorded as it stands.
    if (this.voice) void this.voice.close(reason).catch((err: unknown) => this.deps.log.warn({ err }, 'closing the voice pipeline failed'));
    this.turns.finish();
    this.timers.stop();
    this.abort.abort();
    if (!remote) this.deps.leg.hangUp();
    this.deps.log.debug({ status, reason }, 'call ended');
    this.finish(status, this.answeredAt !== null);
  }

  private finish(status: EndStatus, connected: boolean, unconnectedNote = ''): void {
    this.resolve({
      connected,
      status,
      answeredBy: this.answeredBy,
      talkMs: connected && this.answeredAt !== null ? Math.max(0, this.deps.clock.now() - this.answeredAt) : 0,
      // A call that never connected has no conversation, not even the stand-in's note.
      transcript: connected ? this.lines.join('\n') : unconnectedNote,
      messages: this.messages,
      toolCalls: this.toolRecords,
      customerUtterances: this.customerUtterances,
    });
  }
}
