/**
 * The speech providers Switchboard has adapters for, with the stable ids an assistant's
 * `synthesizer_provider_id` / `transcriber_provider_id` name (issue 20) and the languages
 * (ISO 639-1) each one speaks or understands among those of the language list.
 *
 * The ids are part of the API (clients store them), so an entry is never renumbered; a new
 * adapter gets the next id. `code` is the adapter's name in the ProviderRegistry.
 */

export interface CatalogEntry {
  id: number;
  name: string;
  code: string;
  /** ISO 639-1 codes; matched against `languages.iso_2`. */
  languages: readonly string[];
}

/** The languages of the seeded list (migration 0001); every adapter below covers all of them. */
const LIST = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'sv', 'da', 'tr', 'cs'] as const;

export const SYNTHESIZER_PROVIDERS: readonly CatalogEntry[] = [
  // eSpeak NG voices exist for every language of the list.
  { id: 1, name: 'Local (eSpeak NG)', code: 'local', languages: LIST },
  // eleven_multilingual_v2 / flash v2.5 cover these 12 among their 29-32 languages.
  { id: 2, name: 'ElevenLabs', code: 'elevenlabs', languages: LIST },
  // OpenAI-compatible speech: gpt-4o-mini-tts and tts-1 follow the Whisper language set.
  { id: 3, name: 'OpenAI', code: 'openai', languages: LIST },
];

export const TRANSCRIBER_PROVIDERS: readonly CatalogEntry[] = [
  // Deepgram nova-2/nova-3 streaming covers all twelve.
  { id: 1, name: 'Deepgram', code: 'deepgram', languages: LIST },
  // Whisper-family transcription (OpenAI or a compatible server).
  { id: 2, name: 'OpenAI', code: 'openai', languages: LIST },
];

export const synthesizerById = (id: number) => SYNTHESIZER_PROVIDERS.find((p) => p.id === id);
export const transcriberById = (id: number) => TRANSCRIBER_PROVIDERS.find((p) => p.id === id);
