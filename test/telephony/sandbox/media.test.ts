/**
 * The sandbox's media line goes idle once everything handed to it has played, even when the
 * mark's timer fires a fraction of a millisecond before the clock reads the mark's time (Node's
 * timers count whole milliseconds while performance.now() does not: measured, about a quarter
 * of timers fire "early" by that measure). The simulated customer answers on idle; without it
 * the customer stayed silent (the sandbox-audio test's flake).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, type Clock, type TimerHandle } from '../../../src/telephony/clock.js';
import { SandboxMedia } from '../../../src/telephony/sandbox/media.js';

/** A clock whose timers fire half a millisecond before their time, as Node's sometimes do. */
class EarlyClock implements Clock {
  constructor(readonly inner: FakeClock) {}
  now(): number {
    return this.inner.now();
  }
  setTimer(ms: number, fn: () => void): TimerHandle {
    return this.inner.setTimer(Math.max(0, ms - 0.5), fn);
  }
  clearTimer(handle: TimerHandle | null | undefined): void {
    this.inner.clearTimer(handle);
  }
}

describe('SandboxMedia', () => {
  it('goes idle after the last mark although its timer fired a little early', async () => {
    const fake = new FakeClock();
    const media = new SandboxMedia(8000, new EarlyClock(fake));
    let idle = 0;
    const marks: [string, boolean][] = [];
    media.onIdle = () => idle++;
    media.onMark((name, cleared) => marks.push([name, cleared]));
    media.play(new Int16Array(8000)); // one second
    media.mark('m1');
    await fake.advance(1_000);
    expect(marks).toEqual([['m1', false]]);
    expect(idle).toBe(1);
    expect(media.heard().length).toBe(8000);
  });

  it('does not go idle while audio handed over after the mark is still playing', async () => {
    const fake = new FakeClock();
    const media = new SandboxMedia(8000, new EarlyClock(fake));
    let idle = 0;
    media.onIdle = () => idle++;
    media.play(new Int16Array(4000));
    media.mark('half');
    media.play(new Int16Array(4000));
    await fake.advance(600);
    expect(idle).toBe(0);
    media.mark('end');
    await fake.advance(600);
    expect(idle).toBe(1);
  });

  it("delivers the caller's frames on the line's clock: a late timer does not push later frames back", async () => {
    const fake = new FakeClock();
    /** Every timer fires 30 ms late (a busy event loop). */
    const late: Clock = {
      now: () => fake.now(),
      setTimer: (ms, fn) => fake.setTimer(ms + 30, fn),
      clearTimer: (h) => fake.clearTimer(h),
    };
    const media = new SandboxMedia(8000, late);
    const arrivals: number[] = [];
    media.onAudio((samples) => {
      expect(samples.length).toBe(160);
      arrivals.push(fake.now());
    });
    const done = media.speak(new Int16Array(160 * 10)); // 200 ms in 20 ms frames
    await fake.advance(1_000);
    await done;
    expect(arrivals).toHaveLength(10);
    // Frame i is never delivered before start + 20·i, and a late timer catches up: the last
    // frame comes 30 ms (one late timer) after its time, not 9 × 30 ms.
    arrivals.forEach((t, i) => expect(t).toBeGreaterThanOrEqual(20 * i));
    expect(arrivals[9]).toBeLessThanOrEqual(180 + 30);
  });
});

