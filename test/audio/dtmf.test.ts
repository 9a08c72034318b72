/**
 * DTMF tones (src/audio/dtmf.ts): every key's tone pair, 70 ms on and 70 ms off, recognised by
 * a Goertzel receiver after the phone line's μ-law round trip; `w` pauses half a second.
 */
import { describe, expect, it } from 'vitest';
import { DTMF_FREQUENCIES, dtmfTones } from '../../src/audio/dtmf.js';
import { mulaw } from '../../src/audio/g711.js';
import { detectDtmf, goertzelPower } from '../support/dtmf.js';

const RATE = 8000;
const lineRoundTrip = (x: Int16Array) => mulaw.decode(mulaw.encode(x));

describe('dtmfTones', () => {
  it('every key survives the μ-law line and is recognised, in order', () => {
    const keys = '123A456B789C*0#D';
    expect(detectDtmf(lineRoundTrip(dtmfTones(keys, RATE)), RATE)).toBe(keys);
  });

  it('70 ms of the key pair, then 70 ms of silence; w pauses 500 ms; unknown characters are skipped', () => {
    const one = dtmfTones('5', RATE);
    expect(one.length).toBe(0.14 * RATE);
    const tone = one.subarray(0, 0.07 * RATE);
    const [low, high] = DTMF_FREQUENCIES['5'];
    const power = (f: number) => goertzelPower(tone, RATE, f);
    expect(power(low)).toBeGreaterThan(100 * power(697));
    expect(power(high)).toBeGreaterThan(100 * power(1209));
    expect(one.subarray(0.07 * RATE).every((v) => v === 0)).toBe(true);
    expect(dtmfTones('1w2', RATE).length).toBe(0.14 * RATE * 2 + 0.5 * RATE);
    expect(dtmfTones('1x', RATE).length).toBe(0.14 * RATE);
  });

  it('the same key twice is heard twice (the gap separates them)', () => {
    expect(detectDtmf(lineRoundTrip(dtmfTones('11##', RATE)), RATE)).toBe('11##');
  });
});
