/**
 * Which speech providers a process (or one account) has, from the configuration and, per
 * account, the user's own keys. The one place that names the concrete speech adapters; the
 * composition root puts the result into the ProviderRegistry's stt/tts/realtime slots.
 *
 * - Speech-to-text: Deepgram when a Deepgram key is there (DEEPGRAM_API_KEY or the account's;
 *   live /v1/listen, or Flux on /v2/listen when DEEPGRAM_MODEL is a Flux model),
 *   else the OpenAI-compatible server when STT_BASE_URL is set (or the account has an OpenAI
 *   key: then OpenAI's own), else none (typed or sandbox conversations only).
 * - Text-to-speech: `local` always (it reports itself unavailable without eSpeak NG);
 *   `elevenlabs` with a key; `openai` with TTS_BASE_URL (or an account OpenAI key).
 * - Speech-to-speech: `openai` with REALTIME_URL (or an account OpenAI key).
 *
 * An account's OpenAI key replaces the deployment's key only for OpenAI's own endpoints: where
 * the operator pointed STT/TTS/REALTIME at another server, that server and its key stay, so a
 * user's key is never sent to a host it was not made for.
 */
import type { Config } from '../config.js';
import { OpenAiRealtime } from './realtime/openai/index.js';
import type { RealtimeProvider } from './realtime/types.js';
import { DeepgramFluxStt, fluxUrl, isFluxModel } from './stt/deepgram/flux.js';
import { DeepgramStt } from './stt/deepgram/index.js';
import { OpenAiStt } from './stt/openai/index.js';
import type { SttProvider } from './stt/types.js';
import { ElevenLabsTts } from './tts/elevenlabs/index.js';
import { OpenAiTts } from './tts/openai/index.js';
import type { TtsProvider } from './tts/types.js';

/**
 * Providers a user can bring a key for: the speech vendors, and `llm` (an OpenAI-compatible
 * chat server at the account's own base URL; src/accounts/provider-keys.ts builds it, this
 * module leaves it alone).
 */
export const KEY_PROVIDERS = ['deepgram', 'elevenlabs', 'llm', 'openai'] as const;
export type KeyProvider = (typeof KEY_PROVIDERS)[number];
/** An account's keys in clear, and the base URL of its `llm` key (none: OPENAI_API_URL). */
export type AccountKeys = Partial<Record<KeyProvider, string>> & { llmBaseUrl?: string };

/** OpenAI's speech-to-speech endpoint on the API base (`OPENAI_API_URL`). */
export const openAiRealtimeUrl = (apiBase: string) => `${apiBase.replace(/^http/, 'ws').replace(/\/+$/, '')}/realtime?model=gpt-realtime`;

export type SpeechConfig = Pick<
  Config,
  | 'DEEPGRAM_API_KEY' | 'DEEPGRAM_URL' | 'DEEPGRAM_MODEL'
  | 'STT_BASE_URL' | 'STT_API_KEY' | 'STT_MODEL'
  | 'ELEVENLABS_API_KEY' | 'ELEVENLABS_URL' | 'ELEVENLABS_MODEL'
  | 'TTS_BASE_URL' | 'TTS_API_KEY' | 'TTS_MODEL'
  | 'REALTIME_URL' | 'REALTIME_API_KEY' | 'OPENAI_API_URL'
>;

export interface SpeechProviders {
  stt: SttProvider[];
  tts: TtsProvider[];
  realtime: RealtimeProvider[];
}

/** OpenAI's own host, or the one OPENAI_API_URL names. */
const isOpenAiHost = (url: string, apiBase: string) => {
  const host = new URL(url).hostname;
  return host === 'api.openai.com' || host === new URL(apiBase).hostname;
};

/** An OpenAI-protocol endpoint: the operator's (with the account key only on OpenAI's host), else OpenAI's with the account key. */
function openAiEndpoint(url: string | undefined, key: string | undefined, accountKey: string | undefined, fallback: string, apiBase: string) {
  if (url) return { url, apiKey: accountKey && isOpenAiHost(url, apiBase) ? accountKey : key };
  return accountKey ? { url: fallback, apiKey: accountKey } : null;
}

/** The speech providers for the deployment's configuration, or for one account's keys on top of it. */
export function speechProviders(config: SpeechConfig, keys: AccountKeys = {}, local?: TtsProvider): SpeechProviders {
  const out: SpeechProviders = { stt: [], tts: [], realtime: [] };

  const deepgramKey = keys.deepgram ?? config.DEEPGRAM_API_KEY;
  const openAiBase = config.OPENAI_API_URL;
  const stt = openAiEndpoint(config.STT_BASE_URL, config.STT_API_KEY, keys.openai, openAiBase, openAiBase);
  // Both when both are configured: an assistant's transcriber_provider_id chooses; Deepgram is the default.
  if (deepgramKey) {
    // A Flux model speaks another protocol on /v2/listen (its own end-of-turn events).
    const model = config.DEEPGRAM_MODEL;
    out.stt.push(isFluxModel(model) ? new DeepgramFluxStt({ url: fluxUrl(config.DEEPGRAM_URL), apiKey: deepgramKey, model }) : new DeepgramStt({ url: config.DEEPGRAM_URL, apiKey: deepgramKey, model }));
  }
  if (stt) out.stt.push(new OpenAiStt({ baseUrl: stt.url, apiKey: stt.apiKey, model: config.STT_MODEL }));

  if (local) out.tts.push(local);
  const elevenLabsKey = keys.elevenlabs ?? config.ELEVENLABS_API_KEY;
  if (elevenLabsKey) out.tts.push(new ElevenLabsTts({ url: config.ELEVENLABS_URL, apiKey: elevenLabsKey, model: config.ELEVENLABS_MODEL }));
  const tts = openAiEndpoint(config.TTS_BASE_URL, config.TTS_API_KEY, keys.openai, openAiBase, openAiBase);
  if (tts) out.tts.push(new OpenAiTts({ baseUrl: tts.url, apiKey: tts.apiKey, model: config.TTS_MODEL }));

  const realtime = openAiEndpoint(config.REALTIME_URL, config.REALTIME_API_KEY, keys.openai, openAiRealtimeUrl(openAiBase), openAiBase);
  if (realtime) out.realtime.push(new OpenAiRealtime({ url: realtime.url, apiKey: realtime.apiKey }));
  return out;
}
