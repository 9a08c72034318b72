/**
 * One live call: its life (dialling, answer, timers, end) and its record (transcript lines,
 * LLM history, tool records). The conversation itself runs in one of two places:
 *
 *   audio leg ──frames──▶ voice pipeline (src/voice: VAD → STT → LLM → TTS → output)
 *   text leg  ──lines───▶ text turn loop (src/calls/text-turns.ts: LLM round trips, tools)
 *                timers (max duration, silence) ──▶ re-engagement / end
 *
 * Settings, dependencies and the result type are in src/calls/session-types.ts. The session is
 * where a call's life, both kinds of leg and the built-ins' callbacks meet, so it stays the
 * largest file of src/calls (over 400 lines: the hooks handed to the voice pipeline, the text
 * loop and the built-ins close over the one call state they change, so they live here); each job of its own lives beside it: text-turns.ts, voicemail.ts,
 * fillers.ts, assistant-switch.ts, timers.ts.
 * The session knows nothing of HTTP or the database: it reports `ringing`/`answered` through
 * hooks and resolves `run()` with the outcome; src/calls/engine.ts persists it. Many sessions
 * run concurrently in one process; each holds only its own small state and timers.
 */
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import { CallTimers } from './timers.js';
import { callTools, type MidCallTool } from './tool-runner.js';
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { TimerHandle } from '../telephony/clock.js';
import type { AnsweredBy, CarrierLeg, LegEvent } from '../telephony/types.js';
import { MemoryTurnRecorder, TurnTracker, type FillerReason } from './turns.js';
import { FillerScheduler } from './fillers.js';
import { SilenceStage } from '../voice/silence.js';
import type { VoiceCall, VoiceCallFactory } from '../voice/voice-call.js';
import type { Frame } from '../voice/frames.js';
import type { LlmStageOptions } from '../voice/llm.js';
import type { BuiltinResult, BuiltinToolbox } from './builtin-tools/index.js';
import { applyBuiltinResult, endsTurn } from './builtin-effects.js';
import type { CallBuiltins } from '../voice/ports.js';
import { TextTurns } from './text-turns.js';
import { functionSpecs, switchAssistant } from './assistant-switch.js';
import { VoicemailDrop } from './voicemail.js';
import { callHooks } from './call-hooks.js';
import { reengagementLine, silenceGoodbyeLine } from './closing-lines.js';
import {
  DIAL_TIMEOUT_MS,
  END_CALL_TOOL,
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
  private customerUtterances = 0;
  /** The caller's speech onsets on an audio leg (the VAD's), counted to see whether they spoke up during the closing line. */
  private callerSpeechOnsets = 0;
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
        onReengage: () => this.reengage(),
        onSilenceTimeout: () => this.silenceTimeout(),
      },
    );
    deps.builtins?.attach(
      callHooks({
        leg: deps.leg,
        clock: deps.clock,
        log: deps.log,
        voice: () => this.voice,
        // The hold message of a warm transfer: said while the turn waits for the supervisor.
        sayToCaller: async (text) => {
          if (this.ended) return;
          this.messages.push({ role: 'assistant', content: text });
          if (this.voice) await this.voice.say(text, 'reply');
          else await this.text.say(text);
        },
        // collect_keypad's timeout starts once the request for keys has been heard.
        spokenSoFar: () => (this.voice ? this.voice.output.playedSoFar() : this.text.saidSoFar()),
        note: (line) => this.note(line),
        callEnded: this.abort.signal,
      }),
    );
    const session = this;
    this.text = new TextTurns(settings, deps, {
      get ended() {
        return session.ended;
      },
      lines: this.lines,
      messages: this.messages,
      toolRecords: this.toolRecords,
      specs: this.specs,
      toolsByName: this.toolsByName,
      turns: this.turns,
      timers: this.timers,
      fillers: this.fillers,
      signal: this.abort.signal,
      end: (status, reason, remote) => this.end(status, reason, remote),
      switchAssistant: (to) => this.switchAssistant(to),
    });
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

  /**
   * A built-in's result on an audio leg (pipeline or speech-to-speech): its line ends turn
   * `turn` in the mode's way (VoiceCall.finishTurn), then its effects (src/calls/builtin-effects.ts).
   */
  private applyVoiceBuiltin(result: BuiltinResult, turn: number): void {
    const voice = this.voice;
    if (!voice || this.ended) return;
    const session = this;
    void applyBuiltinResult(
      result,
      {
        finishTurn: (text) => {
          const over = voice.turnOver(turn);
          voice.finishTurn(turn, text);
          return over;
        },
        answerWith: (instruction) => {
          this.messages.push({ role: 'system', content: instruction });
          voice.respond(instruction);
        },
        greet: (text) => voice.say(text, 'greeting'),
        respond: () => voice.respond(),
      },
      {
        get ended() {
          return session.ended;
        },
        log: this.deps.log,
        remember: (text) => this.messages.push({ role: 'assistant', content: text }),
        note: (line) => this.note(line),
        end: (reason, handedOver) => this.end('completed', reason, handedOver),
        switchAssistant: (to) => {
          this.switchAssistant(to);
          return this.settings.initialMessage;
        },
      },
    );
  }

  /** The built-ins as the voice pipeline's port: a result that ends the turn comes back as `finish`. */
  private voiceBuiltins(builtins: BuiltinToolbox): CallBuiltins {
    return {
      has: (name) => builtins.has(name),
      run: async (name, args) => {
        const result = await builtins.run(name, args);
        if (!endsTurn(result)) return { ok: result.ok, content: result.content, note: result.note };
        return { ok: result.ok, content: result.content, finish: (turn) => this.applyVoiceBuiltin(result, turn) };
      },
    };
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

  /**
   * Answered by a machine. With a voicemail message: it is left once the box's greeting has
   * ended (the caller's end of turn: VAD silence after the greeting, or the leg's words), then
   * the assistant hangs up. Without one: hang up at once with end_call_on_voicemail, else the
   * box is talked to like a person (it greets first).
   */
  private onMachine(): void {
    if (this.voicemail || this.ended) return;
    const message = this.settings.voicemailMessage?.trim() ?? '';
    if (message === '') {
      if (this.settings.endCallOnVoicemail) this.end('ended_by_assistant', 'voicemail');
      else this.timers.awaitCustomer();
      return;
    }
    // No re-engagement into a voicemail box; the silent-box timer stands in for it.
    this.timers.activity();
    const session = this;
    this.voicemail = new VoicemailDrop(message, this.deps.clock, {
      get ended() {
        return session.ended;
      },
      get voice() {
        return session.voice;
      },
      sayText: (text) => this.text.say(text),
      lines: this.lines,
      turns: this.turns,
      left: () => this.end('ended_by_assistant', 'voicemail message left'),
    });
    this.voicemail.start();
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

  /** An audio leg converses through the voice pipeline; the session keeps the call's life and record. */
  private startVoice(factory: VoiceCallFactory, media: NonNullable<CarrierLeg['media']>): void {
    const s = this.settings;
    const llmOptions: LlmStageOptions = {
        llm: this.deps.llm,
        model: s.model,
        temperature: s.temperature,
        messages: this.messages,
        specs: this.specs,
        // The pipeline's ports (src/voice/ports.ts): the current assistant's tools, by name.
        tools: callTools(this.toolsByName, this.deps.tools),
        variables: s.variables,
        onToolCall: (record) => this.toolRecords.push(record),
        builtins: this.deps.builtins && this.voiceBuiltins(this.deps.builtins),
        onNote: (line) => this.lines.push(line),
        knowledge: this.deps.knowledge,
      };
    this.llmOptions = llmOptions;
    const voice = factory(media, {
      llm: llmOptions,
      tracker: this.turns,
      tapStages: [new SilenceStage(this.timers)],
      keysTaken: () => this.deps.builtins?.collectingKeys ?? false,
    });
    this.voice = voice;
    // Why a provider failed is in the record, not only the log (issue 18).
    voice.onNote((note) => this.lines.push(note));
    voice.onLine((line) => {
      this.lines.push(`${line.speaker}: ${line.text}`);
      this.deps.leg.caption?.(line.speaker === 'AI' ? 'assistant' : 'user', line.text);
      if (line.speaker === 'Customer') this.customerUtterances++;
    });
    voice.onFrame((frame) => {
      if (this.ended) return;
      if (frame.kind === 'speech-started') {
        this.callerSpeechOnsets++;
        this.voicemail?.heardSomething();
      }
      this.fillers.follow(frame, END_CALL_TOOL, this.deps.knowledge?.spec?.name ?? null);
      // The caller spoke first (wait_for_customer, a voicemail greeting): the reply is the greeting.
      if (frame.kind === 'end-of-turn') this.greeted = true;
      else if (frame.kind === 'hang-up' && !frame.remote) this.voiceHangUp(frame);
    });
  }

  /** The voice core ended the call (end-call once its goodbye played, an LLM failure). */
  private voiceHangUp(frame: Extract<Frame, { kind: 'hang-up' }>): void {
    this.end(frame.reason === 'LLM failure' ? 'ended' : 'completed', frame.reason);
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

  private reengage(): void {
    if (this.ended || this.text.busy) return;
    const line = reengagementLine(this.settings.language);
    this.messages.push({ role: 'assistant', content: line });
    if (this.voice) {
      void this.voice.say(line, 'reengagement');
      return;
    }
    const position = this.turns.begin('reengagement', null);
    void this.text.say(line, true).then(() => this.turns.finish({ position }));
  }

  /**
   * The caller stayed silent after re-engagement. The assistant says its closing line first
   * (silence_goodbye_message, else the default in its language; '' none) and hangs up once it was
   * heard (an audio leg) or handed to the leg (a text leg) — unless the caller speaks up (or types)
   * meanwhile: then the call goes on and the silence clock starts over.
   */
  private silenceTimeout(): void {
    if (this.ended) return;
    const reason = 'customer silent after re-engagement';
    const goodbye = silenceGoodbyeLine(this.settings.silenceGoodbyeMessage, this.settings.language);
    if (goodbye === '') {
      this.end('ended_by_assistant', reason);
      return;
    }
    // No re-engagement over the closing line.
    this.timers.activity();
    this.messages.push({ role: 'assistant', content: goodbye });
    if (this.voice) {
      const spokeBefore = this.callerSpeechOnsets;
      void this.voice.say(goodbye, 'reengagement').then(() => {
        if (this.callerSpeechOnsets === spokeBefore) this.end('ended_by_assistant', reason);
      });
      return;
    }
    const saidBefore = this.customerUtterances;
    const position = this.turns.begin('reengagement', null);
    void this.text.say(goodbye, true).then(() => {
      this.turns.finish({ position });
      if (this.customerUtterances === saidBefore) this.end('ended_by_assistant', reason);
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
