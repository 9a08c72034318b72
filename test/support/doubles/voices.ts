/**
 * What the TTS doubles (ElevenLabs, OpenAI speech, Realtime) speak with. `speechLikeVoice`
 * (default): clips.ts's deterministic speech-like synthesizer, fast and in-process, with exact
 * per-character timings. `localVoice(tts)`: the project's local voice, eSpeak NG (an optional
 * dependency, src/providers/tts/local), i.e. real intelligible speech; its character timings are
 * spread over the audio by character count (eSpeak reports none).
 */
import type { LocalTts } from '../../../src/providers/tts/local/index.js';
import { speechLike, type Synthesized } from './clips.js';

export type DoubleVoice = (text: string, sampleRate: number, speed: number) => Promise<Synthesized>;

export const speechLikeVoice: DoubleVoice = async (text, sampleRate, speed) => speechLike(text, sampleRate, speed);

export function localVoice(tts: LocalTts, voice = 'en-us', language = 'en'): DoubleVoice {
  return async (text, sampleRate, speed) => {
    const { samples } = await tts.speak(text, { voice, language, sampleRate, speed });
    const chars = [...text];
    const totalMs = (samples.length / sampleRate) * 1000;
    const per = chars.length ? totalMs / chars.length : 0;
    return { samples, sampleRate, chars, startMs: chars.map((_, i) => Math.round(i * per * 10) / 10), durationMs: chars.map(() => Math.round(per * 10) / 10) };
  };
}
