/**
 * A user's own speech-provider keys (issue 19): stored sealed, used for that user's calls
 * instead of the deployment's, shown only as a hint. Routes are the user's; an admin acts as
 * the user with one of their tokens.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoMicro } from '../../db/time.js';
import { notFound } from '../toolkit/errors.js';
import { messageSchema, typed } from '../toolkit/route.js';
import { ProviderCredentials, type StoredKey } from '../../accounts/provider-keys.js';
import { providerParam, setKeyBody, storedKeySchema } from './schemas.js';

const tags = ['provider keys'];

const serialize = (k: StoredKey) => ({ provider: k.provider, key_hint: k.keyHint, created_at: isoMicro(k.createdAt)!, updated_at: isoMicro(k.updatedAt)! });

export async function providerKeyRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const credentials = new ProviderCredentials(app.ctx.database.db, app.ctx.config);

  r.get('/api/user/provider-keys', {
    schema: { tags, summary: "The caller's own speech-provider keys (hints only)", response: { 200: z.object({ data: z.array(storedKeySchema) }) } },
  }, async (req) => ({ data: (await credentials.list(req.user.id)).map(serialize) }));

  r.put('/api/user/provider-keys/:provider', {
    schema: {
      tags,
      summary: 'Store (or replace) the caller\'s key for deepgram, elevenlabs or openai; the caller\'s calls use it from now on',
      params: providerParam,
      body: setKeyBody,
      response: { 200: z.object({ message: z.string(), data: storedKeySchema }), 503: messageSchema },
    },
    config: { notFoundMessage: 'Provider not found.' },
  }, async (req) => {
    const stored = await credentials.set(req.user.id, req.params.provider, req.body.api_key);
    app.ctx.providers.accountKeysChanged(req.user.id);
    return { message: 'Provider key saved', data: serialize(stored) };
  });

  r.delete('/api/user/provider-keys/:provider', {
    schema: { tags, summary: "Remove the caller's key; calls use the deployment's again", params: providerParam, response: { 200: messageSchema } },
    config: { notFoundMessage: 'Provider not found.' },
  }, async (req) => {
    if (!(await credentials.clear(req.user.id, req.params.provider))) throw notFound('Provider key not found.');
    app.ctx.providers.accountKeysChanged(req.user.id);
    return { message: 'Provider key removed' };
  });
}
