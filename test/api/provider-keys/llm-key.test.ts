/**
 * An account's own LLM key: an OpenAI-compatible chat server (here a local double speaking the
 * protocol) at the account's base URL. Stored with its base URL, tried with one real request,
 * guarded like tool endpoints (private addresses only with ALLOW_PRIVATE_TARGETS), and the
 * account's only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderCredentials } from '../../../src/accounts/provider-keys.js';
import { callEnginePart } from '../../../src/calls/index.js';
import { ChatDouble } from '../../support/doubles/chat.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const LLM_KEY = 'sk-alice-llm-key-0042';
let chat: ChatDouble;
/** A chat server without `GET /models` (404 there), answering completions. */
let bare: http.Server;
let bareBase: string;
const bareReceived: { method: string; url: string; body: string; authorization?: string }[] = [];
let t: TestService;
let guarded: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  chat = await new ChatDouble({ apiKey: LLM_KEY }).start();
  bare = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bareReceived.push({ method: req.method!, url: req.url!, body, authorization: req.headers.authorization });
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'length' }] }));
      } else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not Found' }));
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
  // Local doubles are private addresses: this deployment allows them (as development setups do).
  t = await startTestService({ parts: [callEnginePart], env: { SECRET_KEY: 'k'.repeat(40), ALLOW_PRIVATE_TARGETS: 'true' } });
  guarded = await startTestService({ env: { SECRET_KEY: 'k'.repeat(40) } });
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(async () => {
  await Promise.all([t.close(), guarded.close()]);
  await chat.close();
  await new Promise<void>((resolve) => bare.close(() => resolve()));
});

