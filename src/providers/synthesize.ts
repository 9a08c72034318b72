/**
 * A whole utterance from a streaming text-to-speech provider, at a given rate: for speakers that
 * need audio, not a stream (the sandbox's simulated customer).
 */
import { concat } from '../audio/pcm.js';
import { Resampler } from '../audio/resample.js';
import type { TtsProvider, TtsStreamOptions } from './tts/types.js';

export function synthesizer(provider: TtsProvider, voice: string, language = 'en'): (text: string, sampleRate: number) => Promise<Int16Array> {
  return (text, sampleRate) => synthesize(provider, { voice, sampleRate, language }, text);
}

/** `text` spoken whole with `options` (voice, language, stability, …), at `options.sampleRate`. */
export function synthesize(provider: TtsProvider, options: TtsStreamOptions, text: string): Promise<Int16Array> {
  const { sampleRate } = options;
  return new Promise((resolve, reject) => {
    const parts: Int16Array[] = [];
    let resampler: Resampler | null = null;
    const stream = provider.open(options, (event) => {
      switch (event.type) {
        case 'audio':
          if (event.sampleRate === sampleRate) parts.push(event.samples);
          else {
            resampler ??= new Resampler(event.sampleRate, sampleRate);
            parts.push(resampler.process(event.samples));
          }
          return;
        case 'done':
          if (resampler) parts.push(resampler.flush());
          resolve(concat(parts));
          return;
        case 'error':
          reject(new Error(event.message));
          return;
      }
    });
    stream.push(text);
    stream.end();
  });
}
