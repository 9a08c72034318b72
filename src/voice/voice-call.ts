/**
 * One audio call's voice pipeline, composed from the assistant's settings:
 *
 *   leg audio ─▶ vad ─▶ stt ─▶ interruption ─▶ turn-taking ─▶ keypad ─▶ (scripted reply) ─▶ llm ─▶ sentences ─▶ [spec. text] ─▶ tts ─▶ [spec. audio] ─▶ output ─▶ turn-recording ─▶ session
 *                 ▲                 │ cancel(turn)                   ▲                        │ media.play/mark/clear
 *                 └─ barge-in rule while the assistant holds the floor └── interruption (heard) ◀┘
 *
 * Turn-taking is the end-of-turn policy (turn-policy-stage.ts); a reply starts speculatively when
 * the turn is likely over and is held by the two gates until it is confirmed (speculation.ts).
 *
 * In `mode: multimodal` one speech-to-speech stage (speech-to-speech.ts) stands where vad … tts
 * are, after the keypad stage (the caller's keys are a message to the model); everything from
 * the output on is the same.
 *
 * The session (src/calls/session.ts) owns the call's life (timers, end, result); this class owns
 * the conversation's audio: it feeds the leg's audio and words in, lets the session say scripted
 * lines (greeting, re-engagement), and reports the transcript lines as the caller heard them.
 *
 * Just over 400 lines for one reason: this is the pipeline's one seam to the session, so its
 * public methods (say, fillers, scripted replies, voice changes, turn waits, close) are the
 * session's whole view of the audio; the stages it composes each live in their own file.
 */
import type { RateConversion } from '../audio/resample-thread.js';
import type { Logger } from 'pino';
import type { Clock } from '../telephony/clock.js';
import type { LegMedia } from '../telephony/types.js';
import type { SttProvider, SttStreamOptions } from '../providers/stt/types.js';
import type { TtsProvider, TtsStreamOptions } from '../providers/tts/types.js';
import { synthesize } from '../providers/synthesize.js';
import type { FillerReason, TurnKind, TurnLog } from './ports.js';
import type { Frame, TurnId } from './frames.js';
import { ambientMixerFor } from './ambient.js';
import { CallerWords } from './caller-words.js';
import { InterruptionStage } from './interruption.js';
import { KeypadStage } from './keypad.js';
import { LlmStage, type LlmStageOptions } from './llm.js';
import { OutputStage } from './output.js';
import { Pipeline, type Stage } from './pipeline.js';
import { bargeInRule, pauseRule } from './sensitivity.js';
import { ScriptedReplyStage } from './scripted-reply.js';
import { SentenceAggregator } from './sentences.js';
import { Floor, SPEECH_THRESHOLD, type TurnTakingSettings } from './settings.js';
import type { SpeechToSpeechStage } from './speech-to-speech.js';
import { SttStage } from './stt.js';
import { TtsStage } from './tts.js';
import { isProviderStage, TurnRecordingStage } from './turn-recording.js';
import { PolicyTurnTakingStage } from './turn-policy-stage.js';
import { Speculation } from './speculation.js';
import { VadStage, type VadModel } from './vad.js';
import { BackchannelDetector } from './turn/backchannel.js';
import type { SmartTurn } from './turn/smart-turn.js';

