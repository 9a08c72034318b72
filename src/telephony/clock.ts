/**
 * Time as the call engine and the sandbox carrier see it. Production uses the system clock;
 * timer tests inject a FakeClock and advance virtual time instead of waiting.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Milliseconds on this clock's time line. */
  now(): number;
  setTimer(ms: number, fn: () => void): TimerHandle;
  clearTimer(handle: TimerHandle | undefined | null): void;
}

class SystemClock implements Clock {
  private next = 1;
  private readonly live = new Map<number, NodeJS.Timeout>();

  now(): number {
    return performance.now();
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const id = this.next++;
    const timer = setTimeout(() => {
      this.live.delete(id);
      fn();
    }, Math.max(0, ms));
    this.live.set(id, timer);
    return { id };
  }

  clearTimer(handle: TimerHandle | undefined | null): void {
    if (!handle) return;
    const timer = this.live.get(handle.id);
    if (timer) clearTimeout(timer);
    this.live.delete(handle.id);
  }
}

export const systemClock: Clock = new SystemClock();

/** A clock whose time moves only when a test calls `advance`. */
export class FakeClock implements Clock {
  private time = 0;
  private next = 1;
  private readonly timers = new Map<number, { at: number; seq: number; fn: () => void }>();

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), seq: id, fn });
    return { id };
  }

  clearTimer(handle: TimerHandle | undefined | null): void {
    if (handle) this.timers.delete(handle.id);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order; after each one, lets promise
   * chains and immediate callbacks settle so that work a timer starts can schedule more timers.
   */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      let due: [number, { at: number; seq: number; fn: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at > target) continue;
        if (!due || entry[1].at < due[1].at || (entry[1].at === due[1].at && entry[1].seq < due[1].seq)) due = entry;
      }
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
