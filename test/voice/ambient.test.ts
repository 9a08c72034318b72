/**
 * ambient_sound / ambient_sound_volume: the loop is mixed under the assistant's audio at the
 * set volume, the speech stays recognisable, `none` or volume 0 leave the audio untouched.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { dbfs } from '../../src/audio/pcm.js';
import { AmbientStage, ambientLoop, ambientMixerFor } from '../../src/voice/ambient.js';
import type { Frame } from '../../src/voice/frames.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { FakeClock } from '../../src/telephony/clock.js';
import { correlate, envelope, speechLike } from '../support/doubles/clips.js';
import { concat, frames20 } from './noise-audio.js';

const RATE = 8000;

/** The TTS audio as the ambient stage hands it to the output stage (chunks of 20 ms at the TTS rate). */
function throughAmbient(sound: string, volume: string, audio: Int16Array): Int16Array {
  const clock = new FakeClock();
  const out: Int16Array[] = [];
  const pipeline = new Pipeline([new AmbientStage(sound, volume)], { clock, log: pino({ level: 'silent' }) });
  pipeline.onOutput((f: Frame) => {
    if (f.kind === 'tts-audio') out.push(f.samples);
  });
  for (const frame of frames20(audio, RATE)) pipeline.push({ kind: 'tts-audio', turn: 1, samples: frame, sampleRate: RATE, at: clock.now() });
  return concat(...out);
}

describe('ambient sound under the assistant', () => {
  const speech = speechLike('Thank you for calling, how can I help you today?', RATE).samples;

  it.each([
    ['office', '1.00', -30],
    ['office', '0.50', -36],
    ['cafe', '0.25', -42],
  ])('%s at volume %s lies under the speech at about %d dBFS', (sound, volume, expectedDb) => {
    const mixed = throughAmbient(sound, volume, speech);
    const residual = Int16Array.from(mixed, (v, i) => v - speech[i]!);
    expect(Math.abs(dbfs(residual) - expectedDb)).toBeLessThan(1);
    // The assistant's words are still what the caller hears: the envelope matches the clean speech.
    expect(correlate(envelope(mixed, RATE), envelope(speech, RATE))).toBeGreaterThan(0.9);
  });

  it('mixes at the TTS audio’s own rate (a 24 kHz speech server gets the 24 kHz loop)', () => {
    const clock = new FakeClock();
    const out: Int16Array[] = [];
    const pipeline = new Pipeline([new AmbientStage('office', '1')], { clock, log: pino({ level: 'silent' }) });
    pipeline.onOutput((f: Frame) => {
      if (f.kind === 'tts-audio') out.push(f.samples);
    });
    pipeline.push({ kind: 'tts-audio', turn: 1, samples: new Int16Array(4800), sampleRate: 24_000, at: 0 });
    expect(Array.from(out[0]!)).toEqual(Array.from(ambientLoop('office', 24_000).subarray(0, 4800)));
  });

  it('continues the loop across frames and repeats it without a click', () => {
    const loop = ambientLoop('cafe', RATE);
    const mixed = throughAmbient('cafe', '1', new Int16Array(loop.length + 1600));
    expect(Array.from(mixed.subarray(0, loop.length))).toEqual(Array.from(loop));
    expect(Array.from(mixed.subarray(loop.length))).toEqual(Array.from(loop.subarray(0, 1600)));
    const steps = Array.from(loop.subarray(1), (v, i) => Math.abs(v - loop[i]!));
    const typical = steps.sort((a, b) => a - b)[Math.floor(steps.length * 0.99)]!;
    expect(Math.abs(loop[0]! - loop[loop.length - 1]!)).toBeLessThanOrEqual(typical);
  });

  it('`none`, an unknown sound or volume 0 leave the audio as it is', () => {
    expect(ambientMixerFor('none', '1', RATE)).toBeNull();
    expect(ambientMixerFor('jungle', '1', RATE)).toBeNull();
    expect(ambientMixerFor('office', '0.00', RATE)).toBeNull();
    expect(new AmbientStage('none', '1').audible).toBe(false);
    expect(new AmbientStage('office', '0.4').audible).toBe(true);
    expect(Array.from(throughAmbient('none', '1', speech))).toEqual(Array.from(speech));
  });
});
