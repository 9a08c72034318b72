/**
 * The model and speech providers of one process, chosen by the composition root from the
 * configuration: the LLM, and by name the speech-to-text, text-to-speech and speech-to-speech
 * (realtime) providers an assistant's settings and voice may pick. The call engine sees only
 * this registry and the providers' interfaces, never a concrete adapter.
 */
import type { LlmProvider } from './llm/types.js';
import type { RealtimeProvider } from './realtime/types.js';
import type { SttProvider } from './stt/types.js';
import type { TtsProvider } from './tts/types.js';

export type { RealtimeProvider };

/** Where the registries of single accounts come from (their own keys; src/accounts/provider-keys.ts). */
export interface AccountRegistries {
  forAccount(userId: number): Promise<ProviderRegistry>;
  invalidate(userId: number): void;
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

  private accounts?: AccountRegistries;

  /** Lets `forAccount` answer with accounts' own keys (the composition root sets this). */
  useAccounts(accounts: AccountRegistries): void {
    this.accounts = accounts;
  }

  /** The providers for one account's calls: its own keys over the deployment's, else this registry. */
  forAccount(userId: number): Promise<ProviderRegistry> {
    return this.accounts ? this.accounts.forAccount(userId) : Promise.resolve(this);
  }

  /** A user changed their keys: the next `forAccount` builds their providers afresh. */
  accountKeysChanged(userId: number): void {
    this.accounts?.invalidate(userId);
  }
}

function add<T extends { readonly name: string }>(slot: Map<string, T>, provider: T, kind: string): void {
  if (slot.has(provider.name)) throw new Error(`${kind} provider ${provider.name} is registered twice`);
  slot.set(provider.name, provider);
}
