import type { Db } from '../db/pool.js';
import { findUserByTokenHash, hashToken, type AuthUser } from './users.js';

/**
 * Resolves bearer tokens to users without a database round trip per request.
 * Entries live `ttlMs` (5 s): a token revoked on another instance stops working within that
 * time; one revoked here is dropped at once. Unknown tokens are not cached, so a freshly
 * issued token works immediately everywhere.
 */
export class TokenCache {
  private readonly entries = new Map<string, { user: AuthUser; expires: number }>();

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
    const user = await findUserByTokenHash(this.db, hash);
    if (!user) {
      this.entries.delete(hash);
      return null;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hash, { user, expires: now + this.ttlMs });
    return user;
  }

  forget(hash: string): void {
    this.entries.delete(hash);
  }

  forgetUser(userId: number): void {
    for (const [hash, e] of this.entries) if (e.user.id === userId) this.entries.delete(hash);
  }
}