export interface VoiceCallOptions {
  media: LegMedia;
  clock: Clock;
  log: Logger;
  llm: LlmStageOptions;
  /** Required unless `speechToSpeech` speaks instead. */
  /** `rates`: where audio at another rate than the leg's is converted (the process's resampling thread). */
  tts?: { provider: TtsProvider; options: TtsStreamOptions; rates?: RateConversion | null };
  /** Who holds the floor (shared with a `speechToSpeech` stage); default: a new one. */
  floor?: Floor;
  /** `mode: multimodal`: a realtime model hears and speaks in place of VAD, STT, LLM and TTS. */
  speechToSpeech?: SpeechToSpeechStage;
  /** None: the caller's words come only from the leg (`customer-said`, the sandbox). */
  stt?: { provider: SttProvider; options: SttStreamOptions } | null;
  /** None: no voice activity detection (turns end on the leg's words or the STT's endpointing). */
  vad?: VadModel | null;
  /** The process's Smart Turn model (TURN_MODEL_PATH): the end-of-turn policy's audio signal; none: judged without it. */
  turnModel?: SmartTurn | null;
  turnTaking: TurnTakingSettings;
  /** Where the call's turns are recorded. */
  tracker?: TurnLog;
  /** Stages before the VAD (e.g. the noise gate of `noise_cancellation`). */
  inputStages?: Stage[];
  /** Stages between the TTS and the output stage, on the assistant's audio. */
  outputStages?: Stage[];
  /** `ambient_sound` / `ambient_sound_volume`: the bed the output stage plays for the whole call (ambient.ts). */
  ambient?: { sound: string; volume: string | number };
  /** Pass-through stages at the tail, after the output (silence clock, recorder). */
  tapStages?: Stage[];
  /** True while something else (a collect-keypad tool) takes the caller's keys: they make no turn. */
  keysTaken?: () => boolean;
}

/** What the session hands the engine's voice factory: the conversation it owns. */
export interface VoiceConversation {
  llm: LlmStageOptions;
  tracker: TurnLog;
  tapStages: Stage[];
  /** True while something else (a collect-keypad tool) takes the caller's keys. */
  keysTaken?: () => boolean;
}

/** Builds the voice pipeline of an audio leg (the engine knows the providers and the assistant's settings). */
export type VoiceCallFactory = (media: LegMedia, conversation: VoiceConversation) => VoiceCall;

export interface TranscriptLine {
  speaker: 'Customer' | 'AI';
  text: string;
}

/** What the transcript's note line calls each provider stage. */
const FAILED: Record<'stt' | 'llm' | 'tts', string> = {
  stt: 'the speech-to-text provider failed',
  llm: 'the language model failed',
  tts: 'the text-to-speech provider failed',
};
/**
 * Silence that ends the VAD's speech (its report comes this long after the end of speech): six of
 * Silero's 32 ms windows. 200 ms took seven (224 ms), after the 200 ms short wait of a finished sentence.
 */
export const VAD_STOP_MS = 192;
/** Notes per call at most: a provider failing on every turn must not flood the transcript. */
const MAX_NOTES = 5;

/**
 * The transcript's note line for a provider failure, in the bracketed form of the LLM's
 * (src/calls/session.ts) and the stand-in's: `[the text-to-speech provider failed: <error>]`.
 */
export function failureNote(stage: 'stt' | 'llm' | 'tts', message: string): string {
  return `[${FAILED[stage]}: ${message.replace(/\s+/g, ' ').trim().slice(0, 200)}]`;
}

export class VoiceCall {
  readonly pipeline: Pipeline;
  readonly floor: Floor;
  readonly output: OutputStage;
  private readonly stt: SttStage | null;
  private readonly scripted = new ScriptedReplyStage();
  /** Speculative replies (pipeline mode): their counts, for logs and the bench. */
  speculation: Speculation | null = null;
  /** The pipeline's text-to-speech stage (null in speech-to-speech mode). */
  private tts: TtsStage | null = null;
  private readonly speechToSpeech: SpeechToSpeechStage | null;
  private readonly lineListeners: ((line: TranscriptLine) => void)[] = [];
  private readonly frameListeners: ((frame: Frame) => void)[] = [];
  private readonly noteListeners: ((note: string) => void)[] = [];
  private readonly notes = new Set<string>();

