/**
 * The sandbox's media channel: a simulated phone line that plays the assistant's audio at real
 * pace (times `timeScale`), returns marks when the audio before them has played (or `cleared`
 * when a `clear` dropped it), and keeps what the caller actually heard — the assistant's audio
 * as played, cut where a barge-in cleared it. The simulated caller's own audio goes in through
 * `speak`, delivered in 20 ms frames at real pace, as a carrier would.
 */
import type { Clock, TimerHandle } from '../clock.js';
import type { LegMedia } from '../types.js';

interface Queued {
  samples: Int16Array;
  /** Monotonic times this chunk starts and ends playing. */
  start: number;
  end: number;
  /** The ambient bed alone: the simulated caller hears it, but does not wait for it. */
  ambient: boolean;
}

export class SandboxMedia implements LegMedia {
  private audioListener: (samples: Int16Array) => void = () => undefined;
  private markListener: (name: string, cleared: boolean) => void = () => undefined;
  private playing: Queued[] = [];
  private marks: { name: string; at: number; timer: TimerHandle }[] = [];
  private playheadEnd = 0;
  private readonly heardChunks: Int16Array[] = [];
  private readonly speakTimers = new Set<TimerHandle>();
  private closed = false;
  /** Number of `clear` calls (barge-ins the line saw). */
  clears = 0;
  /** The simulated customer's ears: assistant speech arrived / all speech handed over has played (the ambient bed does not count). */
  onPlayed: () => void = () => undefined;
  onIdle: () => void = () => undefined;

  constructor(
    readonly sampleRate: number,
    private readonly clock: Clock,
    /** 1 = real time; 0.5 = twice as fast. */
    private readonly timeScale = 1,
  ) {}

  onAudio(listener: (samples: Int16Array) => void): void {
    this.audioListener = listener;
  }

  onMark(listener: (name: string, cleared: boolean) => void): void {
    this.markListener = listener;
  }

  play(samples: Int16Array, ambient = false): void {
    if (this.closed || samples.length === 0) return;
    this.settle();
    const start = Math.max(this.clock.now(), this.playheadEnd);
    const end = start + (samples.length / this.sampleRate) * 1000 * this.timeScale;
    this.playheadEnd = end;
    this.playing.push({ samples, start, end, ambient });
    if (!ambient) this.onPlayed();
  }

  mark(name: string): void {
    if (this.closed) return;
    const at = Math.max(this.clock.now(), this.playheadEnd);
    const timer = this.clock.setTimer(at - this.clock.now(), () => {
      this.marks = this.marks.filter((m) => m.timer !== timer);
      // A timer may fire a fraction of a millisecond before the clock reads `at` (timers count
      // whole milliseconds): the audio before the mark has played by definition, so settle up to
      // `at`. Without this the last chunk stayed "playing", the line never went idle and the
      // simulated customer never answered (the sandbox-audio test's silent-customer flake).
      this.settle(at);
      this.markListener(name, false);
      // Idle: no speech left to play (the ambient bed goes on for the whole call).
      if (this.playing.every((c) => c.ambient) && this.marks.length === 0) this.onIdle();
    });
    this.marks.push({ name, at, timer });
  }

  clear(): void {
    this.clears++;
    const now = this.clock.now();
    this.settle();
    // What was playing at this instant was heard up to now.
    const current = this.playing[0];
    if (current && current.start < now) {
      const played = Math.floor(((now - current.start) / (current.end - current.start)) * current.samples.length);
      this.heardChunks.push(current.samples.slice(0, played));
    }
    this.playing = [];
    this.playheadEnd = now;
    const pending = this.marks;
    this.marks = [];
    for (const m of pending) {
      this.clock.clearTimer(m.timer);
      this.markListener(m.name, true);
    }
  }

  /** The assistant's audio the caller has heard so far. */
  heard(): Int16Array {
    this.settle();
    const total = this.heardChunks.reduce((n, c) => n + c.length, 0);
    const out = new Int16Array(total);
    let offset = 0;
    for (const c of this.heardChunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }

  /** Milliseconds of assistant audio still to play. */
  get pendingMs(): number {
    return Math.max(0, this.playheadEnd - this.clock.now());
  }

  /**
   * The simulated caller speaks: `samples` at the line's rate, delivered in 20 ms frames at real
   * pace. Frame i is due at start + i·20 ms on the clock (not 20 ms after the previous one), as
   * a carrier's frames come on the carrier's clock: a late timer does not push later frames back.
   */
  speak(samples: Int16Array): Promise<void> {
    const frame = Math.round(this.sampleRate / 50);
    const frames = Math.ceil(samples.length / frame);
    const started = this.clock.now();
    return new Promise((resolve) => {
      let i = 0;
      const next = () => {
        if (this.closed || i >= frames) return resolve();
        // Every frame that is due by now (a late timer catches up at once, in order).
        while (i < frames && started + i * 20 * this.timeScale <= this.clock.now() + 0.5) {
          this.audioListener(samples.slice(i * frame, (i + 1) * frame));
          i++;
          if (this.closed) return resolve();
        }
        if (i >= frames) return resolve();
        const timer = this.clock.setTimer(started + i * 20 * this.timeScale - this.clock.now(), () => {
          this.speakTimers.delete(timer);
          next();
        });
        this.speakTimers.add(timer);
      };
      next();
    });
  }

  close(): void {
    this.closed = true;
    for (const m of this.marks) this.clock.clearTimer(m.timer);
    this.marks = [];
    for (const t of this.speakTimers) this.clock.clearTimer(t);
    this.speakTimers.clear();
  }

  /** Moves chunks that have finished playing (by `upTo`, default now) into what was heard. */
  private settle(upTo = this.clock.now()): void {
    const now = Math.max(this.clock.now(), upTo);
    while (this.playing.length > 0 && this.playing[0]!.end <= now) this.heardChunks.push(this.playing.shift()!.samples);
  }
}
