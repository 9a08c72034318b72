/**
 * The output stage's side of the two-step interruption (interruption.ts, output.ts `pause` /
 * `resume`): which turn is paused and since when, and the items handed to the leg that it may
 * still hold — audio not yet played out (by the clock) and marks not yet back. A pause takes the
 * paused turn's ones back, for the output to queue again at the head, so `resume` plays the reply
 * on from the frame that was playing at the pause.
 */
import type { TurnId } from './frames.js';
import type { Item } from './playout.js';

export class OutputPause {
  /** The turn whose output is paused, and since when. */
  private paused: { turn: TurnId; at: number } | null = null;
  private handed: { item: Item; endsAt: number; back?: boolean }[] = [];

  /** `turn` is the paused one: nothing more of it goes out. */
  holds(turn: TurnId): boolean {
    return this.paused !== null && this.paused.turn === turn;
  }

  /** `item` went to the leg; audio plays until `endsAt`. */
  hand(item: Item, endsAt: number): void {
    this.handed.push({ item, endsAt });
  }

  /** The leg played the mark `name`. */
  markBack(name: string): void {
    for (const h of this.handed) if ('mark' in h.item && h.item.mark === name) h.back = true;
  }

  /** Drops handed items the leg is done with: audio played out by the clock, marks that came back played. */
  forgetPlayed(now: number): void {
    if (this.handed.length === 0) return;
    this.handed = this.handed.filter((h) => ('mark' in h.item ? !h.back : h.endsAt > now));
  }

  /** Pauses `turn` at `now` (replacing another turn's pause) and returns its handed items, in order. */
  pause(turn: TurnId, now: number): Item[] {
    this.forgetPlayed(now);
    this.paused = { turn, at: now };
    const back: Item[] = [];
    this.handed = this.handed.filter((h) => {
      if (h.item.turn !== turn) return true;
      back.push(h.item);
      return false;
    });
    return back;
  }

  /** Ends the pause of `turn`: how long it lasted, or null when `turn` is not the paused one. */
  resume(turn: TurnId, now: number): number | null {
    if (this.paused?.turn !== turn) return null;
    const pausedMs = now - this.paused.at;
    this.paused = null;
    return pausedMs;
  }

  /** `turn` was cancelled: no pause of it, nothing of it held. */
  drop(turn: TurnId): void {
    if (this.paused?.turn === turn) this.paused = null;
    this.handed = this.handed.filter((h) => h.item.turn !== turn);
  }
}