  constructor(private readonly options: VoiceCallOptions) {
    const { media, clock, log } = options;
    this.floor = options.floor ?? new Floor();
    const stages: Stage[] = [...(options.inputStages ?? [])];
    this.speechToSpeech = options.speechToSpeech ?? null;
    const ambient = options.ambient ? ambientMixerFor(options.ambient.sound, options.ambient.volume, media.sampleRate) : null;
    this.output = new OutputStage({ media, clock, floor: this.floor, ambient });
    if (this.speechToSpeech) {
      this.stt = null;
      const keypad = new KeypadStage({ floor: this.floor, clock, keysTaken: options.keysTaken, opensTurn: false });
      stages.push(keypad, this.speechToSpeech, ...(options.outputStages ?? []), this.output);
    } else {
      this.stt = this.pipelineStages(stages);
    }
    if (options.tracker) stages.push(new TurnRecordingStage(options.tracker));
    stages.push(...(options.tapStages ?? []));
    this.pipeline = new Pipeline(stages, { clock, log });
    this.pipeline.onOutput((frame) => this.onFrame(frame));
    media.onAudio((samples) =>
      this.pipeline.push({ kind: 'audio-in', turn: this.pipeline.turns.current, samples, sampleRate: media.sampleRate, at: clock.now() }),
    );
  }

  /** The STT → LLM → TTS stages of `mode: pipeline`, onto `stages`; returns the STT stage. */
  private pipelineStages(stages: Stage[]): SttStage | null {
    const options = this.options;
    const { media, clock, turnTaking } = options;
    if (!options.tts) throw new Error('a pipeline voice call needs a text-to-speech provider');
    const floor = this.floor;
    // With speech-to-text an interruption pauses first and the words decide (interruption.ts), so the sound may pause sooner.
    const barge = options.stt ? pauseRule(turnTaking.interruptSensitivity) : bargeInRule(turnTaking.interruptSensitivity);
    if (options.vad) {
      stages.push(
        new VadStage({
          model: options.vad,
          inputRate: media.sampleRate,
          threshold: () => (floor.assistantSpeaking ? barge.vadThreshold : SPEECH_THRESHOLD),
          startMs: () => (floor.assistantSpeaking ? barge.minSpeechMs : 90),
          // The end-of-turn policy decides how long a silence ends the turn; the VAD reports the
          // end of speech after 192 ms (Pipecat's is 200), and a finished sentence is confirmed at 200 ms.
          stopMs: VAD_STOP_MS,
        }),
      );
    }
    const stt = options.stt ? new SttStage(options.stt.provider, options.stt.options) : null;
    if (stt) stages.push(stt);
    const tts = new TtsStage(options.tts.provider, options.tts.options, options.tts.rates ?? null);
    this.tts = tts;
    const words = new CallerWords();
    const language = options.stt?.options.language ?? 'en';
    const llm = new LlmStage(options.llm);
    // Replies start while the turn is likely over and are heard once it is confirmed; not while a scripted answer waits for the turn.
    const speculation = new Speculation({ messages: options.llm.messages, allowed: () => !this.scripted.waiting });
    speculation.useLlm(llm);
    this.speculation = speculation;
    const backchannels = new BackchannelDetector(language, turnTaking.backchannelWords);
    stages.push(
      new InterruptionStage({
        allowInterruptions: turnTaking.allowInterruptions,
        minInterruptWords: turnTaking.minInterruptWords,
        floor,
        twoStep: stt ? { output: this.output, detector: backchannels, finalize: () => stt.finalize() } : undefined,
      }),
      new PolicyTurnTakingStage({
        // Without a VAD, only the STT provider can tell the end of speech.
        endpointType: options.vad ? turnTaking.endpointType : 'ai',
        endpointSensitivity: turnTaking.endpointSensitivity,
        language,
        floor,
        clock,
        finalize: () => stt?.finalize(),
        words,
        isBackchannel: (text) => backchannels.isBackchannel(text),
        smartTurn: options.turnModel ?? null,
        speculation,
      }),
      new KeypadStage({ floor, clock, keysTaken: options.keysTaken, words }),
      this.scripted,
      llm,
      new SentenceAggregator(),
      speculation.textGate,
      tts,
      speculation.audioGate,
      ...(options.outputStages ?? []),
      this.output,
    );
    return stt;
  }

