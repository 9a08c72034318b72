/**
 * Every vendor double a voice test needs, started together on local ports, sharing one
 * ClipBook, with the environment that points the service at them:
 *
 *   const voice = await startVoiceDoubles();
 *   const app = await startService({ ...voice.env });           // however the test starts it
 *   const hello = voice.say('Hello, I would like a table.', 8000); // caller audio, recognisable
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

export interface VoiceDoubles {
  clips: ClipBook;
  deepgram: DeepgramDouble;
  elevenlabs: ElevenLabsDouble;
  llm: ChatDouble;
  /** Environment for the service: Deepgram for STT, ElevenLabs for `elevenlabs` voices, the chat double as LLM. */
  env: Record<string, string>;
  /** Synthesises caller speech for `text` at `sampleRate`, registered so the STT doubles recognise it. */
  say(text: string, sampleRate: number): Int16Array;
  close(): Promise<void>;
}

export async function startVoiceDoubles(): Promise<VoiceDoubles> {
  const clips = new ClipBook();
  const [deepgram, elevenlabs, llm] = await Promise.all([new DeepgramDouble(clips).start(), new ElevenLabsDouble(clips).start(), new ChatDouble().start()]);
  const env: Record<string, string> = {
    DEEPGRAM_URL: deepgram.url,
    DEEPGRAM_API_KEY: deepgram.knobs.apiKey,
    ELEVENLABS_URL: elevenlabs.url,
    ELEVENLABS_API_KEY: elevenlabs.knobs.apiKey,
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: 'llm-test-key',
  };
  return {
    clips,
    deepgram,
    elevenlabs,
    llm,
    env,
    say: (text, sampleRate) => clips.say(text, sampleRate),
    close: async () => {
      await Promise.all([deepgram.close(), elevenlabs.close(), llm.close()]);
    },
  };
}
