/** The caller's own account: who they are, and their API tokens (issue 17: the dashboard's account page). */
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { issueToken, listTokens, revokeToken } from '../../accounts/api-tokens.js';
import { apiTokens } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { hashToken } from '../../accounts/tokens.js';
import { notFound } from '../toolkit/errors.js';
import { idParam, messageSchema, typed } from '../toolkit/route.js';

const tags = ['account'];

const tokenSummary = z.object({
  id: z.number().int(),
  created_at: z.string().describe('ISO 8601'),
  revoked_at: z.string().nullable().describe('ISO 8601; null while the token works'),
  current: z.boolean().describe('the token of this request'),
});

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/me', {
    schema: {
      tags,
      summary: 'The authenticated user',
      response: {
        200: z.object({ id: z.number().int(), name: z.string(), email: z.string(), max_tools: z.number().int(), max_calls_in_parallel: z.number().int() }),
      },
    },
  }, async (req) => ({
    id: req.user.id,
    name: req.user.name,
    email: req.user.email,
    max_tools: req.user.maxTools,
    max_calls_in_parallel: req.user.maxCallsInParallel,
  }));

  r.get('/api/user/display-settings', {
    schema: {
      tags,
      summary: 'How the dashboard shows amounts',
      description: "`cost_currency`: the currency of calls' `carrier_cost` and `total_cost` (the service's COST_CURRENCY, ISO 4217).",
      response: { 200: z.object({ cost_currency: z.string() }) },
    },
  }, async () => ({ cost_currency: app.ctx.config.COST_CURRENCY }));

  r.get('/api/user/tokens', {
    schema: {
      tags,
      summary: 'Your API tokens, oldest first, revoked ones included (never the token itself)',
      response: { 200: z.object({ data: z.array(tokenSummary) }) },
    },
  }, async (req) => {
    // The request's own token (authenticated already, so the header holds one).
    const hash = hashToken(/^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
    const [[current], tokens] = await Promise.all([
      db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.tokenHash, hash)),
      listTokens(db, req.user.id),
    ]);
    return { data: tokens.map((t) => ({ id: t.id, created_at: isoMicro(t.createdAt)!, revoked_at: isoMicro(t.revokedAt), current: t.id === current?.id })) };
  });

  r.post('/api/user/tokens', {
    schema: {
      tags,
      summary: 'Issue another API token for yourself; it is shown once',
      response: { 201: z.object({ message: z.string(), data: z.object({ id: z.number().int(), token: z.string() }) }) },
    },
  }, async (req, reply) => {
    const { id, token } = await issueToken(db, req.user.id);
    return reply.code(201).send({ message: 'Token issued: copy it now, it is not shown again', data: { id, token } });
  });

  r.delete('/api/user/tokens/:id', {
    schema: {
      tags,
      summary: 'Revoke one of your API tokens at once (also the one of this request)',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema },
    },
    config: { notFoundMessage: 'Token not found.' },
  }, async (req) => {
    const hash = await revokeToken(db, req.params.id, req.user.id);
    if (!hash) throw notFound('Token not found.');
    app.ctx.tokens.forget(hash);
    return { message: 'Token revoked successfully' };
  });
}
