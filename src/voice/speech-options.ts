/**
 * The assistant's voice settings as the speech providers' stream options: `voice_id` (through
 * the voice list to a provider and that provider's voice id), `language`, `voice_stability`,
 * `voice_similarity`, `speech_speed`, and the endpointing of `endpoint_sensitivity`.
 * Numbers arrive as the columns' numeric text ("0.70") and are clamped to their API ranges.
 */
import type { SttStreamOptions } from '../providers/stt/types.js';
import type { TtsStreamOptions } from '../providers/tts/types.js';
import { endpointRule } from './sensitivity.js';

export interface VoiceSettingsRow {
  /** The voice's provider (`local`, `elevenlabs`, `openai`). */
  voiceProvider: string;
  /** That provider's own voice id; null = its default. */
  providerVoiceId: string | null;
  /** ISO 639-1 code of the assistant's language (the language list's `iso_2`), or null. */
  languageIso2: string | null;
  voiceStability: string | number;
  voiceSimilarity: string | number;
  speechSpeed: string | number;
  endpointSensitivity: string | number;
}

/** The provider default voice of each provider, when the voice names none. */
export const DEFAULT_PROVIDER_VOICES: Readonly<Record<string, string>> = {
  local: 'en-us',
  elevenlabs: '21m00Tcm4TlvDq8ikWAM',
  openai: 'alloy',
};

function num(value: string | number, fallback: number, min: number, max: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}

function languageOf(row: VoiceSettingsRow): string {
  const code = row.languageIso2?.trim().toLowerCase();
  return code && /^[a-z]{2}$/.test(code) ? code : 'en';
}

export function ttsOptionsFor(row: VoiceSettingsRow, sampleRate: number): { provider: string; options: TtsStreamOptions } {
  const language = languageOf(row);
  const voice = row.providerVoiceId?.trim() || (row.voiceProvider === 'local' ? language : DEFAULT_PROVIDER_VOICES[row.voiceProvider] ?? '');
  return {
    provider: row.voiceProvider,
    options: {
      voice,
      sampleRate,
      language,
      stability: num(row.voiceStability, 0.7, 0, 1),
      similarity: num(row.voiceSimilarity, 0.5, 0, 1),
      speed: num(row.speechSpeed, 1, 0.7, 1.2),
    },
  };
}

export function sttOptionsFor(row: VoiceSettingsRow, sampleRate: number, keywords?: string[]): SttStreamOptions {
  const rule = endpointRule(row.endpointSensitivity);
  return {
    sampleRate,
    language: languageOf(row),
    endpointingMs: rule.sttEndpointingMs,
    utteranceEndMs: rule.utteranceEndMs,
    ...(keywords && keywords.length > 0 ? { keywords } : {}),
  };
}
