/** The operator's admin API (CONTRACT §2), authenticated with the admin token. Rules live in src/accounts. */
import type { FastifyInstance } from 'fastify';

import { issueToken, revokeToken } from '../../accounts/api-tokens.js';
import { AccountError } from '../../accounts/errors.js';
import { addPhoneNumber } from '../../accounts/phone-numbers.js';
import { createUser } from '../../accounts/users.js';
import { addVoice } from '../../accounts/voices.js';
import { isoMicro } from '../../db/time.js';
import { fieldError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed } from '../toolkit/route.js';
import { serializePhoneNumber } from '../reference/serializers.js';
import { createPhoneNumberBody, createUserBody, createVoiceBody, tokenParams, userIdParam } from './schemas.js';

const tags = ['admin'];

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.post('/api/admin/users', {
    schema: { tags, summary: 'Create a user and its first API token', body: createUserBody },
  }, async (req, reply) => {
    const body = req.body;
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
    const { id, token } = await issueToken(db, req.params.id);
    return reply.code(201).send({ data: { id, token } });
  });

  r.delete('/api/admin/users/:id/tokens/:tokenId', {
    schema: { tags, summary: 'Revoke an API token at once', params: tokenParams, response: { 200: messageSchema } },
    config: { notFoundMessage: 'Token not found.' },
  }, async (req) => {
    const hash = await revokeToken(db, req.params.tokenId, req.params.id);
    if (!hash) throw notFound('Token not found.');
    app.ctx.tokens.forget(hash);
    return { message: 'Token revoked successfully' };
  });

  r.post('/api/admin/users/:id/phone-numbers', {
    schema: { tags, summary: "Add a phone number to a user's account", params: userIdParam, body: createPhoneNumberBody },
    config: { notFoundMessage: 'User not found.' },
  }, async (req, reply) => {
    const number = await addPhoneNumber(db, {
      userId: req.params.id,
      phoneNumber: req.body.phone_number,
      countryCode: req.body.country_code,
      typeLabel: req.body.type_label,
    }, app.ctx.config.DEFAULT_PHONE_REGION);
    return reply.code(201).send({ data: serializePhoneNumber(number) });
  });

  r.post('/api/admin/voices', {
    schema: { tags, summary: 'Add a public voice, or a private voice of one user', body: createVoiceBody },
  }, async (req, reply) => {
    const voice = await addVoice(db, { name: req.body.name, mode: req.body.mode, userId: req.body.user_id }).catch((err: unknown) => {
      // A voice's owner is a body field: an unknown one is invalid input, not a missing resource.
      if (err instanceof AccountError && err.kind === 'user-not-found') throw fieldError('user_id', 'The selected user id is invalid.');
      throw err;
    });
    return reply.code(201).send({ data: { id: voice.id, name: voice.name, mode: voice.mode } });
  });
}