  /** Transcript lines as the caller heard them (the assistant's cut at a barge-in). */
  onLine(listener: (line: TranscriptLine) => void): void {
    this.lineListeners.push(listener);
  }

  /** Note lines for the transcript: why a provider failed (speech-to-text, LLM, text-to-speech); notes made before come at once. */
  onNote(listener: (note: string) => void): void {
    this.noteListeners.push(listener);
    for (const note of this.notes) listener(note);
  }

  /** Every frame that leaves the pipeline. */
  onFrame(listener: (frame: Frame) => void): void;
  onFrame(frame: Frame): void;
  onFrame(arg: ((frame: Frame) => void) | Frame): void {
    if (typeof arg === 'function') {
      this.frameListeners.push(arg);
      return;
    }
    const frame = arg;
    switch (frame.kind) {
      case 'end-of-turn':
        this.line('Customer', frame.text);
        break;
      case 'playback-done':
        this.line('AI', frame.text);
        break;
      case 'interruption':
        this.line('AI', frame.heardText);
        break;
      case 'error':
        if (isProviderStage(frame.stage)) this.note(failureNote(frame.stage, frame.message));
        break;
    }
    for (const listener of [...this.frameListeners]) listener(frame);
  }

  /** The assistant says a fixed line as a turn of its own; resolves when it was played (or cut off). */
  say(text: string, kind: TurnKind): Promise<void> {
    const turns = this.pipeline.turns;
    const turn = turns.begin();
    this.floor.assistantTakes(turn);
    const at = this.options.clock.now();
    const done = this.turnOver(turn);
    if (this.speechToSpeech) {
      this.speechToSpeech.say(turn, text, kind);
      return done;
    }
    this.pipeline.pushAt('sentences', { kind: 'turn-started', turn, turnKind: kind, callerText: null, at });
    this.pipeline.pushAt('sentences', { kind: 'speak', turn, text, source: 'scripted', at });
    this.pipeline.pushAt('sentences', { kind: 'speak-end', turn, at });
    return done;
  }

  /**
   * The caller's next turn is answered with `text` (a turn of `kind`) instead of the model:
   * `onStart` gets the caller's words when the turn begins; resolves when the line was played
   * (or cut off). The opening line of wait_for_customer, the voicemail message.
   */
  answerNextTurnWith(text: string, kind: TurnKind, onStart?: (callerText: string) => void): Promise<void> {
    const next = this.speechToSpeech ?? this.scripted;
    return new Promise((resolve) =>
      next.next({
        text,
        kind,
        onStart: (callerText, turn) => {
          onStart?.(callerText);
          void this.turnOver(turn).then(resolve);
        },
      }),
    );
  }

  /** The scripted answer waiting for the caller's next turn is not said after all. */
  cancelScriptedReply(): void {
    (this.speechToSpeech ?? this.scripted).clear();
  }

  /** A filler phrase in the assistant's current turn (while a tool runs or the LLM is slow): said, not in the LLM history. */
  sayFiller(text: string, reason: FillerReason): void {
    const turn = this.floor.assistantTurn;
    // Speech-to-speech says no fillers (speech-to-speech.ts).
    if (turn === null || this.pipeline.turns.isCancelled(turn) || this.speechToSpeech) return;
    const at = this.options.clock.now();
    this.pipeline.pushAt('tts', { kind: 'filler', turn, text, reason, at });
    this.pipeline.pushAt('tts', { kind: 'speak', turn, text, source: 'filler', at });
  }

  /** Something else plays on the line for a while (hold music): the ambient bed pauses until the returned function is called. */
  lendLine(): () => void {
    return this.output.lend();
  }

  /** Another assistant's voice from the next turn on (assistant_transfer); rate: the leg's. */
  useVoice(tts: { provider: TtsProvider; options: TtsStreamOptions }): void {
    this.tts?.useVoice(tts.provider, { ...tts.options, sampleRate: this.options.media.sampleRate });
  }

