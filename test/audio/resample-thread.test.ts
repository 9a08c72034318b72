/**
 * The resampling thread: streams converted in the worker are sample for sample what the loop's
 * Resampler makes, in order, each stream with its own filter state; before the worker is ready
 * and after it fails, streams convert in this thread and no chunk is lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { concat } from '../../src/audio/pcm.js';
import { Resampler } from '../../src/audio/resample.js';
import { ResampleThread } from '../../src/audio/resample-thread.js';
import { speechLike } from '../support/doubles/clips.js';

const speech = (text: string) => speechLike(text, 24_000).samples;
/** `samples` cut into chunks of the given sizes (cycled), as an HTTP body arrives. */
function chunks(samples: Int16Array, sizes: number[]): Int16Array[] {
  const out: Int16Array[] = [];
  for (let at = 0, k = 0; at < samples.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(samples.subarray(at, at + n));
    at += n;
  }
  return out;
}
const onLoop = (samples: Int16Array[], from = 24_000, to = 8000) => {
  const r = new Resampler(from, to);
  return concat(samples.map((s) => r.process(s)));
};

const threads: ResampleThread[] = [];
afterAll(async () => {
  for (const t of threads) await t.close();
});
const startThread = async () => {
  const thread = ResampleThread.start();
  threads.push(thread);
  return thread;
};

describe('ResampleThread', () => {
  it('converts in the worker exactly as the loop would, two interleaved streams keeping their own state', async () => {
    const thread = await startThread();
    expect(await thread.started).toBe(true);
    const a = chunks(speech('Your table is booked for eight.'), [4801, 960, 12_000]);
    const b = chunks(speech('Is there anything else?'), [333, 7000]);
    const sa = thread.open(24_000, 8000);
    const sb = thread.open(24_000, 8000);
    const pending: Promise<Int16Array>[][] = [[], []];
    for (let k = 0; k < Math.max(a.length, b.length); k++) {
      if (a[k]) pending[0]!.push(sa.process(a[k]!));
      if (b[k]) pending[1]!.push(sb.process(b[k]!));
    }
    const outA = concat(await Promise.all(pending[0]!));
    const outB = concat(await Promise.all(pending[1]!));
    expect(outA.length).toBeGreaterThan(0);
    expect(Array.from(outA)).toEqual(Array.from(onLoop(a)));
    expect(Array.from(outB)).toEqual(Array.from(onLoop(b)));
    // The caller's arrays were sent as copies: still intact.
    expect(a[0]!.length).toBe(4801);
    sa.close();
    sb.close();
  });

  it('converts in this thread until the worker is ready, and after it fails, losing no chunk', async () => {
    const thread = ResampleThread.start();
    threads.push(thread);
    const early = thread.open(24_000, 8000); // the worker is still starting
    const pieces = chunks(speech('One moment please.'), [2400]);
    expect(Array.from(concat(await Promise.all(pieces.map((p) => early.process(p)))))).toEqual(Array.from(onLoop(pieces)));

    await thread.started;
    const stream = thread.open(24_000, 8000);
    const sent = pieces.map((p) => stream.process(p)); // in flight when the worker goes
    await thread.close();
    const after = await stream.process(pieces[0]!);
    const answered = await Promise.all(sent);
    expect(answered.reduce((n, s) => n + s.length, 0)).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    const later = thread.open(16_000, 8000);
    expect(Array.from(await later.process(pieces[0]!))).toEqual(Array.from(new Resampler(16_000, 8000).process(pieces[0]!)));
  });
});

describe('ResampleThread without its worker', () => {
  const pieces = chunks(speech('Still spoken.'), [2400]);
  const converted = async (thread: ResampleThread) => {
    const stream = thread.open(24_000, 8000);
    return Array.from(concat(await Promise.all(pieces.map((p) => stream.process(p)))));
  };

  it('converts in this thread when the worker cannot be started, or dies at its start', async () => {
    const missing = ResampleThread.start(() => {
      throw new Error('no worker script');
    });
    expect(await missing.started).toBe(false);
    expect(await converted(missing)).toEqual(Array.from(onLoop(pieces)));

    const dying = ResampleThread.start(() => ({ script: "throw new Error('broken worker')", eval: true }));
    threads.push(dying);
    expect(await dying.started).toBe(false);
    expect(await converted(dying)).toEqual(Array.from(onLoop(pieces)));
  });
});
