/**
 * `record`: the two-channel recording from the pipeline's audio, on a virtual clock. Caller audio
 * arrives at real pace; the assistant's audio is handed over ahead of time and lands where it
 * plays; a barge-in cuts the assistant channel where the leg was cleared.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import { CallRecorder, RecordingStage } from '../../src/voice/recording.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { FakeClock } from '../../src/telephony/clock.js';

const RATE = 8000;
const FRAME = 160; // 20 ms

/** A voiced sound: a 140 Hz fundamental with harmonics under a syllable-like envelope. */
function voiced(seconds: number, f0 = 140, amplitude = 8000): Int16Array {
  const n = Math.round(seconds * RATE);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    let v = 0;
    for (let h = 1; h <= 6; h++) v += Math.sin(2 * Math.PI * f0 * h * t) / h;
    out[i] = Math.round(amplitude * envelope * v * 0.5);
  }
  return out;
}

const frames = (samples: Int16Array) => Array.from({ length: Math.ceil(samples.length / FRAME) }, (_, i) => samples.subarray(i * FRAME, (i + 1) * FRAME));

describe('CallRecorder through the pipeline', () => {
  it('records the caller left and what the caller heard of the assistant right, cut at the barge-in', async () => {
    const clock = new FakeClock();
    const recorder = new CallRecorder(RATE, clock);
    const pipeline = new Pipeline([new RecordingStage(recorder)], { clock, log: pino({ level: 'silent' }) });
    const caller = voiced(1.2, 120);
    const reply = voiced(1.0, 210);
    const callerFrames = frames(caller);
    for (let i = 0; i < callerFrames.length; i++) {
      await clock.advance(20);
      // The assistant's reply is handed to the leg in one go at 200 ms (ahead of real time).
      if (clock.now() === 200) pipeline.push({ kind: 'audio-out', turn: 0, samples: reply, at: clock.now() });
      // At 600 ms the caller barges in: the leg drops what it still held.
      if (clock.now() === 600) pipeline.push({ kind: 'cancel', turn: 0, reason: 'barge-in', at: clock.now() });
      // A new reply at 800 ms, handed over frame by frame.
      if (clock.now() === 800) pipeline.push({ kind: 'audio-out', turn: 1, samples: reply.subarray(0, 1600), at: clock.now() });
      pipeline.push({ kind: 'audio-in', turn: 0, samples: callerFrames[i]!, sampleRate: RATE, at: clock.now() });
    }
    const wav = readWav(recorder.toWav());
    expect(wav.sampleRate).toBe(RATE);
    expect(wav.channels).toHaveLength(2);
    const [left, right] = wav.channels as [Int16Array, Int16Array];
    // The caller's first frame arrived at 20 ms, so it began at 0 ms: the caller channel is the caller's audio.
    expect(left.length).toBe(caller.length);
    expect(Array.from(left)).toEqual(Array.from(caller));
    // Assistant: silent until 200 ms, the reply's first 400 ms until the barge-in at 600 ms, silence, then the new reply at 800 ms.
    const ms = (t: number) => (t * RATE) / 1000;
    expect(right.subarray(0, ms(200)).every((s) => s === 0)).toBe(true);
    expect(Array.from(right.subarray(ms(200), ms(600)))).toEqual(Array.from(reply.subarray(0, ms(400))));
    expect(right.subarray(ms(600), ms(800)).every((s) => s === 0)).toBe(true);
    expect(Array.from(right.subarray(ms(800), ms(1000)))).toEqual(Array.from(reply.subarray(0, 1600)));
  });

  it('assistant audio handed over faster than real time plays back to back, never overlapping', () => {
    const clock = new FakeClock();
    const recorder = new CallRecorder(RATE, clock);
    const a = voiced(0.1, 150);
    const b = voiced(0.1, 300);
    recorder.assistantAudio(a, 0);
    recorder.assistantAudio(b, 10); // handed over 10 ms later, plays after a's 100 ms
    const [, right] = recorder.channels();
    expect(recorder.length).toBe(1600);
    expect(Array.from(right.subarray(800))).toEqual(Array.from(b));
  });

  it('stops growing at its maximum length', () => {
    const clock = new FakeClock();
    const recorder = new CallRecorder(RATE, clock, 1);
    for (let i = 0; i < 60; i++) recorder.callerAudio(new Int16Array(FRAME).fill(100), i * 20);
    expect(recorder.length).toBe(RATE);
    expect(recorder.truncated).toBe(true);
  });
});

describe('CallRecorder: the caller stream’s gaps and the call’s length', () => {
  it('keeps a pause longer than CALLER_GAP_MS as silence; arrival jitter and stalls below it move nothing', async () => {
    const clock = new FakeClock();
    const rec = new CallRecorder(RATE, clock);
    const frame = new Int16Array(FRAME).fill(1000);
    // One second of speech, frames arriving every 20 ms, one of them 150 ms late (a stall).
    for (let i = 0; i < 50; i++) {
      await clock.advance(i === 20 ? 170 : 20);
      rec.callerAudio(frame);
    }
    const firstEnd = rec.length;
    expect(firstEnd).toBe(Math.round(0.02 * RATE) + 50 * FRAME - FRAME); // from the first frame's start, back to back
    // A line that sends nothing while nobody speaks: 3 s of nothing, then speech again.
    await clock.advance(3_000);
    rec.callerAudio(frame);
    const [left] = rec.channels();
    const secondStart = left.length - FRAME;
    expect((secondStart - firstEnd) / RATE).toBeGreaterThan(2.9);
    expect(left.subarray(firstEnd, secondStart).every((v) => v === 0)).toBe(true);
  });

  it('toWavOf: exactly the call’s length, silence to its end, nothing past it', () => {
    const clock = new FakeClock();
    const rec = new CallRecorder(RATE, clock);
    rec.assistantAudio(new Int16Array(RATE).fill(500)); // one second handed over at once
    expect(readWav(new Uint8Array(rec.toWavOf(2_500))).channels[1]).toHaveLength(2.5 * RATE);
    const cut = readWav(new Uint8Array(rec.toWavOf(400))).channels;
    expect(cut[0]).toHaveLength(0.4 * RATE);
    expect(cut[1].every((v) => v === 500)).toBe(true);
  });
});
