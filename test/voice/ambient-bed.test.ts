/**
 * The ambient bed in the output stage (src/voice/output.ts, `ambient`): from the answer to the
 * hang-up the line never falls silent — the bed goes out alone between the assistant's speech
 * and is mixed into the speech as it is handed over, its loop running on without a jump — and
 * it is not the assistant's speech: no `audio-out`, no floor, what-was-heard and playback marks
 * as without it. On the sandbox's media line (real pace) with a fake clock.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ambientLoop, ambientMixerFor } from '../../src/voice/ambient.js';
import type { Frame } from '../../src/voice/frames.js';
import { OutputStage } from '../../src/voice/output.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { Floor } from '../../src/voice/settings.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { speechLike } from '../support/doubles/clips.js';

const RATE = 8000;
const FRAME = RATE / 50;
const log = pino({ level: 'silent' });
const LOOP = ambientLoop('office', RATE);

function line() {
  const clock = new FakeClock();
  const media = new SandboxMedia(RATE, clock);
  // What the line got and when: the longest time it had nothing to play.
  const handed = { until: 0, longestGapMs: 0, frames: 0 };
  const play = media.play.bind(media);
  media.play = (samples, ambient) => {
    const now = clock.now();
    if (handed.frames > 0) handed.longestGapMs = Math.max(handed.longestGapMs, now - handed.until);
    handed.until = Math.max(now, handed.until) + (samples.length / RATE) * 1000;
    handed.frames++;
    play(samples, ambient);
  };
  const floor = new Floor();
  const output = new OutputStage({ media, clock, floor, ambient: ambientMixerFor('office', '1', RATE) });
  const pipeline = new Pipeline([output], { clock, log });
  const frames: Frame[] = [];
  pipeline.onOutput((f) => frames.push(f));
  const speak = (turn: number, text: string, samples: Int16Array) => {
    pipeline.push({ kind: 'speak', turn, text, source: 'llm', at: clock.now() });
    pipeline.push({ kind: 'tts-audio', turn, samples, sampleRate: RATE, at: clock.now() });
    pipeline.push({ kind: 'tts-spoken', turn, text, at: clock.now() });
    pipeline.push({ kind: 'tts-done', turn, at: clock.now() });
  };
  return { clock, media, handed, floor, output, pipeline, frames, speak };
}

/** What the caller heard with the bed taken out at its running phase (the bed starts with the first frame). */
function withoutBed(heard: Int16Array): Int16Array {
  return Int16Array.from(heard, (v, i) => v - LOOP[i % LOOP.length]!);
}

