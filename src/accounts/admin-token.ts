/**
 * The admin token (bearer of /api/admin/* and /metrics). Either ADMIN_TOKEN from the
 * environment, which then is the only one, or a generated token whose SHA-256 hash is stored
 * in `system_settings` (first embedded start, or `switchboard admin-token rotate`).
 */
import { timingSafeEqual } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { systemSettings } from '../db/schema.js';
import { announceAccountChange } from './changes.js';
import { hashToken, newToken } from './tokens.js';

export const ADMIN_TOKEN_KEY = 'admin_token_hash';
/** Stored instead of a hash when the first start had ADMIN_TOKEN set: no generated token exists. */
export const ADMIN_TOKEN_FROM_ENV = 'env';

export function newAdminToken(): string {
  return `sb_admin_${newToken().slice(3)}`;
}

/** The stored admin token's hash, or null when none was generated. */
export async function storedAdminTokenHash(db: Db): Promise<string | null> {
  const [row] = await db.select().from(systemSettings).where(eq(systemSettings.key, ADMIN_TOKEN_KEY));
  return row && row.value !== ADMIN_TOKEN_FROM_ENV ? row.value : null;
}

/**
 * Replaces the stored admin token with a new one and returns it (shown once). The old one
 * stops working at once on every process that reads the stored token, i.e. every process
 * without ADMIN_TOKEN: there the environment's value wins and this changes nothing.
 */
export async function rotateAdminToken(db: Db): Promise<string> {
  const token = newAdminToken();
  await db.transaction(async (tx) => {
    await tx
      .insert(systemSettings)
      .values({ key: ADMIN_TOKEN_KEY, value: hashToken(token) })
      .onConflictDoUpdate({ target: systemSettings.key, set: { value: sql`excluded.value` } });
    await announceAccountChange(tx as unknown as Db, { kind: 'admin' });
  });
  return token;
}

/** Checks an admin bearer token against ADMIN_TOKEN or the stored hash (re-read every 5 s at most, and on a rotation). */
export class AdminAuth {
  private stored: { hash: string | null; expires: number } | undefined;

  constructor(
    private readonly db: Db,
    private readonly envToken?: string,
    private readonly ttlMs = 5_000,
  ) {}

  async verify(token: string): Promise<boolean> {
    if (this.envToken) return safeEqual(token, this.envToken);
    if (!this.stored || this.stored.expires <= Date.now()) {
      this.stored = { hash: await storedAdminTokenHash(this.db), expires: Date.now() + this.ttlMs };
    }
    return this.stored.hash !== null && safeEqual(hashToken(token), this.stored.hash);
  }

  /** True when some admin token can be accepted at all. */
  async configured(): Promise<boolean> {
    return Boolean(this.envToken) || (await storedAdminTokenHash(this.db)) !== null;
  }

  forget(): void {
    this.stored = undefined;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