describe("an account's own LLM key", () => {
  it('is stored with its base URL, shown as a hint with the URL, and tried with GET /models', async () => {
    const put = await alice.put('/api/user/provider-keys/llm', { api_key: LLM_KEY, base_url: chat.baseUrl });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ provider: 'llm', key_hint: '••••0042', base_url: chat.baseUrl });
    const list = await alice.get('/api/user/provider-keys');
    expect(list.body.data).toEqual([{ provider: 'llm', key_hint: '••••0042', base_url: chat.baseUrl, created_at: expect.any(String), updated_at: expect.any(String) }]);

    const before = chat.received.length;
    const tried = await alice.post('/api/user/provider-keys/llm/test', {});
    expect(tried.status).toBe(200);
    expect(tried.body).toEqual({
      ok: true,
      provider: 'llm',
      checked: `GET ${chat.baseUrl}/models`,
      status: 200,
      message: 'The LLM server accepted the key (200 OK).',
      latency_ms: expect.any(Number),
      key_hint: '••••0042',
    });
    expect(chat.received.length).toBe(before + 1);
    expect(chat.received.at(-1)!.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
  });

  it("a refused key: the server's status and words, never the key", async () => {
    const wrong = 'sk-wrong-llm-key-7777';
    const res = await alice.post('/api/user/provider-keys/llm/test', { api_key: wrong });
    // Tried at the stored key's base URL.
    expect(res.body).toMatchObject({ ok: false, status: 401, checked: `GET ${chat.baseUrl}/models`, key_hint: '••••7777', message: 'The LLM server refused the key (401 Unauthorized): Incorrect API key provided.' });
    expect(JSON.stringify(res.body)).not.toContain(wrong);
  });

  it('a server without /models is asked for one token instead', async () => {
    const res = await alice.post('/api/user/provider-keys/llm/test', { api_key: 'sk-bare-server-key-1', base_url: bareBase });
    expect(res.body).toMatchObject({ ok: true, status: 200, checked: `POST ${bareBase}/chat/completions`, message: 'The LLM server accepted the key (200 OK).' });
    expect(bareReceived.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
    expect(JSON.parse(bareReceived[1].body)).toMatchObject({ max_tokens: 1, stream: false, model: 'gpt-4o-mini' });
    expect(bareReceived[1].authorization).toBe('Bearer sk-bare-server-key-1');
    // Trying a base URL does not store it.
    expect((await alice.get('/api/user/provider-keys')).body.data[0].base_url).toBe(chat.baseUrl);
  });

  it("makes the account's assistants think with it: its registry's LLM, and the talk panel is told it is not the stand-in", async () => {
    const own = await t.service.ctx.providers.forAccount(alice.id);
    expect(own.llm.standIn).toBe(false);
    expect((await alice.get('/api/user/web-calls/capabilities')).body.offline_llm).toBe(false);
    // Bob stored no LLM key: the deployment's (here none: the offline stand-in).
    expect((await t.service.ctx.providers.forAccount(bob.id)).llm.standIn).toBe(true);
    expect((await bob.get('/api/user/web-calls/capabilities')).body.offline_llm).toBe(true);
  });

  it('a second user sees and tries only their own', async () => {
    expect((await bob.get('/api/user/provider-keys')).body.data).toEqual([]);
    const res = await bob.post('/api/user/provider-keys/llm/test', {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Provider key not found.' });
    expect((await bob.delete('/api/user/provider-keys/llm')).status).toBe(404);
    expect((await alice.get('/api/user/provider-keys')).body.data).toHaveLength(1);
  });

  it('removing it puts the account back on the deployment LLM', async () => {
    expect((await alice.delete('/api/user/provider-keys/llm')).status).toBe(200);
    expect((await t.service.ctx.providers.forAccount(alice.id)).llm.standIn).toBe(true);
    expect((await alice.get('/api/user/web-calls/capabilities')).body.offline_llm).toBe(true);
  });
});

describe("an account's own speech-to-text key", () => {
  it("makes that account's browser calls spoken; another account's stay typed", async () => {
    // The deployment has no speech-to-text: every account's browser calls are typed until it adds a key.
    expect((await alice.get('/api/user/web-calls/capabilities')).body.speech).toBe(false);
    expect((await alice.put('/api/user/provider-keys/deepgram', { api_key: 'dg-alice-key-0001' })).status).toBe(200);
    expect((await alice.get('/api/user/web-calls/capabilities')).body.speech).toBe(true);
    expect((await bob.get('/api/user/web-calls/capabilities')).body.speech).toBe(false);
    expect((await alice.delete('/api/user/provider-keys/deepgram')).status).toBe(200);
    expect((await alice.get('/api/user/web-calls/capabilities')).body.speech).toBe(false);
  });
});

describe('base URLs that are refused', () => {
  it('not an http(s) URL, or a base URL for a speech vendor: 422 with the field', async () => {
    for (const base_url of ['not a url', 'ftp://llm.example.com/v1', 'file:///etc/passwd']) {
      const res = await alice.put('/api/user/provider-keys/llm', { api_key: LLM_KEY, base_url });
      expect(res.status, base_url).toBe(422);
      expect(res.body.errors.base_url).toEqual(['The base url field must be a valid URL.']);
    }
    const speech = await alice.put('/api/user/provider-keys/deepgram', { api_key: LLM_KEY, base_url: 'https://llm.example.com/v1' });
    expect(speech.status).toBe(422);
    expect(speech.body.errors.base_url).toEqual(['The base url field is only for the llm provider.']);
    expect((await alice.get('/api/user/provider-keys')).body.data).toEqual([]);
  });

  it('private and internal addresses without ALLOW_PRIVATE_TARGETS: 422 when stored, refused when tried; metadata addresses always', async () => {
    const carol = await guarded.createUser();
    const local = await carol.put('/api/user/provider-keys/llm', { api_key: LLM_KEY, base_url: chat.baseUrl });
    expect(local.status).toBe(422);
    expect(local.body.errors.base_url).toEqual(['The base url is not allowed: loopback address (this deployment does not call private or internal addresses).']);
    const metadata = await alice.put('/api/user/provider-keys/llm', { api_key: LLM_KEY, base_url: 'http://169.254.169.254/v1' });
    expect(metadata.status).toBe(422);
    expect(metadata.body.errors.base_url[0]).toMatch(/^The base url is not allowed: linkLocal address/);
    const before = chat.received.length;
    const tried = await carol.post('/api/user/provider-keys/llm/test', { api_key: LLM_KEY, base_url: chat.baseUrl });
    expect(tried.status).toBe(422);
    expect(chat.received.length).toBe(before);
    expect((await carol.get('/api/user/provider-keys')).body.data).toEqual([]);
  });

  it('a stored base URL that now points inside is refused at call time too: nothing is sent', async () => {
    // As if the host's address changed after the key was stored (the API would refuse it now).
    const dave = await guarded.createUser();
    await new ProviderCredentials(guarded.service.ctx.database.db, guarded.service.ctx.config).set(dave.id, 'llm', LLM_KEY, chat.baseUrl);
    const { llm } = await guarded.service.ctx.providers.forAccount(dave.id);
    const before = chat.received.length;
    const request = { model: 'gpt-4o-mini', temperature: 0, messages: [{ role: 'user' as const, content: 'Hello?' }], tools: [] };
    await expect(llm.complete(request)).rejects.toThrow("the account's LLM address is not allowed: Target " + chat.baseUrl + ' is not allowed: loopback address');
    await expect(llm.extract({ ...request, schema: { type: 'object' } })).rejects.toThrow('loopback address');
    expect(chat.received.length).toBe(before);
  });
});
