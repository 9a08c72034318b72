/**
 * The line player on a sandbox line with a fake clock: audio goes out at real pace, at most
 * `leadMs` ahead; `play` resolves when the last of it has played; a stopped loop leaves no more
 * than the lead to play out.
 */
import { describe, expect, it } from 'vitest';
import { LinePlayer } from '../../src/voice/line-player.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';

const RATE = 8000;

describe('LinePlayer', () => {
  it('plays a clip at real pace and resolves when it has played', async () => {
    const clock = new FakeClock();
    const media = new SandboxMedia(RATE, clock);
    const clip = Int16Array.from({ length: RATE }, (_, i) => (i % 100) - 50); // one second
    let done = false;
    void new LinePlayer(media, clock).play(clip).then(() => (done = true));
    await clock.advance(500);
    // Half a second in: what was handed over reaches at most the lead (60 ms) ahead.
    expect(media.pendingMs).toBeLessThanOrEqual(60 + 20);
    expect(media.heard().length / RATE).toBeGreaterThan(0.4);
    expect(done).toBe(false);
    await clock.advance(600);
    expect(done).toBe(true);
    expect(media.heard()).toEqual(clip);
  });

  it('loops until stopped, then leaves no more than the lead to play out', async () => {
    const clock = new FakeClock();
    const media = new SandboxMedia(RATE, clock);
    let n = 0;
    const stop = new LinePlayer(media, clock).loop((samples) => Int16Array.from({ length: samples }, () => (n++ % 7) * 10));
    await clock.advance(2000);
    stop();
    const handed = media.heard().length + (media.pendingMs / 1000) * RATE;
    expect(handed / RATE).toBeGreaterThanOrEqual(2);
    expect(handed / RATE).toBeLessThanOrEqual(2 + 0.08 + 0.02);
    await clock.advance(1000);
    expect(media.heard().length).toBe(n);
  });
});
