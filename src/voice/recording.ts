/**
 * `record`: the call recorded in two channels from the audio the voice core already has —
 * left the caller (`audio-in`), right the assistant as the caller heard it (`audio-out`, and the
 * ambient bed between its speech, `ambient-out`) — and
 * written as a stereo WAV for src/recordings.
 *
 * Both channels share one time line at the leg's rate, starting when the recorder starts (the
 * answer). Caller audio arrives at real pace and is laid down back to back from where its first
 * frame landed; a gap in the stream longer than `CALLER_GAP_MS` (a line that sends audio only
 * while someone speaks, like the sandbox's) is kept as silence, while shorter arrival jitter
 * never moves the audio. The assistant's audio is handed to the leg a little ahead of real time, so each
 * frame is placed where it will play: at its hand-over time or right after the audio before it,
 * whichever is later. A barge-in clears what the leg still held, so the assistant channel is cut
 * at the moment of the clear: the recording holds what was heard, not what was synthesized.
 */
import { writeWav } from '../audio/wav.js';
import type { Clock } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage } from './pipeline.js';
import type { VoiceCallFactory } from './voice-call.js';
import type { Logger } from 'pino';
import { storedRecordingPath } from '../recordings/links.js';
import type { RecordingStore } from '../recordings/store.js';

/**
 * A pause in the caller's stream longer than this is real (kept as silence), not arrival jitter
 * or a stall of this process (measured: a cold start stalled the sandbox's 20 ms frames by about
 * 250 ms mid-utterance, which, kept as silence, broke the utterance in two).
 */
export const CALLER_GAP_MS = 1_000;

interface Segment {
  start: number;
  samples: Int16Array;
}

export class CallRecorder {
  private readonly origin: number;
  private readonly caller: Segment[] = [];
  /** Where the next caller sample goes (samples from the origin), -1 before the first. */
  private callerCursor = -1;
  private assistant: Segment[] = [];
  /** Where the next assistant sample plays (samples from the origin). */
  private assistantCursor = 0;
  private readonly maxSamples: number;
  private full = false;

  /**
   * @param maxSeconds recording stops growing past this (the call's maximum duration plus a margin),
   *   so a runaway call cannot exhaust memory
   */
  constructor(
    readonly sampleRate: number,
    private readonly clock: Clock,
    maxSeconds = 1_500,
  ) {
    this.origin = clock.now();
    this.maxSamples = Math.round(maxSeconds * sampleRate);
  }

  /** Caller audio, in order, as it arrived at `at`. */
  callerAudio(samples: Int16Array, at = this.clock.now()): void {
    const arrived = Math.max(0, this.position(at) - samples.length);
    const gap = Math.round((CALLER_GAP_MS * this.sampleRate) / 1000);
    const start = this.callerCursor < 0 || arrived - this.callerCursor > gap ? arrived : this.callerCursor;
    if (start + samples.length > this.maxSamples) return this.stopGrowing();
    this.caller.push({ start, samples: samples.slice() });
    this.callerCursor = start + samples.length;
  }

  /** Assistant audio handed to the leg at `at`. */
  assistantAudio(samples: Int16Array, at = this.clock.now()): void {
    const start = Math.max(this.assistantCursor, this.position(at));
    if (start + samples.length > this.maxSamples) return this.stopGrowing();
    this.assistant.push({ start, samples: samples.slice() });
    this.assistantCursor = start + samples.length;
  }

  /** The leg dropped what it had not played yet (barge-in) at `at`. */
  cleared(at = this.clock.now()): void {
    const cut = this.position(at);
    if (cut >= this.assistantCursor) return;
    const kept: Segment[] = [];
    for (const seg of this.assistant) {
      if (seg.start >= cut) continue;
      kept.push(seg.start + seg.samples.length > cut ? { start: seg.start, samples: seg.samples.subarray(0, cut - seg.start) } : seg);
    }
    this.assistant = kept;
    this.assistantCursor = cut;
  }

