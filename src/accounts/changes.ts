/**
 * Account changes that every process must see at once: a revoked token, a disabled user, a
 * rotated admin token. The change commits together with a NOTIFY on `switchboard_accounts`
 * (so the CLI, another instance or the admin API can make it); every process LISTENs and drops
 * what it had cached. Without the notification (connection down) the caches' own expiry
 * (5 s) still applies, and a reconnection drops them whole.
 */
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../db/pool.js';
import { PgListener } from '../db/listen.js';

export const ACCOUNT_CHANNEL = 'switchboard_accounts';

export type AccountChange = { kind: 'token'; hash: string } | { kind: 'user'; id: number } | { kind: 'admin' };

function encode(change: AccountChange): string {
  switch (change.kind) {
    case 'token':
      return `token:${change.hash}`;
    case 'user':
      return `user:${change.id}`;
    case 'admin':
      return 'admin';
  }
}

export function decodeAccountChange(payload: string): AccountChange | null {
  const [kind, value] = payload.split(':', 2);
  if (kind === 'token' && value && /^[0-9a-f]{64}$/.test(value)) return { kind, hash: value };
  if (kind === 'user' && value && /^\d+$/.test(value)) return { kind, id: Number(value) };
  if (kind === 'admin') return { kind };
  return null;
}

/** Queues the notification in the caller's transaction: it is delivered when (and only if) that commits. */
export async function announceAccountChange(db: Db, change: AccountChange): Promise<void> {
  await db.execute(sql`select pg_notify(${ACCOUNT_CHANNEL}, ${encode(change)})`);
}

/** What a process caches about accounts and must forget on a change. */
export interface AccountCaches {
  forget(hash: string): void;
  forgetUser(userId: number): void;
  clear(): void;
}
export interface AdminTokenCache {
  forget(): void;
}

/** Listens for account changes and applies them to this process's caches. */
export function listenForAccountChanges(opts: {
  connectionString: string;
  log: Logger;
  tokens: AccountCaches;
  admin: AdminTokenCache;
}): PgListener {
  return new PgListener({
    connectionString: opts.connectionString,
    channel: ACCOUNT_CHANNEL,
    applicationName: 'switchboard-accounts-listen',
    log: opts.log,
    onNotify(payload) {
      const change = decodeAccountChange(payload);
      if (!change) return;
      if (change.kind === 'token') opts.tokens.forget(change.hash);
      else if (change.kind === 'user') opts.tokens.forgetUser(change.id);
      else opts.admin.forget();
    },
    onConnected() {
      opts.tokens.clear();
      opts.admin.forget();
    },
  });
}
