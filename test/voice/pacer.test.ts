/** The shared pacing tick: one timer for every registered output, none when nobody waits. */
import { describe, expect, it } from 'vitest';
import { Pacer, pacerFor } from '../../src/voice/pacer.js';
import { FakeClock } from '../../src/telephony/clock.js';

describe('Pacer', () => {
  it('pumps every member each tick on one timer, and stops when the last one leaves', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock, 20);
    const ticks = { a: 0, b: 0 };
    const a = () => ticks.a++;
    const b = () => {
      ticks.b++;
      if (ticks.b === 3) pacer.remove(b);
    };
    pacer.add(a);
    pacer.add(b);
    pacer.add(a); // once only
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(100);
    expect(ticks).toEqual({ a: 5, b: 3 });
    pacer.remove(a);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(100);
    expect(ticks).toEqual({ a: 5, b: 3 });
  });

  it('keeps pumping the others when one member throws, then surfaces the error', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock, 20);
    let good = 0;
    pacer.add(() => {
      throw new Error('boom');
    });
    pacer.add(() => good++);
    await expect(clock.advance(20)).rejects.toThrow('boom');
    expect(good).toBe(1);
  });

  it('hands a tick out in slices: after each slice the event loop gets a turn, and no member is pumped twice or skipped', async () => {
    const clock = new FakeClock();
    let wall = 0; // each pump "takes" 1 ms of wall time
    const deferred: (() => void)[] = [];
    const pacer = new Pacer(clock, { periodMs: 20, sliceMs: 2, now: () => wall, defer: (fn) => deferred.push(fn) });
    const pumped: number[] = [];
    for (let m = 0; m < 5; m++)
      pacer.add(() => {
        wall += 1;
        pumped.push(m);
      });
    await clock.advance(20);
    expect(pumped).toEqual([0, 1]); // a 2 ms slice, then a yield
    expect(clock.pendingTimers).toBe(0); // the next tick waits for this one to finish
    // A member that leaves between slices is not pumped.
    pacer.remove([...(pacer as unknown as { members: Set<() => void> }).members][3]!);
    deferred.shift()!();
    expect(pumped).toEqual([0, 1, 2, 4]);
    expect(deferred).toHaveLength(0);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(20);
    expect(pumped).toEqual([0, 1, 2, 4, 0, 1]);
  });

  it('on the system clock, a long tick yields to the event loop before it ends', async () => {
    const { systemClock } = await import('../../src/telephony/clock.js');
    const pacer = pacerFor(systemClock);
    const order: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const members: (() => void)[] = Array.from({ length: 6 }, (_, m) => () => {
      const until = performance.now() + 1.5;
      while (performance.now() < until);
      order.push('pump');
      // Work the event loop is given while the tick runs (as a socket event would be).
      if (m === 0) setImmediate(() => order.push('other work'));
      pacer.remove(members[m]!);
      if (order.filter((x) => x === 'pump').length === 6) setImmediate(done);
    });
    for (const p of members) pacer.add(p);
    await finished;
    expect(order.filter((x) => x === 'pump')).toHaveLength(6);
    // The other work ran between the tick's slices, not after all six pumps.
    expect(order.indexOf('other work')).toBeGreaterThan(0);
    expect(order.indexOf('other work')).toBeLessThan(6);
  });

  it('is shared per clock', () => {
    const clock = new FakeClock();
    expect(pacerFor(clock)).toBe(pacerFor(clock));
    expect(pacerFor(clock)).not.toBe(pacerFor(new FakeClock()));
  });
});
