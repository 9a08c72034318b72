/**
 * The model and speech providers of one process, chosen by the composition root from the
 * configuration: the LLM, and by name the speech-to-text, text-to-speech and speech-to-speech
 * (realtime) providers an assistant's settings and voice may pick. The call engine sees only
 * this registry and the providers' interfaces, never a concrete adapter.
 */
import type { LlmProvider } from './llm/types.js';
import type { SttProvider } from './stt/types.js';
import type { TtsProvider } from './tts/types.js';

/**
 * A speech-to-speech provider (`mode: multimodal`). Only its name so far: the full session
 * interface comes with its first adapter (src/providers/realtime/types.ts), which replaces this.
 */
export interface RealtimeProvider {
  readonly name: string;
}

export interface ProviderSlots {
  stt?: readonly SttProvider[];
  tts?: readonly TtsProvider[];
  realtime?: readonly RealtimeProvider[];
}

export class ProviderRegistry {
  /** Speech-to-text providers by name (`deepgram`, `openai`, …). */
  readonly stt = new Map<string, SttProvider>();
  /** Text-to-speech providers by name (`local`, `elevenlabs`, `openai`): a voice names its provider. */
  readonly tts = new Map<string, TtsProvider>();
  /** Speech-to-speech providers by name. */
  readonly realtime = new Map<string, RealtimeProvider>();

  constructor(
    /** The language model every call converses with (an OpenAI-compatible server or the offline stand-in). */
    readonly llm: LlmProvider,
    slots: ProviderSlots = {},
  ) {
    for (const p of slots.stt ?? []) add(this.stt, p, 'speech-to-text');
    for (const p of slots.tts ?? []) add(this.tts, p, 'text-to-speech');
    for (const p of slots.realtime ?? []) add(this.realtime, p, 'speech-to-speech');
  }
}

function add<T extends { readonly name: string }>(slot: Map<string, T>, provider: T, kind: string): void {
  if (slot.has(provider.name)) throw new Error(`${kind} provider ${provider.name} is registered twice`);
  slot.set(provider.name, provider);
}
