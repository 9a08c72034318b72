/** The operator's admin API (CONTRACT §2), authenticated with the admin token. */
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';

import { createUser, issueToken, revokeToken } from '../../accounts/users.js';
import { phoneNumbers, users, voices } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { fieldError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed } from '../toolkit/route.js';
import { countryOf, toE164 } from '../../lib/phone.js';
import { serializePhoneNumber } from '../reference/serializers.js';
import { createPhoneNumberBody, createUserBody, createVoiceBody, tokenParams, userIdParam } from './schemas.js';

const tags = ['admin'];

async function userExists(app: FastifyInstance, id: number): Promise<boolean> {
  const [row] = await app.ctx.database.db.select({ id: users.id }).from(users).where(eq(users.id, id));
  return Boolean(row);
}

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.post('/api/admin/users', {
    schema: { tags, summary: 'Create a user and its first API token', body: createUserBody },
  }, async (req, reply) => {
    const body = req.body;
    const [dup] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${body.email})`);
    if (dup) throw fieldError('email', 'The email has already been taken.');
    const { user, token } = await createUser(db, {
      name: body.name,
      email: body.email,
      maxTools: body.max_tools,
      maxCallsInParallel: body.max_calls_in_parallel,
    });
    return reply.code(201).send({
      data: {
        id: user.id,
        name: user.name,
        email: user.email,
        max_tools: user.maxTools,
        max_calls_in_parallel: user.maxCallsInParallel,
        created_at: isoMicro(user.createdAt),
      },
      token,
    });
  });

  r.post('/api/admin/users/:id/tokens', {
    schema: { tags, summary: 'Issue another API token for a user', params: userIdParam },
    config: { notFoundMessage: 'User not found.' },
  }, async (req, reply) => {
    if (!(await userExists(app, req.params.id))) throw notFound('User not found.');
    const { id, token } = await issueToken(db, req.params.id);
    return reply.code(201).send({ data: { id, token } });
  });

  r.delete('/api/admin/users/:id/tokens/:tokenId', {
    schema: { tags, summary: 'Revoke an API token at once', params: tokenParams, response: { 200: messageSchema } },
    config: { notFoundMessage: 'Token not found.' },
  }, async (req) => {
    const hash = await revokeToken(db, req.params.id, req.params.tokenId);
    if (!hash) throw notFound('Token not found.');
    app.ctx.tokens.forget(hash);
    return { message: 'Token revoked successfully' };
  });

  r.post('/api/admin/users/:id/phone-numbers', {
    schema: { tags, summary: "Add a phone number to a user's account", params: userIdParam, body: createPhoneNumberBody },
    config: { notFoundMessage: 'User not found.' },
  }, async (req, reply) => {
    if (!(await userExists(app, req.params.id))) throw notFound('User not found.');
    const e164 = toE164(req.body.phone_number, app.ctx.config.DEFAULT_PHONE_REGION);
    if (!e164) throw fieldError('phone_number', 'Invalid phone number');
    const [row] = await db
      .insert(phoneNumbers)
      .values({
        userId: req.params.id,
        phoneNumber: e164,
        countryCode: (req.body.country_code ?? countryOf(e164)).toUpperCase(),
        typeLabel: req.body.type_label,
      })
      .returning();
    return reply.code(201).send({ data: serializePhoneNumber({ ...row, assigned: false }) });
  });

  r.post('/api/admin/voices', {
    schema: { tags, summary: 'Add a public voice, or a private voice of one user', body: createVoiceBody },
  }, async (req, reply) => {
    const userId = req.body.user_id ?? null;
    if (userId !== null && !(await userExists(app, userId))) throw fieldError('user_id', 'The selected user id is invalid.');
    const [row] = await db.insert(voices).values({ name: req.body.name, mode: req.body.mode, userId }).returning();
    return reply.code(201).send({ data: { id: row.id, name: row.name, mode: row.mode } });
  });
}

