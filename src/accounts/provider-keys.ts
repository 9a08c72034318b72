/**
 * Providers per account: a user may store their own Deepgram, ElevenLabs or OpenAI key
 * (sealed with SECRET_KEY), and that user's calls then use it instead of the deployment's; and
 * an `llm` key with an optional base URL (an OpenAI-compatible chat server; none: OPENAI_API_URL),
 * and that user's assistants then think with it instead of the deployment's LLM (or stand-in).
 *
 * `AccountProviders.forAccount(userId)` is what the call engine asks (through
 * `ProviderRegistry.forAccount`): the deployment's registry for users without keys, else a
 * registry built from their keys over the configuration. Results are cached per user for
 * `ttlMs` (default 60 s) and dropped at once when the user changes a key on this instance;
 * other instances see the change within the TTL.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/pool.js';
import { providerCredentials } from '../db/schema.js';
import { deriveKey, maskSecret, resolveSecretKey, seal, SecretKeyMissingError, unseal } from '../lib/secrets.js';
import { GuardedLlm } from '../providers/llm/guarded.js';
import { OpenAiCompatibleLlm } from '../providers/llm/openai.js';
import { ProviderRegistry } from '../providers/registry.js';
import { KEY_PROVIDERS, speechProviders, type AccountKeys, type KeyProvider, type SpeechConfig } from '../providers/speech.js';

export { KEY_PROVIDERS, type KeyProvider };

export interface StoredKey {
  provider: KeyProvider;
  keyHint: string;
  /** `llm` only: the chat server's base URL as stored (null: OPENAI_API_URL). */
  baseUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The sealed keys of users, in `provider_credentials`. */
export class ProviderCredentials {
  private key: Buffer | null | undefined;

  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'SECRET_KEY' | 'DATABASE_URL' | 'DATA_DIR'>,
  ) {}

  /** The credentials key, resolved on first use (embedded setups may create DATA_DIR/secret.key). */
  private credentialsKey(): Buffer | null {
    if (this.key === undefined) {
      const secret = resolveSecretKey(this.config);
      this.key = secret ? deriveKey(secret, 'credentials') : null;
    }
    return this.key;
  }

  async list(userId: number): Promise<StoredKey[]> {
    const rows = await this.db
      .select({ provider: providerCredentials.provider, keyHint: providerCredentials.keyHint, baseUrl: providerCredentials.baseUrl, createdAt: providerCredentials.createdAt, updatedAt: providerCredentials.updatedAt })
      .from(providerCredentials)
      .where(eq(providerCredentials.userId, userId))
      .orderBy(asc(providerCredentials.provider));
    return rows as StoredKey[];
  }

  /**
   * Stores (or replaces) a key, with its base URL for `llm` (null for the others); throws
   * SecretKeyMissingError when there is no SECRET_KEY.
   */
  async set(userId: number, provider: KeyProvider, apiKey: string, baseUrl: string | null = null): Promise<StoredKey> {
    const key = this.credentialsKey();
    if (!key) throw new SecretKeyMissingError();
    const values = { userId, provider, sealedKey: seal(apiKey, key), keyHint: maskSecret(apiKey), baseUrl: provider === 'llm' ? baseUrl : null };
    const [row] = await this.db
      .insert(providerCredentials)
      .values(values)
      .onConflictDoUpdate({
        target: [providerCredentials.userId, providerCredentials.provider],
        set: { sealedKey: values.sealedKey, keyHint: values.keyHint, baseUrl: values.baseUrl, updatedAt: sql`now()` },
      })
      .returning();
    return { provider, keyHint: row.keyHint, baseUrl: row.baseUrl, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }

  /** Removes a key; false when there was none. */
  async clear(userId: number, provider: KeyProvider): Promise<boolean> {
    const rows = await this.db
      .delete(providerCredentials)
      .where(and(eq(providerCredentials.userId, userId), eq(providerCredentials.provider, provider)))
      .returning({ id: providerCredentials.id });
    return rows.length > 0;
  }

  /**
   * One of the user's keys in clear (to try it), with its base URL; null when none is stored.
   * Throws UnreadableProviderKeysError when SECRET_KEY cannot open it.
   */
  async keyFor(userId: number, provider: KeyProvider): Promise<{ apiKey: string; baseUrl: string | null } | null> {
    const [row] = await this.db
      .select({ sealedKey: providerCredentials.sealedKey, baseUrl: providerCredentials.baseUrl })
      .from(providerCredentials)
      .where(and(eq(providerCredentials.userId, userId), eq(providerCredentials.provider, provider)));
    if (!row) return null;
    const key = this.credentialsKey();
    try {
      if (!key) throw new SecretKeyMissingError();
      return { apiKey: unseal(row.sealedKey, key), baseUrl: row.baseUrl };
    } catch {
      throw new UnreadableProviderKeysError([provider]);
    }
  }

  /**
   * The user's keys in clear. A stored key that cannot be opened (SECRET_KEY changed, or none
   * is set) throws UnreadableProviderKeysError: the account's calls must not go on without it
   * (ProviderRegistry.forAccount).
   */
  async keysFor(userId: number): Promise<AccountKeys> {
    const rows = await this.db
      .select({ provider: providerCredentials.provider, sealedKey: providerCredentials.sealedKey, baseUrl: providerCredentials.baseUrl })
      .from(providerCredentials)
      .where(eq(providerCredentials.userId, userId));
    if (rows.length === 0) return {};
    const key = this.credentialsKey();
    const out: AccountKeys = {};
    const unreadable: string[] = [];
    for (const row of rows) {
      if (!(KEY_PROVIDERS as readonly string[]).includes(row.provider)) continue;
      try {
        if (!key) throw new SecretKeyMissingError();
        out[row.provider as KeyProvider] = unseal(row.sealedKey, key);
        if (row.provider === 'llm' && row.baseUrl) out.llmBaseUrl = row.baseUrl;
      } catch {
        unreadable.push(row.provider);
      }
    }
    if (unreadable.length > 0) throw new UnreadableProviderKeysError(unreadable);
    return out;
  }
}

