import { createHash, randomBytes } from 'node:crypto';

/** A new API token: `sb_` + 32 random bytes. Shown once; only its SHA-256 is stored. */
export function newToken(): string {
  return `sb_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A per-user webhook signing secret in the Standard Webhooks format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
