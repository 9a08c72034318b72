/**
 * A user's own provider keys (issue 19): speech vendors' keys, and an `llm` key with the base
 * URL of an OpenAI-compatible chat server. Stored sealed, used for that user's calls instead of
 * the deployment's, shown only as a hint. Routes are the user's; an admin acts as the user with
 * one of their tokens. A base URL goes through the outbound guard (ALLOW_PRIVATE_TARGETS) when
 * stored and when tried.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DEFAULT_MODEL } from '../../calls/call-settings.js';
import { isoMicro } from '../../db/time.js';
import { BlockedTargetError, checkTarget } from '../../lib/outbound.js';
import { maskSecret } from '../../lib/secrets.js';
import { checkProviderKey } from '../../providers/key-check.js';
import { fieldError, HttpError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { ProviderCredentials, UnreadableProviderKeysError, type StoredKey } from '../../accounts/provider-keys.js';
import { keyCheckSchema, providerParam, setKeyBody, storedKeySchema, testKeyBody } from './schemas.js';

const tags = ['provider keys'];

export async function providerKeyRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { config } = app.ctx;
  const credentials = new ProviderCredentials(app.ctx.database.db, config);
  /** An `llm` key without a base URL talks to OpenAI's API (as the deployment names it). */
  const llmBase = (stored: string | null) => stored ?? config.OPENAI_API_URL;
  const serialize = (k: StoredKey) => ({
    provider: k.provider,
    key_hint: k.keyHint,
    base_url: k.provider === 'llm' ? llmBase(k.baseUrl) : null,
    created_at: isoMicro(k.createdAt)!,
    updated_at: isoMicro(k.updatedAt)!,
  });
  /**
   * A base URL the user gave: only for `llm`, and not an address the guard refuses (a host that
   * does not resolve now may later: its calls and its test say so then).
   */
  const checkBaseUrl = async (provider: string, baseUrl: string | undefined) => {
    if (baseUrl === undefined) return;
    if (provider !== 'llm') throw fieldError('base_url', 'The base url field is only for the llm provider.');
    try {
      await checkTarget(baseUrl, config.ALLOW_PRIVATE_TARGETS);
    } catch (err) {
      if (err instanceof BlockedTargetError) throw fieldError('base_url', `The base url is not allowed: ${err.message.replace(/^Target .* is not allowed: /, '')} (this deployment does not call private or internal addresses).`);
      // Not resolvable now: it may be later.
    }
  };

  r.get('/api/user/provider-keys', {
    schema: { tags, summary: "The caller's own speech-provider keys (hints only)", response: { 200: z.object({ data: z.array(storedKeySchema) }) } },
  }, async (req) => ({ data: (await credentials.list(req.user.id)).map(serialize) }));

  r.put('/api/user/provider-keys/:provider', {
    schema: {
      tags,
      summary: "Store (or replace) the caller's key for deepgram, elevenlabs, llm or openai; the caller's calls use it from now on",
      description:
        "`llm` is an OpenAI-compatible chat server (`base_url`, default the deployment's OPENAI_API_URL): the caller's assistants think with it instead of the deployment's LLM (or the offline stand-in) in every call, browser call and test run. The other providers are speech vendors.",
      params: providerParam,
      body: setKeyBody,
      response: { 200: z.object({ message: z.string(), data: storedKeySchema }), 422: validationSchema, 503: messageSchema },
    },
    config: { notFoundMessage: 'Provider not found.' },
  }, async (req) => {
    await checkBaseUrl(req.params.provider, req.body.base_url);
    const stored = await credentials.set(req.user.id, req.params.provider, req.body.api_key, req.body.base_url ?? null);
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
      summary: 'Try a key with one real, read-only request to the vendor (OpenAI and LLM servers `GET /models`, Deepgram `GET /v1/projects`, ElevenLabs `GET /v1/user`)',
      description:
        "Tries the caller's stored key, or the `api_key` in the body (not stored) to check a key before saving it. The request goes where the deployment sends that vendor's traffic (`OPENAI_API_URL`, `DEEPGRAM_URL`'s host, `ELEVENLABS_URL`'s host) and gives up after 10 s. The answer is 200 whether the vendor accepted the key or not: `ok` says which, `message` says what failed in words. One request per call, never retried; except `llm`: its request goes to the key's `base_url` (or the one in the body), and a server that answers 404 or 405 there (no model list) is asked for one token with `POST {base_url}/chat/completions` instead.",
      params: providerParam,
      body: testKeyBody,
      response: { 200: keyCheckSchema, 404: messageSchema, 409: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Provider not found.' },
  }, async (req) => {
    const provider = req.params.provider;
    await checkBaseUrl(provider, req.body?.base_url);
    let key = req.body?.api_key ?? null;
    let baseUrl = req.body?.base_url ?? null;
    if (!key || (provider === 'llm' && !baseUrl)) {
      try {
        const stored = await credentials.keyFor(req.user.id, provider);
        // A key in the body without a base URL is tried at the stored key's base URL.
        key ??= stored?.apiKey ?? null;
        baseUrl ??= stored?.baseUrl ?? null;
      } catch (err) {
        if (err instanceof UnreadableProviderKeysError && key) {
          /* a key in the body is tried at the default base URL */
        } else if (err instanceof UnreadableProviderKeysError) throw new HttpError(409, 'The stored key cannot be opened with this deployment\'s SECRET_KEY (it changed or is missing); store the key again.');
        else throw err;
      }
    }
    if (!key) throw notFound('Provider key not found.');
    // The operator's OPENAI_API_URL is trusted as the 'openai' key's is; a user's base URL is guarded.
    const llm = provider === 'llm' ? { baseUrl: llmBase(baseUrl), allowPrivate: baseUrl === null || config.ALLOW_PRIVATE_TARGETS, model: DEFAULT_MODEL } : undefined;
    const result = await checkProviderKey(provider, key, config, { llm });
    req.log.info({ provider, ok: result.ok, status: result.status, latency_ms: result.latencyMs }, 'provider key tried');
    const { latencyMs, ...rest } = result;
    return { ...rest, latency_ms: latencyMs, key_hint: maskSecret(key) };
  });
}
