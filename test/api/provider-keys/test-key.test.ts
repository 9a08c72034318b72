/**
 * Trying a provider key: one real request to the vendor's address (here local doubles speaking
 * the vendors' protocols), an answer in words, the caller's own key only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProviderKey } from '../../../src/providers/key-check.js';
import { ChatDouble } from '../../support/doubles/chat.js';
import { DeepgramDouble } from '../../support/doubles/deepgram.js';
import { ElevenLabsDouble } from '../../support/doubles/elevenlabs.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const OPENAI_KEY = 'sk-alice-good-key-0001';
let openai: ChatDouble;
let deepgram: DeepgramDouble;
let elevenlabs: ElevenLabsDouble;
let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  openai = await new ChatDouble({ apiKey: OPENAI_KEY }).start();
  deepgram = await new DeepgramDouble().start();
  elevenlabs = await new ElevenLabsDouble().start();
  t = await startTestService({
    env: { SECRET_KEY: 'k'.repeat(40), OPENAI_API_URL: openai.baseUrl, DEEPGRAM_URL: deepgram.url, ELEVENLABS_URL: elevenlabs.url },
  });
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(async () => {
  await t.close();
  await Promise.all([openai.close(), deepgram.close(), elevenlabs.close()]);
});

const tryKey = (user: TestUser, provider: string, body?: Record<string, unknown>) => user.post(`/api/user/provider-keys/${provider}/test`, body);

describe('trying a provider key', () => {
  it('tries the stored OpenAI key with GET /models and says it was accepted', async () => {
    await alice.put('/api/user/provider-keys/openai', { api_key: OPENAI_KEY });
    const before = openai.received.length;
    const res = await tryKey(alice, 'openai');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      provider: 'openai',
      checked: `GET ${openai.baseUrl}/models`,
      status: 200,
      message: 'OpenAI accepted the key (200 OK).',
      latency_ms: expect.any(Number),
      key_hint: '••••0001',
    });
    // Exactly one request, with the stored key as the bearer.
    expect(openai.received.length).toBe(before + 1);
    expect(openai.received.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it("a refused key: the vendor's status and words, never the key", async () => {
    const wrong = 'sk-wrong-key-99999999';
    const res = await tryKey(alice, 'openai', { api_key: wrong });
    expect(res.body).toMatchObject({ ok: false, status: 401, key_hint: '••••9999', message: 'OpenAI refused the key (401 Unauthorized): Incorrect API key provided.' });
    expect(JSON.stringify(res.body)).not.toContain(wrong);
    // A key in the body is tried, not stored.
    expect((await alice.get('/api/user/provider-keys')).body.data[0].key_hint).toBe('••••0001');
  });

  it('Deepgram (GET /v1/projects on the listen host) and ElevenLabs (GET /v1/user)', async () => {
    await alice.put('/api/user/provider-keys/deepgram', { api_key: deepgram.knobs.apiKey });
    const dg = await tryKey(alice, 'deepgram');
    expect(dg.body).toMatchObject({ ok: true, status: 200, checked: `GET ${deepgram.url.replace('ws:', 'http:').replace('/v1/listen', '/v1/projects')}` });
    const dgWrong = await tryKey(alice, 'deepgram', { api_key: 'dg-not-the-key' });
    expect(dgWrong.body).toMatchObject({ ok: false, status: 401, message: 'Deepgram refused the key (401 Unauthorized): Invalid credentials.' });
    const el = await tryKey(alice, 'elevenlabs', { api_key: elevenlabs.knobs.apiKey });
    expect(el.body).toMatchObject({ ok: true, status: 200, checked: `GET ${elevenlabs.url.replace('ws:', 'http:')}/v1/user` });
    const elWrong = await tryKey(alice, 'elevenlabs', { api_key: 'el-not-the-key' });
    expect(elWrong.body).toMatchObject({ ok: false, status: 401, message: 'ElevenLabs refused the key (401 Unauthorized): Invalid API key' });
  });

  it("a second user tries only their own keys: none stored is 404, and a key in the body is B's", async () => {
    const res = await tryKey(bob, 'openai');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Provider key not found.' });
    const before = openai.received.length;
    const own = await tryKey(bob, 'openai', { api_key: 'sk-bob-own-key-4242' });
    expect(own.body).toMatchObject({ ok: false, status: 401, key_hint: '••••4242' });
    expect(openai.received.length).toBe(before + 1);
    expect(openai.received.at(-1)!.headers.authorization).toBe('Bearer sk-bob-own-key-4242');
  });

  it('refuses unknown providers (404) and keys that are not keys (422); needs a token (401)', async () => {
    expect((await tryKey(alice, 'twilio')).body).toEqual({ message: 'Provider not found.' });
    const bad = await tryKey(alice, 'openai', { api_key: 'has a space in it' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.api_key).toEqual(['The api key field format is invalid.']);
    expect((await tryKey(alice, 'openai', { api_key: 42 })).status).toBe(422);
    expect((await t.anonymous.post('/api/user/provider-keys/openai/test', {})).status).toBe(401);
  });
});

describe('what a failed try says', () => {
  it('an address where nothing listens: could not reach it (connection refused)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await startTestService({ env: { SECRET_KEY: 'k'.repeat(40), OPENAI_API_URL: `http://127.0.0.1:${port}/v1` } });
    try {
      const carol = await unreachable.createUser();
      const res = await carol.post('/api/user/provider-keys/openai/test', { api_key: OPENAI_KEY });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, checked: `GET http://127.0.0.1:${port}/v1/models`, message: `Could not reach http://127.0.0.1:${port}/v1/models (connection refused).` });
      expect(res.body.status).toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });

  it('a vendor that does not answer: timed out (the limit is 10 s; shortened here)', async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    try {
      const res = await checkProviderKey('openai', OPENAI_KEY, { OPENAI_API_URL: base, DEEPGRAM_URL: 'ws://x', ELEVENLABS_URL: 'ws://x' }, { timeoutMs: 300 });
      expect(res).toMatchObject({ ok: false, message: `No answer from ${base}/models: timed out after 0.3 s.` });
      expect(res.latencyMs).toBeGreaterThanOrEqual(250);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
