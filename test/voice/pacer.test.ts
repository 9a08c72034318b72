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

  it('is shared per clock', () => {
    const clock = new FakeClock();
    expect(pacerFor(clock)).toBe(pacerFor(clock));
    expect(pacerFor(clock)).not.toBe(pacerFor(new FakeClock()));
  });
});
