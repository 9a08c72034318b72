/**
 * noise_cancellation: steady line noise (hiss + mains hum) that the VAD takes for speech without
 * the gate is silence with it; speech over the same noise is still heard.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { dbfs } from '../../src/audio/pcm.js';
import { HighPass, NoiseGate, NoiseGateStage } from '../../src/voice/noise-gate.js';
import { Pipeline, type Stage } from '../../src/voice/pipeline.js';
import { EnergyVad, VadStage } from '../../src/voice/vad.js';
import type { Frame } from '../../src/voice/frames.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { speechLike } from '../support/doubles/clips.js';
import { add, concat, frames20, hum, noise } from './noise-audio.js';

const RATE = 8000;
const log = pino({ level: 'silent' });

async function vadEvents(audio: Int16Array, gate: boolean): Promise<string[]> {
  const clock = new FakeClock();
  const stages: Stage[] = [];
  if (gate) stages.push(new NoiseGateStage(RATE));
  stages.push(new VadStage({ model: new EnergyVad(RATE), inputRate: RATE, threshold: () => 0.5 }));
  const pipeline = new Pipeline(stages, { clock, log });
  const events: string[] = [];
  pipeline.onOutput((f: Frame) => {
    if (f.kind === 'speech-started' || f.kind === 'speech-stopped') events.push(`${f.kind}@${Math.round(f.at / 100) * 100}`);
  });
  for (const frame of frames20(audio, RATE)) {
    await clock.advance(20);
    pipeline.push({ kind: 'audio-in', turn: 0, samples: frame, sampleRate: RATE, at: clock.now() });
  }
  return events;
}

const lineNoise = (seconds: number) => add(noise(seconds, RATE, -40, 7), hum(seconds, RATE, -32));

describe('noise_cancellation', () => {
  it('the high-pass filter removes mains hum and keeps the voice band', () => {
    const filter = new HighPass(RATE);
    const humOut = filter.process(hum(1, RATE, -20)).slice(RATE / 2);
    const voice = new HighPass(RATE).process(Int16Array.from({ length: RATE }, (_, i) => Math.round(3000 * Math.sin((2 * Math.PI * 300 * i) / RATE)))).slice(RATE / 2);
    const rmsOf = (x: Float64Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
    expect(20 * Math.log10(rmsOf(humOut) / (32768 * 10 ** (-20 / 20)))).toBeLessThan(-11); // 50 Hz: ≥ 11 dB down
    expect(rmsOf(voice) / (3000 / Math.SQRT2)).toBeGreaterThan(0.9); // 300 Hz: within 1 dB
  });

  it('steady line noise is speech to the VAD without the gate, and silence with it', async () => {
    const audio = lineNoise(3);
    expect(await vadEvents(audio, false)).toContain('speech-started@100');
    expect(await vadEvents(audio, true)).toEqual([]);
  });

  it('speech over the same noise still starts and stops as speech', async () => {
    const speech = speechLike('I would like to book an appointment for tomorrow', RATE).samples;
    const audio = add(lineNoise(1.5 + speech.length / RATE + 1.5), concat(new Int16Array(1.5 * RATE), speech));
    const events = await vadEvents(audio, true);
    expect(events[0]).toMatch(/^speech-started@1[56]00$/);
    expect(events.at(-1)).toMatch(/^speech-stopped@/);
  });

  it('attenuates the noise floor by about 20 dB once it has a second of history', () => {
    const gate = new NoiseGate(RATE);
    const out = frames20(lineNoise(2), RATE).map((f) => gate.process(f));
    expect(gate.floorDb).not.toBeNull();
    const before = dbfs(concat(...frames20(lineNoise(2), RATE).slice(60).map((f) => new NoiseGate(RATE).process(f))));
    const after = dbfs(concat(...out.slice(60)));
    expect(before - after).toBeGreaterThan(15);
  });
});
