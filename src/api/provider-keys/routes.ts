/**
 * A user's own speech-provider keys (issue 19): stored sealed, used for that user's calls
 * instead of the deployment's, shown only as a hint. Routes are the user's; an admin acts as
 * the user with one of their tokens.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoMicro } from '../../db/time.js';
import { maskSecret } from '../../lib/secrets.js';
import { checkProviderKey } from '../../providers/key-check.js';
import { HttpError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { ProviderCredentials, UnreadableProviderKeysError, type StoredKey } from '../../accounts/provider-keys.js';
import { keyCheckSchema, providerParam, setKeyBody, storedKeySchema, testKeyBody } from './schemas.js';

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

  r.post('/api/user/provider-keys/:provider/test', {
    schema: {
      tags,
      summary: 'Try a key with one real, read-only request to the vendor (OpenAI `GET /models`, Deepgram `GET /v1/projects`, ElevenLabs `GET /v1/user`)',
      description:
        "Tries the caller's stored key, or the `api_key` in the body (not stored) to check a key before saving it. The request goes where the deployment sends that vendor's traffic (`OPENAI_API_URL`, `DEEPGRAM_URL`'s host, `ELEVENLABS_URL`'s host) and gives up after 10 s. The answer is 200 whether the vendor accepted the key or not: `ok` says which, `message` says what failed in words. One request per call, never retried.",
      params: providerParam,
      body: testKeyBody,
      response: { 200: keyCheckSchema, 404: messageSchema, 409: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Provider not found.' },
  }, async (req) => {
    const provider = req.params.provider;
    let key = req.body?.api_key ?? null;
    if (!key) {
      try {
        key = await credentials.keyFor(req.user.id, provider);
      } catch (err) {
        if (err instanceof UnreadableProviderKeysError) throw new HttpError(409, 'The stored key cannot be opened with this deployment\'s SECRET_KEY (it changed or is missing); store the key again.');
        throw err;
      }
    }
    if (!key) throw notFound('Provider key not found.');
    const result = await checkProviderKey(provider, key, app.ctx.config);
    req.log.info({ provider, ok: result.ok, status: result.status, latency_ms: result.latencyMs }, 'provider key tried');
    const { latencyMs, ...rest } = result;
    return { ...rest, latency_ms: latencyMs, key_hint: maskSecret(key) };
  });
}
