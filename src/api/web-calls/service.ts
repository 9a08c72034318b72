/**
 * Browser calls (call type `web`): created by the dashboard (a user token) or by the widget
 * (a widget key), then run once the page opens the media socket with the call's one-time
 * token. The call record, webhook and recording are those of any other call.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
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
 * Whether calls can be spoken: speech-to-text is configured and the engine runs the voice
 * core on audio legs. Otherwise browser calls are typed conversations on the same engine.
 */
export function speechAvailable(ctx: AppContext): boolean {
  return ctx.providers.stt.size > 0 && ctx.services.calls?.speaks === true;
}

export async function startWebCall(
  ctx: AppContext,
  input: { userId: number; assistantId: number; mode: WebCallMode; variables?: Record<string, unknown> },
): Promise<WebCallStarted> {
  const [assistant] = await ctx.database.db
    .select({ id: assistants.id, status: assistants.status })
    .from(assistants)
    .where(and(eq(assistants.id, input.assistantId), eq(assistants.userId, input.userId), isNull(assistants.deletedAt)));
  if (!assistant) throw notFound('Assistant not found');
  if (assistant.status !== 'active') throw new HttpError(422, 'Assistant is inactive.');
  const engine = ctx.services.calls;
  if (!engine) throw new HttpError(503, 'The call engine is not running.');
  const mode: WebCallMode = input.mode === 'audio' && speechAvailable(ctx) ? 'audio' : 'text';

  // Counts against max_calls_in_parallel like any call (429 from the central error handler).
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
  });
  // A page that never connects: the call is run without its socket once the token has
  // expired, which ends it as failed with its record and webhook (a no-op when the socket
  // arrived, on this instance or another).
  setTimeout(() => {
    engine.startCall(callId).catch((err) => ctx.log.error({ err, callId }, 'ending an unconnected browser call failed'));
  }, MEDIA_TOKEN_TTL_MS + 1_000).unref();
  return { call_id: callId, mode, media_path: `/web-calls/${callId}/media?token=${token}`, expires_in: MEDIA_TOKEN_TTL_MS / 1000 };
}

/** Spends a call's one-time media token; the mode it was issued for, or null when it does not open. */
export async function spendMediaToken(ctx: AppContext, callId: number, token: string): Promise<WebCallMode | null> {
  if (token.length === 0 || token.length > 100) return null;
  const res = await ctx.database.pool.query<{ mode: WebCallMode }>(
    'DELETE FROM web_call_tokens WHERE call_id = $1 AND token_hash = $2 AND expires_at > now() RETURNING mode',
    [callId, hash(token)],
  );
  return res.rows[0]?.mode ?? null;
}
