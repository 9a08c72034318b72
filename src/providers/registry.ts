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

/**
 * An account's own provider keys could not be read. Its message is fixed (no database or key
 * detail): it may reach the call's transcript and the LLM (a failed hand-over).
 */
export class AccountProvidersUnavailableError extends Error {
  constructor(
    readonly userId: number,
    cause: unknown,
  ) {
    super("the account's own provider keys could not be read", { cause });
    this.name = 'AccountProvidersUnavailableError';
  }
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

  /**
   * The providers for one account's calls: its own keys over the deployment's; this registry
   * when it stored none. When its stored keys cannot be read now (the database failed, or
   * SECRET_KEY changed so a key no longer opens) this rejects with
   * AccountProvidersUnavailableError and never answers with the deployment's keys instead:
   * that would send the account's customers' audio to the operator's vendor accounts, billed to
   * the operator, without either of them having chosen it. The caller fails what needed them.
   */
  async forAccount(userId: number): Promise<ProviderRegistry> {
    if (!this.accounts) return this;
    try {
      return await this.accounts.forAccount(userId);
    } catch (err) {
      throw new AccountProvidersUnavailableError(userId, err);
    }
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
