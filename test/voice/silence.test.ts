/**
 * max_silence_duration / reengagement_interval on real silence: the silence clock runs from the
 * end of the assistant's playback while the VAD hears no speech; the caller's speech resets it;
 * the re-engagement prompt itself does not; line noise the noise gate removes is silence.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CallTimers } from '../../src/calls/timers.js';
import type { Frame } from '../../src/voice/frames.js';
import { NoiseGateStage } from '../../src/voice/noise-gate.js';
import { Pipeline, type Stage } from '../../src/voice/pipeline.js';
import { SilenceStage } from '../../src/voice/silence.js';
import { EnergyVad, VadStage } from '../../src/voice/vad.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { speechLike } from '../support/doubles/clips.js';
import { add, frames20, hum, noise } from './noise-audio.js';

const RATE = 8000;
const FRAME = RATE / 50;

interface Run {
  events: string[];
}

/**
 * Plays `callerAudio(t)` (20 ms frames, at real pace on a fake clock) for `seconds`. The assistant
 * finishes its reply at 1 s; each re-engagement is a turn of its own that plays for 1 s.
 */
async function run(seconds: number, callerAudio: (ms: number) => Int16Array, opts: { gate?: boolean } = {}): Promise<Run> {
  const clock = new FakeClock();
  const events: string[] = [];
  let pipeline!: Pipeline;
  let turn = 1;
  const timers: CallTimers = new CallTimers(
    clock,
    { maxDurationMs: 600_000, maxSilenceMs: 5_000, reengagementMs: 3_000 },
    {
      onMaxDuration: () => events.push(`max-duration@${clock.now()}`),
      onReengage: () => {
        events.push(`reengage@${clock.now()}`);
        const t = ++turn;
        pipeline.push({ kind: 'turn-started', turn: t, turnKind: 'reengagement', callerText: null, at: clock.now() });
        clock.setTimer(1_000, () => pipeline.push({ kind: 'playback-done', turn: t, text: 'Are you still there?', at: clock.now() }));
      },
      onSilenceTimeout: () => {
        events.push(`hang-up@${clock.now()}`);
        timers.stop(); // the session ends the call
      },
    },
  );
  const stages: Stage[] = [];
  if (opts.gate) stages.push(new NoiseGateStage(RATE));
  stages.push(new VadStage({ model: new EnergyVad(RATE), inputRate: RATE, threshold: () => 0.5 }), new SilenceStage(timers));
  pipeline = new Pipeline(stages, { clock, log: pino({ level: 'silent' }) });
  pipeline.onOutput((f: Frame) => {
    if (f.kind === 'speech-started' || f.kind === 'speech-stopped') events.push(`${f.kind}@${Math.round(f.at / 100) * 100}`);
  });
  timers.start();
  pipeline.push({ kind: 'turn-started', turn: 1, turnKind: 'reply', callerText: 'hi', at: 0 });
  for (let ms = 20; ms <= seconds * 1000; ms += 20) {
    await clock.advance(20);
    if (ms === 1_000) pipeline.push({ kind: 'playback-done', turn: 1, text: 'How can I help?', at: clock.now() });
    pipeline.push({ kind: 'audio-in', turn, samples: callerAudio(ms), sampleRate: RATE, at: clock.now() });
  }
  timers.stop();
  return { events };
}

const quiet = () => new Int16Array(FRAME);

describe('silence measured by the VAD', () => {
  it('re-engages after reengagement_interval of silence and hangs up max_silence_duration after the first prompt', async () => {
    const { events } = await run(12, quiet);
    // Playback ends at 1 s: prompt at 4 s; the prompt (its own turn) does not restart the clock: hang-up at 9 s.
    expect(events).toEqual(['reengage@4000', 'reengage@7000', 'hang-up@9000']);
  });

  it('the caller’s speech resets the clock; it starts again when their speech stops', async () => {
    const speech = speechLike('Yes I am here', RATE).samples;
    const speechFrames = frames20(speech, RATE);
    const { events } = await run(8, (ms) => (ms > 2_500 && ms <= 2_500 + speechFrames.length * 20 ? speechFrames[(ms - 2_520) / 20]! : quiet()));
    const stopped = events.find((e) => e.startsWith('speech-stopped'))!;
    const stopAt = Number(stopped.split('@')[1]);
    expect(events[0]).toMatch(/^speech-started@2[56]00$/);
    const reengage = events.find((e) => e.startsWith('reengage'))!;
    // 3 s after the end of speech (within a frame and the VAD's stop window), not at 4 s.
    expect(Number(reengage.split('@')[1]) - stopAt).toBeGreaterThanOrEqual(3_000);
    expect(Number(reengage.split('@')[1]) - stopAt).toBeLessThanOrEqual(3_400);
  });

  it('steady line noise keeps the silence clock stopped without noise cancellation, and is silence with it', async () => {
    const line = add(noise(12, RATE, -40, 3), hum(12, RATE, -32));
    const lineFrames = frames20(line, RATE);
    const noisy = (ms: number) => lineFrames[ms / 20 - 1]!;
    expect((await run(12, noisy)).events.filter((e) => !e.startsWith('speech'))).toEqual([]);
    expect((await run(12, noisy, { gate: true })).events).toEqual(['reengage@4000', 'reengage@7000', 'hang-up@9000']);
  });
});