/** Stored keys of an account that SECRET_KEY cannot open (it changed, or none is set). */
export class UnreadableProviderKeysError extends Error {
  constructor(readonly providers: string[]) {
    super(`stored provider keys cannot be opened with SECRET_KEY: ${providers.join(', ')}`);
    this.name = 'UnreadableProviderKeysError';
  }
}

export interface AccountProvidersOptions {
  ttlMs?: number;
}

/** Registries per account, cached; see the module comment. */
export class AccountProviders {
  private readonly cache = new Map<number, { at: number; registry: Promise<ProviderRegistry> }>();
  private readonly ttlMs: number;

  constructor(
    readonly credentials: ProviderCredentials,
    private readonly config: SpeechConfig & Pick<Config, 'ALLOW_PRIVATE_TARGETS'>,
    private readonly base: ProviderRegistry,
    private readonly opts: AccountProvidersOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 60_000;
  }

  forAccount(userId: number): Promise<ProviderRegistry> {
    const hit = this.cache.get(userId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.registry;
    const registry = this.build(userId);
    this.cache.set(userId, { at: Date.now(), registry });
    registry.catch(() => this.cache.delete(userId));
    return registry;
  }

  /**
   * The account's chat server: at its own base URL through the outbound guard (the URL is the
   * user's), else at OPENAI_API_URL (the operator's, trusted as for the `openai` key).
   */
  private ownLlm(apiKey: string, baseUrl: string | undefined) {
    const llm = new OpenAiCompatibleLlm({ baseUrl: baseUrl ?? this.config.OPENAI_API_URL, apiKey });
    return baseUrl ? new GuardedLlm(llm, baseUrl, this.config.ALLOW_PRIVATE_TARGETS) : llm;
  }

  /** Forgets a user's cached providers (after a key changed). */
  invalidate(userId: number): void {
    this.cache.delete(userId);
  }

  private async build(userId: number): Promise<ProviderRegistry> {
    const keys = await this.credentials.keysFor(userId);
    if (Object.keys(keys).length === 0) return this.base;
    // The account's own chat server, else the deployment's LLM (or the offline stand-in).
    const llm = keys.llm ? this.ownLlm(keys.llm, keys.llmBaseUrl) : this.base.llm;
    const { llm: _, llmBaseUrl: __, ...speechKeys } = keys;
    // Only an LLM key: the deployment's speech providers, the same instances.
    if (Object.keys(speechKeys).length === 0) {
      return new ProviderRegistry(llm, { stt: [...this.base.stt.values()], tts: [...this.base.tts.values()], realtime: [...this.base.realtime.values()] });
    }
    // The local voice (one pool of worker processes) is shared with the deployment's registry.
    return new ProviderRegistry(llm, speechProviders(this.config, speechKeys, this.base.tts.get('local')));
  }
}
