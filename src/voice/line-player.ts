/**
 * Audio on a line outside the voice pipeline: hold music under a waiting caller, a briefing
 * spoken to a supervisor's leg (a warm transfer). Frames go out at real pace on the shared
 * pacing tick (pacer.ts), `leadMs` ahead of real time — like the output stage, so a carrier's
 * buffer never runs dry, and so stopping leaves at most `leadMs` of audio to play out (no
 * `clear`, which would also drop the pipeline's pending marks).
 *
 * The pipeline's output stage stays the line's owner: a player is used only while the pipeline
 * is quiet on that line (the caller on hold while a tool runs; a leg the pipeline never heard).
 */
import type { Clock } from '../telephony/clock.js';
import type { LegMedia } from '../telephony/types.js';
import { pacerFor } from './pacer.js';

const FRAME_MS = 20;

export class LinePlayer {
  private readonly frame: number;

  constructor(
    private readonly media: LegMedia,
    private readonly clock: Clock,
    private readonly leadMs = 60,
  ) {
    this.frame = Math.round(media.sampleRate / (1000 / FRAME_MS));
  }

  /** Plays `samples` once; resolves when the last of it has played (by the clock). */
  play(samples: Int16Array): Promise<void> {
    let offset = 0;
    return new Promise((resolve) => {
      this.run(() => {
        if (offset >= samples.length) return null;
        const piece = samples.subarray(offset, offset + this.frame);
        offset += this.frame;
        return piece;
      }, (endsAt) => {
        this.clock.setTimer(Math.max(0, endsAt - this.clock.now()), resolve);
      });
    });
  }

  /** Plays what `next(n)` hands out (n samples a frame) until the returned function is called. */
  loop(next: (samples: number) => Int16Array): () => void {
    return this.run(() => next(this.frame), () => undefined);
  }

  /**
   * Hands out frames from `source` on every tick until it returns null (then `exhausted` gets
   * the clock time the audio handed out ends) or the returned stop is called.
   */
  private run(source: () => Int16Array | null, exhausted: (endsAt: number) => void): () => void {
    const pacer = pacerFor(this.clock);
    let handedUntil = this.clock.now();
    let stopped = false;
    const pump = () => {
      if (stopped) return;
      const now = this.clock.now();
      handedUntil = Math.max(handedUntil, now);
      while (handedUntil < now + this.leadMs) {
        const piece = source();
        if (!piece || piece.length === 0) {
          stopped = true;
          pacer.remove(pump);
          exhausted(handedUntil);
          return;
        }
        this.media.play(piece);
        handedUntil += (piece.length / this.media.sampleRate) * 1000;
      }
    };
    pacer.add(pump);
    pump();
    return () => {
      stopped = true;
      pacer.remove(pump);
    };
  }
}
