/** The operator's admin API (CONTRACT §2), authenticated with the admin token. Rules live in src/accounts. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

import { issueToken, listTokens, revokeToken } from '../../accounts/api-tokens.js';
import { AccountError } from '../../accounts/errors.js';
import { getTwilioAccount, removeTwilioAccount, setTwilioAccount, twilioCredentialSource } from '../../accounts/carrier-accounts.js';
import { addPhoneNumber, listPhoneNumbers, reassignPhoneNumber, removeUnusedPhoneNumber } from '../../accounts/phone-numbers.js';
import { purposeKey, SecretKeyMissingError } from '../../lib/secrets.js';
import { LIVE_STATUSES } from '../../calls/state-machine.js';
import { verifyTwilioCredentials } from './twilio-check.js';
import { createUser, disableUser, enableUser, findUser, listUsers } from '../../accounts/users.js';
import { addVoice, listVoices } from '../../accounts/voices.js';
import { isoMicro } from '../../db/time.js';
import { fieldError, notFound } from '../toolkit/errors.js';
import { paginate, pageQuery, pageSchema } from '../toolkit/pagination.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import {
  adminPhoneNumberSchema,
  adminTokenSchema,
  adminUserSchema,
  createPhoneNumberBody,
  createUserBody,
  createVoiceBody,
  numberIdParam,
  reassignPhoneNumberBody,
  serializeAdminPhoneNumber,
  serializeAdminUser,
  serializeTwilioAccount,
  setTwilioAccountBody,
  tokenParams,
  twilioAccountSchema,
  userIdParam,
} from './schemas.js';

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
    schema: {
      tags,
      summary: "Add a phone number to a user's account (carrier `sandbox` by default, or `twilio` with the number's PN… sid)",
      params: userIdParam,
      body: createPhoneNumberBody,
      response: { 201: z.object({ data: adminPhoneNumberSchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req, reply) => {
    const number = await addPhoneNumber(db, {
      userId: req.params.id,
      phoneNumber: req.body.phone_number,
      countryCode: req.body.country_code,
      typeLabel: req.body.type_label,
      carrier: req.body.carrier,
      carrierSid: req.body.carrier_sid,
    }, app.ctx.config.DEFAULT_PHONE_REGION, twilioCredentialSource(app.ctx.config));
    return reply.code(201).send({ data: serializeAdminPhoneNumber(number) });
  });

  r.patch('/api/admin/phone-numbers/:id', {
    schema: {
      tags,
      summary: 'Give a phone number to another user',
      description: 'Refused (409) while an assistant uses the number (its own, or for warm transfers) or a call runs on it. A Twilio number needs Twilio credentials its new owner\'s calls can use (422 on `user_id`). The old owner\'s name for the number (`label`) is cleared.',
      params: numberIdParam,
      body: reassignPhoneNumberBody,
      response: { 200: z.object({ message: z.string(), data: adminPhoneNumberSchema }), 404: messageSchema, 409: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Phone number not found.' },
  }, async (req) => {
    const number = await reassignPhoneNumber(db, req.params.id, req.body.user_id, {
      liveStatuses: LIVE_STATUSES,
      twilio: twilioCredentialSource(app.ctx.config),
    }).catch((err: unknown) => {
      // The new owner is a body field: an unknown one, or one without usable Twilio credentials, is invalid input.
      if (err instanceof AccountError && err.kind === 'user-not-found') throw fieldError('user_id', 'The selected user id is invalid.');
      if (err instanceof AccountError && err.kind === 'carrier-credentials-missing') throw fieldError('user_id', err.message);
      throw err;
    });
    return { message: 'Phone number moved', data: serializeAdminPhoneNumber(number) };
  });

  r.delete('/api/admin/phone-numbers/:id', {
    schema: {
      tags,
      summary: 'Remove a phone number',
      description: 'Refused (409) while an assistant uses the number (its own, or for warm transfers) or a call runs on it. Calls made on it keep the number as text and are never deleted.',
      params: numberIdParam,
      response: { 200: messageSchema, 404: messageSchema, 409: messageSchema },
    },
    config: { notFoundMessage: 'Phone number not found.' },
  }, async (req) => {
    await removeUnusedPhoneNumber(db, req.params.id, { liveStatuses: LIVE_STATUSES });
    return { message: 'Phone number removed' };
  });

  // ---- an account's own Twilio credentials (issue 16), sealed; never shown in full

  r.put('/api/admin/users/:id/carriers/twilio', {
    schema: {
      tags,
      summary: "Store (or replace) a user's Twilio credentials: account SID and auth token, optionally an API key used for REST",
      description: 'Twilio is asked first (`GET /2010-04-01/Accounts/{AccountSid}.json` with the API key when given, else the SID and auth token): credentials it refuses get 422 with a field error, and when Twilio cannot be reached (503) or answers with an error (502) nothing is saved.',
      params: userIdParam,
      body: setTwilioAccountBody,
      response: { 200: z.object({ message: z.string(), data: twilioAccountSchema }), 404: messageSchema, 422: validationSchema, 502: messageSchema, 503: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    const secrets = {
      accountSid: req.body.account_sid,
      authToken: req.body.auth_token,
      apiKeySid: req.body.api_key_sid ?? undefined,
      apiKeySecret: req.body.api_key_secret ?? undefined,
    };
    const key = purposeKey(app.ctx.config, 'credentials');
    if (!key) throw new SecretKeyMissingError();
    if (!(await findUser(db, req.params.id))) throw notFound('User not found.');
    // Twilio is asked first: credentials it refuses, or that could not be checked, are never stored.
    await verifyTwilioCredentials(app.ctx.config.TWILIO_API_URL, secrets);
    const stored = await setTwilioAccount(db, key, req.params.id, secrets);
    return { message: 'Twilio account saved', data: serializeTwilioAccount(stored) };
  });

  r.get('/api/admin/users/:id/carriers/twilio', {
    schema: {
      tags,
      summary: "A user's Twilio account (the SIDs and a hint of the auth token)",
      params: userIdParam,
      response: { 200: z.object({ data: twilioAccountSchema }), 404: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => ({ data: serializeTwilioAccount(await getTwilioAccount(db, req.params.id)) }));

  r.delete('/api/admin/users/:id/carriers/twilio', {
    schema: { tags, summary: "Remove a user's Twilio credentials; their calls use the deployment's again", params: userIdParam, response: { 200: messageSchema, 404: messageSchema } },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    await removeTwilioAccount(db, req.params.id);
    return { message: 'Twilio account removed' };
  });

  r.post('/api/admin/voices', {
    schema: {
      tags,
      summary: 'Add a public voice, or a private voice of one user',
      description: '`provider` (default `local`) speaks the voice; `provider_voice_id` is that provider\'s own voice id (ElevenLabs voice id, OpenAI voice name; null = its default).',
      body: createVoiceBody,
    },
  }, async (req, reply) => {
    const voice = await addVoice(db, {
      name: req.body.name,
      mode: req.body.mode,
      userId: req.body.user_id,
      provider: req.body.provider ?? 'local',
      providerVoiceId: req.body.provider_voice_id?.trim() || null,
    }).catch((err: unknown) => {
      // A voice's owner is a body field: an unknown one is invalid input, not a missing resource.
      if (err instanceof AccountError && err.kind === 'user-not-found') throw fieldError('user_id', 'The selected user id is invalid.');
      throw err;
    });
    return reply.code(201).send({ data: { id: voice.id, name: voice.name, mode: voice.mode, provider: voice.provider, provider_voice_id: voice.providerVoiceId } });
  });

  // ---- reading and disabling accounts (issue 17: the dashboard's admin pages), on src/accounts

  r.get('/api/admin/users', {
    schema: {
      tags,
      summary: 'Every user, by id, paginated',
      querystring: z.object(pageQuery(25)),
      response: { 200: pageSchema(adminUserSchema), 422: validationSchema },
    },
  }, async (req) => {
    const { page, per_page } = req.query;
    const { users, total } = await listUsers(db, { limit: per_page, offset: (page - 1) * per_page });
    return paginate({
      path: `${app.ctx.config.publicBaseUrl}/api/admin/users`,
      query: { per_page: String(per_page) },
      page,
      perPage: per_page,
      total,
      items: users.map(serializeAdminUser),
    });
  });

  r.get('/api/admin/users/:id', {
    schema: { tags, summary: 'One user', params: userIdParam, response: { 200: z.object({ data: adminUserSchema }), 404: messageSchema } },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    const user = await findUser(db, req.params.id);
    if (!user) throw notFound('User not found.');
    return { data: serializeAdminUser(user) };
  });

  r.post('/api/admin/users/:id/disable', {
    schema: {
      tags,
      summary: "Disable a user: its tokens stop working at once and its running campaigns stop; calls in flight finish",
      params: userIdParam,
      response: { 200: z.object({ message: z.string(), data: adminUserSchema, stopped_campaigns: z.number().int() }), 404: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    const { user, stoppedCampaigns } = await disableUser(db, req.params.id);
    app.ctx.tokens.forgetUser(user.id);
    return { message: 'User disabled successfully', data: serializeAdminUser(user), stopped_campaigns: stoppedCampaigns };
  });

  r.post('/api/admin/users/:id/enable', {
    schema: {
      tags,
      summary: "Enable a disabled user again; its campaigns stay stopped until started",
      params: userIdParam,
      response: { 200: z.object({ message: z.string(), data: adminUserSchema }), 404: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    const user = await enableUser(db, req.params.id);
    return { message: 'User enabled successfully', data: serializeAdminUser(user) };
  });

  r.get('/api/admin/users/:id/tokens', {
    schema: {
      tags,
      summary: "A user's API tokens, oldest first, revoked ones included (never the token itself)",
      params: userIdParam,
      response: { 200: z.object({ data: z.array(adminTokenSchema) }), 404: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    const tokens = await listTokens(db, req.params.id);
    return { data: tokens.map((t) => ({ id: t.id, created_at: isoMicro(t.createdAt)!, revoked_at: isoMicro(t.revokedAt) })) };
  });

  r.get('/api/admin/users/:id/phone-numbers', {
    schema: {
      tags,
      summary: "A user's phone numbers, by id",
      params: userIdParam,
      response: { 200: z.object({ data: z.array(adminPhoneNumberSchema) }), 404: messageSchema },
    },
    config: { notFoundMessage: 'User not found.' },
  }, async (req) => {
    if (!(await findUser(db, req.params.id))) throw notFound('User not found.');
    return { data: (await listPhoneNumbers(db, { userId: req.params.id })).map(serializeAdminPhoneNumber) };
  });

  r.get('/api/admin/voices', {
    schema: {
      tags,
      summary: 'Every voice: public ones (user_id null) and private ones of a user',
      response: {
        200: z.object({
          data: z.array(z.object({ id: z.number().int(), name: z.string(), mode: z.string(), user_id: z.number().int().nullable(), provider: z.string(), provider_voice_id: z.string().nullable() })),
        }),
      },
    },
  }, async () => ({
    data: (await listVoices(db)).map((x) => ({ id: x.id, name: x.name, mode: x.mode, user_id: x.userId, provider: x.provider, provider_voice_id: x.providerVoiceId })),
  }));
}
