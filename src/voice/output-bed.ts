/**
 * The ambient bed in the output stage (output.ts), when the assistant has one (ambient.ts): the
 * line never falls silent from the answer to the hang-up. The bed is mixed into every speech frame
 * as it is handed over, and between speech it goes out alone (`fill`, kept only `leadMs` ahead so a
 * reply waits at most that long behind it); it is no piece, no playout and no floor, so what was
 * heard, barge-in and the turn timings see the speech only. `lend()` pauses it while something
 * else plays on the line (hold music). It shares the output's clock position (`bufferedUntil`),
 * which the output passes in and takes back.
 */
import type { AmbientMixer } from './ambient.js';

export class BedFeed {
  /** The bed is off for good: the call hung up. */
  private stopped = false;
  /** How many are borrowing the line (`lend`). */
  private lent = 0;

  /**
   * @param frameSamples one 20 ms frame at the leg's rate `rate`
   * @param wake called when a loan ends, so the bed goes out again
   */
  constructor(
    private readonly bed: AmbientMixer | null,
    private readonly leadMs: number,
    private readonly frameSamples: number,
    private readonly rate: number,
    private readonly wake: () => void,
  ) {}

  /** The assistant has a bed at all. */
  get present(): boolean {
    return this.bed !== null;
  }

  /** The bed goes out alone while no speech does: present, not stopped, not lent. */
  get on(): boolean {
    return this.bed !== null && !this.stopped && this.lent === 0;
  }

  /**
   * Something else plays on the line for a while (hold music, line-player.ts): the bed pauses
   * until the returned function is called (the assistant's speech is not held back).
   */
  lend(): () => void {
    this.lent++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.lent--;
      this.wake();
    };
  }

  /** A speech frame as it goes out: with the bed mixed in, unless it has stopped. */
  mix(audio: Int16Array): Int16Array {
    return this.bed && !this.stopped ? this.bed.mix(audio) : audio;
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * The bed alone, up to `leadMs` ahead of `now`, from where the audio handed so far ends
   * (`bufferedUntil`); each frame goes to `out` with where the audio ends after it. Returns where
   * the audio now ends.
   */
  fill(now: number, bufferedUntil: number, out: (samples: Int16Array, until: number) => void): number {
    const frameMs = (this.frameSamples / this.rate) * 1000;
    let until = Math.max(bufferedUntil, now);
    while (until - now < this.leadMs) {
      const samples = this.bed!.mix(new Int16Array(this.frameSamples));
      until += frameMs;
      out(samples, until);
    }
    return until;
  }
}
