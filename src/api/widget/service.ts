/**
 * The embeddable widget's keys: one public key per assistant and list of allowed origins. A
 * visitor's page presents the key (never a user's API token); the call is placed for the
 * key's owner like a dashboard browser call. Limits per key and per visitor keep a published
 * key from being turned into a call flood (in memory, per instance: see docs/decisions.md).
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { assistants, widgetKeys } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { notFound } from '../toolkit/errors.js';

export interface WidgetKeyRecord {
  id: number;
  assistant_id: number;
  key: string;
  allowed_origins: string[];
  created_at: string | null;
}

/** `https://example.com` or `http://localhost:8080`: scheme, host and port, nothing else. */
export function normaliseOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return null;
  if (value.replace(/\/$/, '') !== url.origin) return null;
  return url.origin;
}

function serialize(row: typeof widgetKeys.$inferSelect): WidgetKeyRecord {
  return { id: row.id, assistant_id: row.assistantId, key: row.key, allowed_origins: row.allowedOrigins, created_at: isoMicro(row.createdAt) };
}

async function ownedAssistant(ctx: AppContext, userId: number, assistantId: number): Promise<void> {
  const [row] = await ctx.database.db
    .select({ id: assistants.id })
    .from(assistants)
    .where(and(eq(assistants.id, assistantId), eq(assistants.userId, userId), isNull(assistants.deletedAt)));
  if (!row) throw notFound('Assistant not found');
}

export async function createWidgetKey(ctx: AppContext, userId: number, assistantId: number, origins: string[]): Promise<WidgetKeyRecord> {
  await ownedAssistant(ctx, userId, assistantId);
  const [row] = await ctx.database.db
    .insert(widgetKeys)
    .values({ userId, assistantId, key: `wk_${randomBytes(18).toString('base64url')}`, allowedOrigins: [...new Set(origins)] })
    .returning();
  return serialize(row!);
}

export async function listWidgetKeys(ctx: AppContext, userId: number, assistantId: number): Promise<WidgetKeyRecord[]> {
  await ownedAssistant(ctx, userId, assistantId);
  const rows = await ctx.database.db
    .select()
    .from(widgetKeys)
    .where(and(eq(widgetKeys.assistantId, assistantId), eq(widgetKeys.userId, userId), isNull(widgetKeys.revokedAt)))
    .orderBy(asc(widgetKeys.id));
  return rows.map(serialize);
}

export async function revokeWidgetKey(ctx: AppContext, userId: number, id: number): Promise<void> {
  const res = await ctx.database.pool.query(
    'UPDATE widget_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL',
    [id, userId],
  );
  if (res.rowCount === 0) throw notFound('Widget key not found');
}

/** The live key's owner and assistant, or null for an unknown or revoked key. */
export async function findWidgetKey(ctx: AppContext, key: string): Promise<{ id: number; userId: number; assistantId: number; allowedOrigins: string[] } | null> {
  if (!/^wk_[\w-]{10,60}$/.test(key)) return null;
  const res = await ctx.database.pool.query<{ id: number; user_id: number; assistant_id: number; allowed_origins: string[] }>(
    'SELECT id, user_id, assistant_id, allowed_origins FROM widget_keys WHERE key = $1 AND revoked_at IS NULL',
    [key],
  );
  const row = res.rows[0];
  return row ? { id: row.id, userId: row.user_id, assistantId: row.assistant_id, allowedOrigins: row.allowed_origins } : null;
}

/**
 * A key's widget calls that are live now (waiting for their page, or connected), all of them and
 * those of one visitor address, and the owner's max_calls_in_parallel.
 */
export async function widgetCallsInFlight(ctx: AppContext, key: { id: number; userId: number }, visitor: string): Promise<{ key: number; visitor: number; ownerMax: number }> {
  const res = await ctx.database.pool.query<{ key: number; visitor: number; owner_max: number }>(
    `SELECT count(c.id)::int AS key, count(c.id) FILTER (WHERE w.visitor = $2)::int AS visitor,
            (SELECT max_calls_in_parallel FROM users WHERE id = $3) AS owner_max
       FROM web_call_tokens w JOIN calls c ON c.id = w.call_id
      WHERE w.widget_key_id = $1 AND c.status IN ('initiated', 'ringing', 'in-progress')`,
    [key.id, visitor, key.userId],
  );
  const row = res.rows[0]!;
  return { key: row.key, visitor: row.visitor, ownerMax: Number(row.owner_max) };
}

/** Fixed-window counters (one minute), for the per-key and per-visitor limits. */
export class MinuteCounters {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one more for `key`; false when that goes over `max` in this minute. */
  take(key: string, max: number): boolean {
    const window = Math.floor(this.now() / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n <= max;
  }
}
