/**
 * ambient_sound / ambient_sound_volume: the loop is mixed under the assistant's audio at the
 * set volume, the speech stays recognisable, `none` or volume 0 leave the audio untouched; the
 * output stage plays it as a bed for the whole call (test/voice/ambient-bed.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { dbfs } from '../../src/audio/pcm.js';
import { ambientLoop, ambientMixerFor } from '../../src/voice/ambient.js';
import { correlate, envelope, speechLike } from '../support/doubles/clips.js';
import { concat, frames20 } from './noise-audio.js';

const RATE = 8000;

/** The audio mixed 20 ms at a time, as the output stage hands it to the leg. */
function throughAmbient(sound: string, volume: string, audio: Int16Array, rate = RATE): Int16Array {
  const mixer = ambientMixerFor(sound, volume, rate);
  return concat(...frames20(audio, rate).map((frame) => (mixer ? mixer.mix(frame) : frame)));
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

  it('renders the loop at the rate asked for (a 16 kHz leg gets the 16 kHz loop)', () => {
    expect(Array.from(throughAmbient('office', '1', new Int16Array(4800), 16_000))).toEqual(Array.from(ambientLoop('office', 16_000).subarray(0, 4800)));
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
    expect(ambientMixerFor('office', '0.4', RATE)).not.toBeNull();
    expect(Array.from(throughAmbient('none', '1', speech))).toEqual(Array.from(speech));
  });
});
