/**
 * Every vendor double a voice test needs, started together on local ports, sharing one
 * ClipBook, with the environment that points the service at them:
 *
 *   const voice = await startVoiceDoubles();
 *   const app = await startService({ ...voice.env });           // however the test starts it
 *   const hello = voice.say('Hello, I would like a table.', 8000); // caller audio, recognisable
 *   const real = voice.fixture('book-appointment', 8000);          // real speech, recognisable too
 *   voice.llm.on('Hello, I would like a table.', { text: 'For how many people?' });
 *   … voice.clips.matchAudio(heardByCaller, 8000)?.text === 'For how many people?'
 *   await voice.close();
 *
 * The TTS doubles register every sentence they speak in the shared book, so the STT doubles
 * recognise the assistant's own audio (echo) and tests can name what the caller heard.
 */
import { ChatDouble } from './chat.js';
import { ClipBook } from './clips.js';
import { DeepgramDouble } from './deepgram.js';
import { ElevenLabsDouble } from './elevenlabs.js';
import { OpenAiSpeechDouble } from './openai-speech.js';
import { OpenAiTranscriptionDouble } from './openai-transcription.js';
import { RealtimeDouble } from './realtime.js';
import { LocalTts } from '../../../src/providers/tts/local/index.js';
import { localVoice, speechLikeVoice, type DoubleVoice } from './voices.js';
import { fixtureAudio, fixtureIndex } from '../audio-fixtures.js';

export interface VoiceDoubles {
  clips: ClipBook;
  deepgram: DeepgramDouble;
  elevenlabs: ElevenLabsDouble;
  /** OpenAI-compatible `/v1/audio/speech` (voices whose provider is `openai`). */
  speech: OpenAiSpeechDouble;
  /** OpenAI-compatible `/v1/audio/transcriptions` (batch STT; used when `envFor({ stt: 'openai' })`). */
  transcription: OpenAiTranscriptionDouble;
  /** OpenAI Realtime (assistants in `mode: multimodal`); script it with `realtime.on(text, …)`. */
  realtime: RealtimeDouble;
  llm: ChatDouble;
  /**
   * Environment for the service: Deepgram for STT, ElevenLabs and the OpenAI speech double for
   * TTS, the Realtime double, the chat double as LLM.
   */
  env: Record<string, string>;
  /** The same environment with batch transcription instead of Deepgram (`stt: 'openai'`). */
  envFor(choice: { stt: 'deepgram' | 'openai' }): Record<string, string>;
  /** Synthesises caller speech for `text` at `sampleRate` (speech-like), registered so the STT doubles recognise it. */
  say(text: string, sampleRate: number): Int16Array;
  /**
   * A caller-speech fixture (test/fixtures/audio: real eSpeak speech) at 16 kHz or 8 kHz
   * (decoded μ-law). Every fixture is registered under its text when the doubles start, so the
   * STT doubles transcribe it.
   */
  fixture(name: string, sampleRate: 8000 | 16_000): Int16Array;
  /** The same with the doubles' voice (eSpeak with `voice: 'local'`), registered too. */
  speak(text: string, sampleRate: number): Promise<Int16Array>;
  close(): Promise<void>;
}

export interface VoiceDoublesOptions {
  /**
   * What the TTS doubles speak with: `speech-like` (default; deterministic, in-process) or
   * `local` (eSpeak NG via src/providers/tts/local: intelligible speech, e.g. for browser tests).
   */
  voice?: 'speech-like' | 'local';
}

export async function startVoiceDoubles(options: VoiceDoublesOptions = {}): Promise<VoiceDoubles> {
  const clips = new ClipBook();
  for (const f of fixtureIndex) if (f.kind !== 'silence') clips.add(f.text, fixtureAudio(f.name, 16_000), 16_000);
  const local = options.voice === 'local' ? new LocalTts({ size: 1 }) : null;
  const voice: DoubleVoice = local ? localVoice(local) : speechLikeVoice;
  const [deepgram, elevenlabs, speech, transcription, realtime, llm] = await Promise.all([
    new DeepgramDouble(clips).start(),
    new ElevenLabsDouble(clips).start(),
    new OpenAiSpeechDouble(clips).start(),
    new OpenAiTranscriptionDouble(clips).start(),
    new RealtimeDouble(clips).start(),
    new ChatDouble().start(),
  ]);
  for (const d of [elevenlabs, speech, realtime]) d.voice = voice;
  const env: Record<string, string> = {
    DEEPGRAM_URL: deepgram.url,
    DEEPGRAM_API_KEY: deepgram.knobs.apiKey,
    ELEVENLABS_URL: elevenlabs.url,
    ELEVENLABS_API_KEY: elevenlabs.knobs.apiKey,
    TTS_BASE_URL: speech.baseUrl,
    TTS_API_KEY: speech.knobs.apiKey!,
    STT_BASE_URL: transcription.baseUrl,
    STT_API_KEY: transcription.knobs.apiKey!,
    REALTIME_URL: realtime.url,
    REALTIME_API_KEY: realtime.knobs.apiKey!,
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: 'llm-test-key',
  };
  return {
    clips,
    deepgram,
    elevenlabs,
    speech,
    transcription,
    realtime,
    llm,
    env,
    envFor: ({ stt }) => {
      const out = { ...env };
      if (stt === 'openai') delete out.DEEPGRAM_API_KEY;
      return out;
    },
    say: (text, sampleRate) => clips.say(text, sampleRate),
    fixture: (name, sampleRate) => fixtureAudio(name, sampleRate),
    speak: async (text, sampleRate) => {
      const { samples } = await voice(text, sampleRate, 1);
      clips.add(text, samples, sampleRate);
      return samples;
    },
    close: async () => {
      await Promise.all([deepgram, elevenlabs, speech, transcription, realtime, llm].map((d) => d.close()));
      local?.close();
    },
  };
}