describe('the ambient bed', () => {
  it('plays from the answer on, before and after the assistant speaks, with the speech mixed on top', async () => {
    const { clock, media, handed, floor, pipeline, frames, speak } = line();
    await clock.advance(1_000);
    // Only the bed so far: the caller hears the room, the assistant does not hold the floor.
    expect(frames.some((f) => f.kind === 'audio-out')).toBe(false);
    expect(frames.filter((f) => f.kind === 'ambient-out').length).toBeGreaterThanOrEqual(49);
    expect(floor.assistantSpeaking).toBe(false);

    const speech = speechLike('Hello, this is Anna from the clinic.', RATE).samples;
    const turn = pipeline.turns.begin();
    const startedAt = clock.now();
    speak(turn, 'Hello, this is Anna from the clinic.', speech);
    await clock.advance(10);
    expect(floor.assistantSpeaking).toBe(true);
    const speechMs = (speech.length / RATE) * 1000;
    await clock.advance(speechMs + 500);
    const done = frames.find((f) => f.kind === 'playback-done');
    expect(done).toMatchObject({ turn, text: 'Hello, this is Anna from the clinic.' });
    // The reply waited at most the bed's three frames behind it (and the tick it came in).
    expect(done!.at - startedAt - speechMs).toBeLessThanOrEqual(60 + 20);
    expect(floor.assistantSpeaking).toBe(false);
    await clock.advance(1_000);

    // Never a gap on the line; the bed ran on in one piece, the speech lies on it unchanged.
    expect(handed.longestGapMs).toBe(0);
    const heard = media.heard();
    expect(heard.length / RATE).toBeGreaterThan(2.4 + speechMs / 1000);
    const clean = withoutBed(heard);
    const at = clean.findIndex((v) => v !== 0) - speech.findIndex((v) => v !== 0);
    expect(at).toBeGreaterThanOrEqual(RATE);
    expect(clean.subarray(0, at).every((v) => v === 0)).toBe(true);
    expect(Array.from(clean.subarray(at, at + speech.length))).toEqual(Array.from(speech));
    expect(clean.subarray(at + speech.length).every((v) => v === 0)).toBe(true);
    // Speech frames are the speech's (audio-out, the bed mixed in); bed frames are ambient-out.
    const out = frames.filter((f) => f.kind === 'audio-out');
    expect(out.every((f) => f.turn === turn)).toBe(true);
    expect(out.reduce((n, f) => n + (f as { samples: Int16Array }).samples.length, 0)).toBe(speech.length);
  });

  it('a barge-in clears the speech and the bed goes on within a frame; the hang-up ends it', async () => {
    const { clock, media, handed, pipeline, frames, speak } = line();
    await clock.advance(200);
    const turn = pipeline.turns.begin();
    speak(turn, 'A long answer the caller cuts short.', new Int16Array(3 * RATE).fill(3000));
    await clock.advance(1_000);
    pipeline.turns.cancel(turn, 'barge-in');
    const cutAt = clock.now();
    await clock.advance(0);
    expect(media.clears).toBe(1);
    expect(frames.find((f) => f.kind === 'interruption')).toMatchObject({ turn });
    // Straight after the clear, the bed alone again.
    const after = frames.filter((f) => f.kind === 'ambient-out' && f.at >= cutAt);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after[0]!.at).toBe(cutAt);
    await clock.advance(500);
    expect(handed.longestGapMs).toBe(0);
    pipeline.push({ kind: 'hang-up', turn: pipeline.turns.current, reason: 'caller hung up', remote: true, at: clock.now() });
    const count = handed.frames;
    await clock.advance(500);
    expect(handed.frames).toBe(count);
  });

  it('goes on while a reply is paused under the caller\'s words, and the resumed reply lies on it whole', async () => {
    const { clock, media, handed, output, pipeline, frames, speak } = line();
    await clock.advance(200);
    const turn = pipeline.turns.begin();
    const reply = speechLike('Your appointment is on Tuesday at ten.', RATE).samples;
    speak(turn, 'Your appointment is on Tuesday at ten.', reply);
    await clock.advance(600);
    output.pause(turn);
    await clock.advance(400);
    // Paused: the room only.
    const pausedAt = frames.find((f) => f.kind === 'playback-paused')!.at;
    expect(frames.filter((f) => f.kind === 'audio-out' && f.at > pausedAt)).toEqual([]);
    expect(frames.filter((f) => f.kind === 'ambient-out' && f.at > pausedAt).length).toBeGreaterThanOrEqual(19);
    output.resume(turn);
    await clock.advance((reply.length / RATE) * 1000 + 500);
    expect(frames.find((f) => f.kind === 'playback-done')).toMatchObject({ turn, text: 'Your appointment is on Tuesday at ten.' });
    expect(handed.longestGapMs).toBe(0);
    expect(media.clears).toBe(1);
  });

  it('steps aside while something else holds the line (hold music) and comes back after', async () => {
    const { clock, handed, output } = line();
    await clock.advance(200);
    const giveBack = output.lend();
    await clock.advance(20);
    const count = handed.frames;
    await clock.advance(1_000);
    expect(handed.frames).toBe(count);
    giveBack();
    await clock.advance(100);
    expect(handed.frames).toBeGreaterThan(count);
  });
});
