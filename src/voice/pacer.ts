/**
 * One pacing tick per clock for the outbound audio of every call: the output stages of all
 * calls register while they have frames waiting, and one 20 ms timer hands each its due frames.
 *
 * Why one tick: with a timer per call, 200 talking calls arm and clear 10,000 timers a second (a
 * closure, a map entry and a libuv timer each); one tick does the same work with one timer.
 * The output stage hands audio `leadMs` (100 ms) ahead of real time, so handing it up to one
 * tick later than the exact moment never lets the line run dry.
 *
 * Why in slices: a tick that pumps every call in one go is one synchronous block as long as all
 * calls' output work together (resampling, encoding, a socket write each): at 200 talking calls
 * 20–60 ms every 20 ms, during which no caller audio, VAD result or socket event is handled — it
 * was the event loop's p99 delay. A tick therefore pumps members until its slice (2 ms) is used,
 * then yields to the event loop (setImmediate: after pending I/O) and goes on with the rest. A
 * member is pumped a few ms later than the tick at worst, far inside the 100 ms lead.
 */
import { systemClock, type Clock, type TimerHandle } from '../telephony/clock.js';

export const PACING_TICK_MS = 20;
/** How long one tick may run its members before it yields to the event loop. */
export const PACING_SLICE_MS = 2;

export interface PacerOptions {
  periodMs?: number;
  /** Work per slice before yielding; Infinity: the whole tick at once (fake clocks: deterministic tests). */
  sliceMs?: number;
  /** Wall time for the slice budget (the work's real duration, whatever the clock). */
  now?: () => number;
  /** Runs `fn` once pending I/O has had its turn. */
  defer?: (fn: () => void) => void;
}

export class Pacer {
  private readonly members = new Set<() => void>();
  private timer: TimerHandle | null = null;
  /** Members of the running tick not pumped yet; null between ticks. */
  private pending: (() => void)[] | null = null;
  private readonly periodMs: number;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly clock: Clock, options: PacerOptions | number = {}) {
    const o = typeof options === 'number' ? { periodMs: options } : options;
    this.periodMs = o.periodMs ?? PACING_TICK_MS;
    this.sliceMs = o.sliceMs ?? Infinity;
    this.now = o.now ?? (() => performance.now());
    this.defer = o.defer ?? ((fn) => setImmediate(fn));
  }

  /** `pump` runs on every tick until it is removed. */
  add(pump: () => void): void {
    this.members.add(pump);
    if (this.timer === null && this.pending === null) this.arm();
  }

  remove(pump: () => void): void {
    this.members.delete(pump);
    if (this.members.size === 0 && this.timer !== null) {
      this.clock.clearTimer(this.timer);
      this.timer = null;
    }
  }

  get size(): number {
    return this.members.size;
  }

  private arm(): void {
    this.timer = this.clock.setTimer(this.periodMs, () => {
      this.timer = null;
      this.pending = [...this.members];
      this.slice(0);
    });
  }

  /** Pumps the tick's members from `index` on until the slice is used, then yields or re-arms. */
  private slice(index: number): void {
    const members = this.pending!;
    const until = this.sliceMs === Infinity ? Infinity : this.now() + this.sliceMs;
    let failure: unknown = null;
    let i = index;
    while (i < members.length) {
      const pump = members[i++]!;
      // A member that left since the tick began (its call ended, its reply was cleared) is not pumped.
      if (!this.members.has(pump)) continue;
      try {
        pump();
      } catch (err) {
        // One call's failure must not stop the others' audio; it still surfaces as before.
        failure ??= err;
      }
      if (i < members.length && this.now() >= until) break;
    }
    if (i < members.length) {
      this.defer(() => this.slice(i));
    } else {
      this.pending = null;
      if (this.members.size > 0 && this.timer === null) this.arm();
    }
    if (failure !== null) throw failure;
  }
}

const pacers = new WeakMap<Clock, Pacer>();

/**
 * The shared pacer of `clock`: on the system clock it works in slices; tests with a FakeClock
 * get their own, which pumps a whole tick at once (deterministic).
 */
export function pacerFor(clock: Clock): Pacer {
  let pacer = pacers.get(clock);
  if (!pacer) {
    pacer = new Pacer(clock, clock === systemClock ? { sliceMs: PACING_SLICE_MS } : {});
    pacers.set(clock, pacer);
  }
  return pacer;
}
