import type { Db } from '../db/pool.js';
import { findUserByTokenHash, type AuthUser } from './users.js';
import { hashToken } from './tokens.js';

/**
 * Resolves bearer tokens to users without a database round trip per request.
 * Entries live `ttlMs` (5 s) at most. A revoked token or a disabled user is dropped at once
 * here and, through the account-change notification (src/accounts/changes.ts), on every other
 * process; the expiry is the fallback while that notification connection is down. Unknown
 * tokens are not cached, so a freshly issued token works immediately everywhere.
 */
export class TokenCache {
  private readonly entries = new Map<string, { user: AuthUser; expires: number }>();
  /** Moves on every forget: a lookup that started before one must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  async resolve(token: string): Promise<AuthUser | null> {
    const hash = hashToken(token);
    const now = Date.now();
    const hit = this.entries.get(hash);
    if (hit && hit.expires > now) return hit.user;
    const generation = this.generation;
    const user = await findUserByTokenHash(this.db, hash);
    if (!user) {
      this.entries.delete(hash);
      return null;
    }
    if (generation !== this.generation) return user;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hash, { user, expires: now + this.ttlMs });
    return user;
  }

  forget(hash: string): void {
    this.generation++;
    this.entries.delete(hash);
  }

  forgetUser(userId: number): void {
    this.generation++;
    for (const [hash, e] of this.entries) if (e.user.id === userId) this.entries.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