  /** Samples per channel so far. */
  get length(): number {
    return Math.max(this.callerCursor, 0, this.assistantCursor);
  }

  get empty(): boolean {
    return this.caller.length === 0 && this.assistant.length === 0;
  }

  /** The two channels (caller, assistant), each `length` samples. */
  channels(): [Int16Array, Int16Array] {
    const n = this.length;
    const left = new Int16Array(n);
    for (const seg of this.caller) left.set(seg.samples, seg.start);
    const right = new Int16Array(n);
    for (const seg of this.assistant) right.set(seg.samples, seg.start);
    return [left, right];
  }

  /** A stereo PCM16 WAV: left the caller, right the assistant. */
  toWav(): Buffer {
    return writeWav(this.sampleRate, ...this.channels());
  }

  /**
   * The WAV exactly `ms` long from the recorder's start: silence after the last audio up to
   * the call's end, and nothing past it (audio handed to the leg that never played is cut).
   */
  toWavOf(ms: number): Buffer {
    const n = Math.max(0, Math.round((ms * this.sampleRate) / 1000));
    const fit = (channel: Int16Array) => {
      const out = new Int16Array(n);
      out.set(channel.subarray(0, n));
      return out;
    };
    const [caller, assistant] = this.channels();
    return writeWav(this.sampleRate, fit(caller), fit(assistant));
  }

  private position(at: number): number {
    return Math.max(0, Math.round(((at - this.origin) * this.sampleRate) / 1000));
  }

  private stopGrowing(): void {
    this.full = true;
  }

  /** True once the recording reached its maximum length (later audio is not kept). */
  get truncated(): boolean {
    return this.full;
  }
}

/** The recorder as a pass-through stage: place it at the tail, where `audio-out` leaves for the leg. */
export class RecordingStage implements Stage {
  readonly name = 'recording';

  constructor(readonly recorder: CallRecorder) {}

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'audio-in':
        this.recorder.callerAudio(frame.samples, frame.at);
        break;
      case 'audio-out':
      case 'ambient-out':
        // The ambient bed is on the right channel too: it is what the caller heard.
        this.recorder.assistantAudio(frame.samples, frame.at);
        break;
      case 'cancel':
        // The output stage clears the leg's queue on cancel; what was not played is gone.
        if (frame.reason === 'barge-in') this.recorder.cleared(frame.at);
        break;
    }
    push(frame);
  }
}

/**
 * `record` on an audio leg: wraps the leg's voice factory so its pipeline carries a recorder
 * from the answer on (the factory is called at the answer), and gives the call's WAV at its end.
 */
export class AudioCallRecording {
  private current: CallRecorder | null = null;

  /** @param maxSeconds the recorder's limit (the call's maximum duration plus a margin) */
  constructor(
    private readonly clock: Clock,
    private readonly maxSeconds: number,
  ) {}

  wrap(factory: VoiceCallFactory): VoiceCallFactory {
    return (media, conversation) => {
      const recorder = new CallRecorder(media.sampleRate, this.clock, this.maxSeconds);
      this.current = recorder;
      return factory(media, { ...conversation, tapStages: [...conversation.tapStages, new RecordingStage(recorder)] });
    };
  }

  /** The call's stereo WAV, `talkMs` long (answer to end), or null when the leg never got a pipeline. */
  wav(talkMs: number): Buffer | null {
    return this.current ? this.current.toWavOf(talkMs) : null;
  }

  /**
   * Keeps the call's WAV in the recording store (where Twilio recordings go too); the path the
   * call record stores (served as a signed link), or null when there is none or saving failed (logged).
   */
  async keep(talkMs: number, store: RecordingStore, callId: number, log: Logger): Promise<string | null> {
    const wav = this.wav(talkMs);
    if (!wav) return null;
    try {
      await store.save(callId, wav);
      return storedRecordingPath(callId);
    } catch (err) {
      log.error({ err, callId }, 'keeping the recording of the call failed');
      return null;
    }
  }
}
