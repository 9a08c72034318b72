/**
 * The output stage's `playedSoFar`: when the caller has heard what the assistant said until now,
 * while its turn goes on (a collect-keypad tool waits on it inside the turn that asked for the
 * keys). Frames go in as the TTS stage sends them; the line is the sandbox's media channel, which
 * plays at real pace and returns marks when the audio before them has played — on a fake clock.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/voice/frames.js';
import { OutputStage } from '../../src/voice/output.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor } from '../../src/voice/settings.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';

const RATE = 8000;
const log = pino({ level: 'silent' });

function line() {
  const clock = new FakeClock();
  const media = new SandboxMedia(RATE, clock);
  const output = new OutputStage({ media, clock, floor: new Floor() });
  const pipeline = new Pipeline([output], { clock, log });
  const turn = pipeline.turns.begin();
  const send = (frame: Frame) => pipeline.push(frame);
  const speak = (text: string) => send({ kind: 'speak', turn, text, source: 'llm', at: clock.now() });
  /** The TTS delivers `ms` of audio for the current piece, then reports it spoken. */
  const synthesised = (text: string, ms: number) => {
    send({ kind: 'tts-audio', turn, samples: new Int16Array((ms / 1000) * RATE).fill(1000), sampleRate: RATE, at: clock.now() });
    send({ kind: 'tts-spoken', turn, text, at: clock.now() });
  };
  /** When `playedSoFar()` asked now resolves (ms on the clock), or null while it has not. */
  const ask = () => {
    const at: { ms: number | null } = { ms: null };
    void output.playedSoFar().then(() => (at.ms = clock.now()));
    return at;
  };
  return { clock, pipeline, output, turn, speak, synthesised, ask, send };
}

describe('OutputStage.playedSoFar', () => {
  it('resolves once the pieces said so far have been synthesised and played, not at the end of the turn', async () => {
    const { clock, speak, synthesised, ask } = line();
    speak('Please type your customer number.');
    // The tool asks before any audio exists: the request is still being synthesised.
    const heard = ask();
    await clock.advance(300);
    expect(heard.ms).toBeNull();
    synthesised('Please type your customer number.', 2_000); // arrives at 300 ms, plays 2 s
    // Said after the question: does not hold it back.
    speak('Take your time.');
    await clock.advance(1_900);
    expect(heard.ms).toBeNull();
    await clock.advance(200);
    // Played at 2.3 s (the mark's timer); no tts-done, no playback-done: the turn goes on.
    expect(heard.ms).toBe(2_300);
  });

  it('resolves at once when nothing is waiting to be played', async () => {
    const { clock, ask } = line();
    const heard = ask();
    await clock.advance(0);
    expect(heard.ms).toBe(0);
  });

  it('resolves when the turn is cancelled before its words were played (barge-in, hang-up)', async () => {
    const { clock, pipeline, turn, speak, synthesised, ask } = line();
    speak('Please type your PIN.');
    synthesised('Please type your PIN.', 3_000);
    const heard = ask();
    await clock.advance(1_000);
    expect(heard.ms).toBeNull();
    pipeline.turns.cancel(turn, 'barge-in');
    await clock.advance(0);
    expect(heard.ms).toBe(1_000);
  });

  it('resolves when the stage closes (the call is over)', async () => {
    const { clock, output, speak, ask } = line();
    speak('Please type your PIN.');
    const heard = ask();
    await clock.advance(500);
    output.close();
    await clock.advance(0);
    expect(heard.ms).toBe(500);
  });
});

describe('OutputStage pacing', () => {
  it('hands a steady reply two frames at a time (one run, one carrier message), and the line always holds ≥ 60 ms', async () => {
    const { clock, speak, synthesised, output } = line();
    const media = (output as unknown as { options: { media: SandboxMedia } }).options.media;
    const handed: { at: number; ms: number }[] = [];
    const play = media.play.bind(media);
    media.play = (samples, ambient) => {
      handed.push({ at: clock.now(), ms: (samples.length / RATE) * 1000 });
      play(samples, ambient);
    };
    speak('A reply of one second.');
    synthesised('A reply of one second.', 1_000);
    await clock.advance(1_200);
    const runs = new Map<number, number>();
    for (const h of handed) runs.set(h.at, (runs.get(h.at) ?? 0) + h.ms);
    const [first, ...rest] = [...runs];
    expect(first).toEqual([0, 100]); // the lead at once: the reply's start is not held back
    expect(rest.slice(0, -1).every(([, ms]) => ms === 40)).toBe(true);
    expect(rest.reduce((sum, [, ms]) => sum + ms, first![1])).toBe(1_000);
    // Before the reply's end, the audio handed always reaches at least 60 ms past now.
    let until = 0;
    for (const [at, ms] of runs) {
      if (at > 0 && until < 1_000) expect(until - at, `at ${at} ms`).toBeGreaterThanOrEqual(60);
      until = Math.max(until, at) + ms;
    }
  });
});
