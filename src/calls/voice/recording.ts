/**
 * `record`: the call recorded in two channels from the audio the voice core already has —
 * left the caller (`audio-in`), right the assistant as the caller heard it (`audio-out`) — and
 * written as a stereo WAV for src/recordings.
 *
 * Both channels share one time line at the leg's rate, starting when the recorder starts (the
 * answer). Caller audio arrives at real pace and is laid down back to back from where its first
 * frame landed. The assistant's audio is handed to the leg a little ahead of real time, so each
 * frame is placed where it will play: at its hand-over time or right after the audio before it,
 * whichever is later. A barge-in clears what the leg still held, so the assistant channel is cut
 * at the moment of the clear: the recording holds what was heard, not what was synthesized.
 */
import { writeWav } from '../../audio/wav.js';
import type { Clock } from '../../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage } from './pipeline.js';

interface Segment {
  start: number;
  samples: Int16Array;
}

export class CallRecorder {
  private readonly origin: number;
  private readonly caller: Int16Array[] = [];
  private callerStart = -1;
  private callerLength = 0;
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
    if (this.callerStart < 0) this.callerStart = Math.max(0, this.position(at) - samples.length);
    if (this.callerStart + this.callerLength + samples.length > this.maxSamples) return this.stopGrowing();
    this.caller.push(samples.slice());
    this.callerLength += samples.length;
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
    return Math.max(this.callerStart < 0 ? 0 : this.callerStart + this.callerLength, this.assistantCursor);
  }

  get empty(): boolean {
    return this.callerLength === 0 && this.assistant.length === 0;
  }

  /** The two channels (caller, assistant), each `length` samples. */
  channels(): [Int16Array, Int16Array] {
    const n = this.length;
    const left = new Int16Array(n);
    let at = Math.max(0, this.callerStart);
    for (const chunk of this.caller) {
      left.set(chunk, at);
      at += chunk.length;
    }
    const right = new Int16Array(n);
    for (const seg of this.assistant) right.set(seg.samples, seg.start);
    return [left, right];
  }

  /** A stereo PCM16 WAV: left the caller, right the assistant. */
  toWav(): Buffer {
    return writeWav(this.sampleRate, ...this.channels());
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