  /**
   * Another assistant took the call over: a speech-to-speech session gets its prompt and
   * functions (`session.update`) and keeps the voice it was opened with.
   */
  assistantChanged(): void {
    this.speechToSpeech?.refresh();
  }

  /**
   * `text` in the assistant's voice, whole, at `sampleRate` (a warm transfer's briefing on the
   * supervisor's leg); null in speech-to-speech mode, whose voice lives in its session.
   */
  speechOf(text: string, sampleRate: number): Promise<Int16Array> | null {
    if (!this.tts) return null;
    const { provider, options } = this.tts.voice;
    return synthesize(provider, { ...options, sampleRate }, text);
  }

  /**
   * Ends reply turn `turn`, whose model work stopped at a built-in's result, saying `text` in it
   * first when given: the pipeline speaks it as scripted speech, a speech-to-speech model is
   * asked for `Say exactly: <text>` (src/calls/builtin-effects.ts).
   */
  finishTurn(turn: TurnId, text: string | undefined): void {
    if (this.speechToSpeech) return this.speechToSpeech.finishTurn(turn, text);
    const at = this.options.clock.now();
    if (text) this.pipeline.pushAt('sentences', { kind: 'speak', turn, text, source: 'scripted', at });
    this.pipeline.pushAt('sentences', { kind: 'speak-end', turn, at });
  }

  /**
   * The model speaks first (no opening line): a reply turn without caller words. `instruction`
   * (a failed transfer) is in the pipeline's history already; a speech-to-speech model gets it
   * with the request.
   */
  respond(instruction?: string): void {
    const turn = this.pipeline.turns.begin();
    this.floor.assistantTakes(turn);
    if (this.speechToSpeech) return this.speechToSpeech.respond(turn, instruction);
    this.pipeline.pushAt('llm', { kind: 'turn-started', turn, turnKind: 'reply', callerText: null, at: this.options.clock.now() });
  }

  /** The leg knows the caller's words (sandbox): they are the transcript. */
  customerSaid(text: string): void {
    this.pipeline.push({ kind: 'customer-said', turn: this.pipeline.turns.current, text, at: this.options.clock.now() });
  }

  /** A key the caller pressed (the leg's DTMF): a `dtmf` frame at the head, like the caller's audio. */
  dtmf(digit: string): void {
    this.pipeline.push({ kind: 'dtmf', turn: this.pipeline.turns.current, digit, at: this.options.clock.now() });
  }

  /** The call is over: stops playback, cancels every turn, releases the providers. */
  async close(reason: string): Promise<void> {
    // `remote`: nothing waits for playback any more.
    this.pipeline.push({ kind: 'hang-up', turn: this.pipeline.turns.current, reason, remote: true, at: this.options.clock.now() });
    this.pipeline.turns.cancelAll('end');
    await this.pipeline.close();
  }

  /** Resolves when `turn` has played out or was cancelled. */
  turnOver(turn: TurnId): Promise<void> {
    return new Promise((resolve) => {
      const listener = (frame: Frame) => {
        if (frame.turn !== turn) return;
        if (frame.kind === 'playback-done' || frame.kind === 'interruption' || frame.kind === 'cancel') {
          this.frameListeners.splice(this.frameListeners.indexOf(listener), 1);
          resolve();
        }
      };
      this.frameListeners.push(listener);
    });
  }

  /**
   * A note line for the call's transcript (a provider failure; the factory's remark that
   * multimodal fell back to the pipeline). Each distinct note once (a provider refusing every
   * turn says so once), up to MAX_NOTES.
   */
  note(text: string): void {
    if (this.notes.has(text) || this.notes.size >= MAX_NOTES) return;
    this.notes.add(text);
    for (const l of this.noteListeners) l(text);
  }

  private line(speaker: TranscriptLine['speaker'], text: string): void {
    if (text.trim() === '') return;
    for (const l of this.lineListeners) l({ speaker, text: text.trim() });
  }
}
