/** Driving an STT adapter in its tests: open a stream that records its events, write audio as a call does. */
import type { SttEvent, SttProvider, SttStream, SttStreamOptions } from '../../src/providers/stt/types.js';
import { recordEvents } from './doubles/recorder.js';

/** Opens a stream whose events are recorded (`events`, `next(pred)`). */
export async function openRecorded(provider: SttProvider, options: SttStreamOptions) {
  const rec = recordEvents<SttEvent>();
  const stream: SttStream = await provider.open(options, rec.emit);
  return { stream, events: rec.events, next: rec.next };
}

/** Writes audio in 20 ms frames, the way a call delivers it. */
export function playFrames(stream: SttStream, samples: Int16Array, sampleRate: number): void {
  const frame = sampleRate / 50;
  for (let i = 0; i < samples.length; i += frame) stream.write(samples.subarray(i, i + frame));
}
