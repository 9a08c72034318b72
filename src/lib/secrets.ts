/**
 * Secrets at rest and signed links, from one deployment key (`SECRET_KEY`).
 *
 * - Stored credentials (provider API keys, carrier auth tokens, built-in tool keys) are sealed
 *   with AES-256-GCM under a key derived for that purpose; the database holds only `v1:…` text.
 * - Links that must expire (recordings) are signed with an HMAC under another derived key.
 *
 * The key: `SECRET_KEY` when set (required to be the same on every instance of a deployment).
 * Without it, the embedded setup keeps a generated key in `DATA_DIR/secret.key` (mode 0600),
 * so one machine works with no configuration; with `DATABASE_URL` and no `SECRET_KEY` there is
 * no key, and storing a credential is refused with a clear message (`SecretKeyMissingError`).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type KeyPurpose = 'credentials' | 'links';

export class SecretKeyMissingError extends Error {
  constructor() {
    super('SECRET_KEY is not set: it is needed to store credentials and sign links (see docs/configuration.md).');
  }
}

export class SealedSecretError extends Error {}

const VERSION = 'v1';

/** The deployment key from the configuration, or the embedded setup's generated one; null when there is none. */
export function resolveSecretKey(config: { SECRET_KEY?: string; DATABASE_URL?: string; DATA_DIR: string }): string | null {
  if (config.SECRET_KEY) return config.SECRET_KEY;
  if (config.DATABASE_URL) return null;
  const file = path.join(config.DATA_DIR, 'secret.key');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(config.DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  try {
    // 'wx': two processes starting at once must not overwrite each other's key.
    fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw err;
  }
}

/** A 32-byte key for one purpose, so a link signature can never open a sealed credential. */
export function deriveKey(secret: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from('switchboard'), Buffer.from(purpose), 32));
}

/** Seals a secret: `v1:<base64url(iv ‖ tag ‖ ciphertext)>`. */
export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** Opens what `seal` made; throws SealedSecretError when it was altered or sealed under another key. */
export function unseal(sealed: string, key: Buffer): string {
  const [version, data] = sealed.split(':', 2);
  if (version !== VERSION || !data) throw new SealedSecretError('not a sealed secret');
  const raw = Buffer.from(data, 'base64url');
  if (raw.length < 28) throw new SealedSecretError('sealed secret too short');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError('sealed secret cannot be opened with this key');
  }
}

/** What an API may show of a stored secret: its last four characters. */
export function maskSecret(secret: string): string {
  return secret.length <= 8 ? '••••' : `••••${secret.slice(-4)}`;
}

/** HMAC-SHA256 signature (base64url) of `payload`, for expiring links. */
export function sign(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** Constant-time check of a `sign` signature. */
export function verifySignature(payload: string, signature: string, key: Buffer): boolean {
  const expected = Buffer.from(sign(payload, key));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Seals and opens stored credentials with the deployment key, resolved on first use. */
export interface CredentialSealer {
  /** Throws SecretKeyMissingError when the deployment has no key. */
  seal(plaintext: string): string;
  unseal(sealed: string): string;
}

export function credentialSealer(config: { SECRET_KEY?: string; DATABASE_URL?: string; DATA_DIR: string }): CredentialSealer {
  let key: Buffer | null | undefined;
  const get = () => {
    if (key === undefined) {
      const secret = resolveSecretKey(config);
      key = secret ? deriveKey(secret, 'credentials') : null;
    }
    if (!key) throw new SecretKeyMissingError();
    return key;
  };
  return { seal: (plaintext) => seal(plaintext, get()), unseal: (sealed) => unseal(sealed, get()) };
}

/** The key for one purpose from the configuration (see resolveSecretKey), or null when there is no deployment key. */
export function purposeKey(config: { SECRET_KEY?: string; DATABASE_URL?: string; DATA_DIR: string }, purpose: KeyPurpose): Buffer | null {
  const secret = resolveSecretKey(config);
  return secret ? deriveKey(secret, purpose) : null;
}
