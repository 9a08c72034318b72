/**
 * Browser calls (call type `web`): created by the dashboard (a user token) or by the widget
 * (a widget key), then run once the page opens the media socket with the call's one-time
 * token. The call record, webhook and recording are those of any other call.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { takesSlot, USER_CALLS_LOCK } from '../../calls/limits.js';
import type { AppContext } from '../../context.js';
import { inTransaction } from '../../db/pool.js';
import { assistants, webCallTokens } from '../../db/schema.js';
import type { WebCallMode } from '../../telephony/web/carrier.js';
import { HttpError, notFound } from '../toolkit/errors.js';

/** How long a page has to open the media socket after the call was created. */
export const MEDIA_TOKEN_TTL_MS = 60_000;

export interface WebCallStarted {
  call_id: number;
  mode: WebCallMode;
  /** Path of the media WebSocket, with the one-time token; resolve it against the service's origin. */
  media_path: string;
  expires_in: number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * What this account's browser calls can do, from its providers (the deployment's, or its own
 * keys): `speech` when speech-to-text is configured for it and the engine runs the voice core
 * on audio legs (otherwise calls are typed conversations on the same engine); `offline_llm`
 * when no LLM answers it but the offline stand-in. Keys that cannot be read count as none here
 * (the call itself then fails, saying why).
 */
export async function callCapabilities(ctx: AppContext, userId: number): Promise<{ speech: boolean; offline_llm: boolean }> {
  const registry = await ctx.providers.forAccount(userId).catch(() => ctx.providers);
  const engine = ctx.services.calls;
  return { speech: engine?.speaks === true && registry.stt.size > 0, offline_llm: !engine || registry.llm.standIn };
}

/** Of a widget call: the key it came from and the visitor's address (what its limits count by). */
export interface WidgetOrigin {
  keyId: number;
  visitor: string;
}

/**
 * How many of the owner's `maxCalls` slots one widget key's connected calls may hold at once
 * (WIDGET_KEY_SHARE percent, at least 1): a published key never takes them all.
 */
export function widgetKeyShare(ctx: AppContext, maxCalls: number): number {
  return Math.max(1, Math.floor((maxCalls * ctx.config.WIDGET_KEY_SHARE) / 100));
}

export async function startWebCall(
  ctx: AppContext,
  input: { userId: number; assistantId: number; mode: WebCallMode; variables?: Record<string, unknown>; widget?: WidgetOrigin },
): Promise<WebCallStarted> {
  const [assistant] = await ctx.database.db
    .select({ id: assistants.id, status: assistants.status })
    .from(assistants)
    .where(and(eq(assistants.id, input.assistantId), eq(assistants.userId, input.userId), isNull(assistants.deletedAt)));
  if (!assistant) throw notFound('Assistant not found');
  if (assistant.status !== 'active') throw new HttpError(422, 'Assistant is inactive.');
  const engine = ctx.services.calls;
  if (!engine) throw new HttpError(503, 'The call engine is not running.');
  const mode: WebCallMode = input.mode === 'audio' && (await callCapabilities(ctx, input.userId)).speech ? 'audio' : 'text';

  // Refused (429 from the central error handler) when the owner's connected calls already fill
  // max_calls_in_parallel; while its page has not connected, the call itself takes no slot.
  const { callId } = await engine.placeCall(
    { userId: input.userId, assistantId: assistant.id, to: '', type: 'web', variables: input.variables ?? {} },
    { defer: true },
  );
  const token = randomBytes(24).toString('base64url');
  await ctx.database.db.insert(webCallTokens).values({
    callId,
    tokenHash: hash(token),
    mode,
    expiresAt: new Date(Date.now() + MEDIA_TOKEN_TTL_MS).toISOString(),
    widgetKeyId: input.widget?.keyId ?? null,
    visitor: input.widget?.visitor ?? null,
  });
  // A page that never connects: the call is run without its socket once the token has
  // expired, which ends it as failed with its record and webhook (a no-op when the socket
  // arrived, on this instance or another).
  setTimeout(() => {
    engine.startCall(callId).catch((err) => ctx.log.error({ err, callId }, 'ending an unconnected browser call failed'));
  }, MEDIA_TOKEN_TTL_MS + 1_000).unref();
  return { call_id: callId, mode, media_path: `/web-calls/${callId}/media?token=${token}`, expires_in: MEDIA_TOKEN_TTL_MS / 1000 };
}

export type SpentToken = { mode: WebCallMode } | { refused: 'token' | 'busy' };

/**
 * Spends a call's one-time media token as its page connects, and so takes the call's parallel
 * slot: under the owner's call lock, refused (`busy`, the token kept) when the owner's calls
 * already fill max_calls_in_parallel or, for a widget call, its key's share of them; `token`
 * when the token is wrong, used or expired.
 */
export async function spendMediaToken(ctx: AppContext, callId: number, token: string): Promise<SpentToken> {
  if (token.length === 0 || token.length > 100) return { refused: 'token' };
  return inTransaction(ctx.database.pool, async (client) => {
    const found = await client.query<{ mode: WebCallMode; widget_key_id: number | null; user_id: number; max: number }>(
      `SELECT w.mode, w.widget_key_id, c.user_id, u.max_calls_in_parallel AS max
         FROM web_call_tokens w JOIN calls c ON c.id = w.call_id JOIN users u ON u.id = c.user_id
        WHERE w.call_id = $1 AND w.token_hash = $2 AND w.expires_at > now() AND w.spent_at IS NULL`,
      [callId, hash(token)],
    );
    const row = found.rows[0];
    if (!row) return { refused: 'token' };
    await client.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [USER_CALLS_LOCK, row.user_id]);
    const live = await client.query<{ owner: number; key: number }>(
      `SELECT count(*)::int AS owner,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM web_call_tokens k WHERE k.call_id = c.id AND k.widget_key_id = $2))::int AS key
         FROM calls c WHERE c.user_id = $1 AND ${takesSlot('c')}`,
      [row.user_id, row.widget_key_id],
    );
    const { owner, key } = live.rows[0]!;
    if (owner >= row.max || (row.widget_key_id !== null && key >= widgetKeyShare(ctx, row.max))) return { refused: 'busy' };
    const spent = await client.query('UPDATE web_call_tokens SET spent_at = now() WHERE call_id = $1 AND spent_at IS NULL', [callId]);
    return spent.rowCount === 1 ? { mode: row.mode } : { refused: 'token' };
  });
}
