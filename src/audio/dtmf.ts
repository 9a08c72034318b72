/**
 * DTMF as audio: the ITU-T Q.23 tone pairs, for carriers that carry key presses in-band (a
 * Twilio media stream has no "send digit" message, so the assistant's key presses are played
 * into the call as tones). 70 ms of tone and 70 ms of silence per key: above the 40 ms minimum
 * receivers must accept (Q.24) and close to what phones send.
 */
import { concat } from './pcm.js';

/** Low (row) and high (column) frequency of each key, Hz. */
export const DTMF_FREQUENCIES: Readonly<Record<string, readonly [number, number]>> = {
  '1': [697, 1209], '2': [697, 1336], '3': [697, 1477], A: [697, 1633],
  '4': [770, 1209], '5': [770, 1336], '6': [770, 1477], B: [770, 1633],
  '7': [852, 1209], '8': [852, 1336], '9': [852, 1477], C: [852, 1633],
  '*': [941, 1209], '0': [941, 1336], '#': [941, 1477], D: [941, 1633],
};

export const DTMF_TONE_MS = 70;
export const DTMF_GAP_MS = 70;
/** `w` in a digit string: half a second's pause (as in Twilio's SendDigits). */
export const DTMF_PAUSE_MS = 500;

/** PCM16 mono at `sampleRate`: each key's tone pair then a gap; `w` pauses; other characters are skipped. */
export function dtmfTones(digits: string, sampleRate: number): Int16Array {
  const tone = Math.round((DTMF_TONE_MS / 1000) * sampleRate);
  const gap = Math.round((DTMF_GAP_MS / 1000) * sampleRate);
  const parts: Int16Array[] = [];
  for (const ch of digits.toUpperCase()) {
    if (ch === 'W') {
      parts.push(new Int16Array(Math.round((DTMF_PAUSE_MS / 1000) * sampleRate)));
      continue;
    }
    const pair = DTMF_FREQUENCIES[ch];
    if (!pair) continue;
    const out = new Int16Array(tone + gap);
    for (let i = 0; i < tone; i++) {
      const t = i / sampleRate;
      // Each tone at about -9 dBFS, so the pair never clips (and survives μ-law).
      out[i] = Math.round(11000 * (Math.sin(2 * Math.PI * pair[0] * t) + Math.sin(2 * Math.PI * pair[1] * t)));
    }
    parts.push(out);
  }
  return concat(parts);
}
