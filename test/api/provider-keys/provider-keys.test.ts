/** A user's own speech-provider keys: stored sealed, shown as hints, used for that user's calls, never another's. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnreadableProviderKeysError } from '../../../src/accounts/provider-keys.js';
import { providerCredentials } from '../../../src/db/schema.js';
import { AccountProvidersUnavailableError } from '../../../src/providers/registry.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
const KEY = 'dg_secret_1234567890abcd';

beforeAll(async () => {
  t = await startTestService({ env: { SECRET_KEY: 'k'.repeat(40), TTS_BASE_URL: 'http://tts.internal:8880/v1', TTS_API_KEY: 'operator-key' } });
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t.close());

describe('provider keys', () => {
  it('stores a key sealed and shows only its last characters', async () => {
    const res = await alice.put('/api/user/provider-keys/deepgram', { api_key: KEY });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Provider key saved', data: { provider: 'deepgram', key_hint: '••••abcd' } });
    const [row] = await t.service.ctx.database.db.select().from(providerCredentials).where(eq(providerCredentials.userId, alice.id));
    expect(row.sealedKey.startsWith('v1:')).toBe(true);
    expect(row.sealedKey).not.toContain(KEY);
    const list = await alice.get('/api/user/provider-keys');
    expect(list.body.data).toEqual([{ provider: 'deepgram', key_hint: '••••abcd', base_url: null, created_at: expect.any(String), updated_at: expect.any(String) }]);
    expect(JSON.stringify(list.body)).not.toContain(KEY);
  });

  it("the account's key replaces the deployment's for that account only", async () => {
    const base = await t.service.ctx.providers.forAccount(bob.id);
    expect(base.stt.size).toBe(0);
    const own = await t.service.ctx.providers.forAccount(alice.id);
    expect([...own.stt.keys()]).toEqual(['deepgram']);
    // An OpenAI key does not go to the operator's own speech server: that keeps the operator's key.
    await alice.put('/api/user/provider-keys/openai', { api_key: 'sk-alice-0000000000' });
    const withOpenAi = await t.service.ctx.providers.forAccount(alice.id);
    expect([...withOpenAi.realtime.keys()]).toEqual(['openai']);
    expect((withOpenAi.tts.get('openai') as unknown as { url: string }).url).toBe('http://tts.internal:8880/v1/audio/speech');
  });

  it('replaces and removes a key; a removed key no longer counts', async () => {
    const again = await alice.put('/api/user/provider-keys/deepgram', { api_key: 'dg_other_key_99999999' });
    expect(again.body.data.key_hint).toBe('••••9999');
    expect((await alice.delete('/api/user/provider-keys/deepgram')).body).toEqual({ message: 'Provider key removed' });
    expect((await alice.delete('/api/user/provider-keys/deepgram')).status).toBe(404);
    const after = await t.service.ctx.providers.forAccount(alice.id);
    expect(after.stt.has('deepgram')).toBe(false);
  });

  it("a key SECRET_KEY cannot open is not replaced by the deployment's: the account's providers cannot be had", async () => {
    const carol = await t.createUser();
    // One key that opens, one that does not (sealed under another SECRET_KEY): neither half is used.
    await carol.put('/api/user/provider-keys/elevenlabs', { api_key: 'xi_carol_key_1234' });
    await t.service.ctx.database.db.insert(providerCredentials).values({ userId: carol.id, provider: 'deepgram', sealedKey: 'v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', keyHint: '••••AAAA' });
    const failed = await t.service.ctx.providers.forAccount(carol.id).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(AccountProvidersUnavailableError);
    expect((failed as Error).cause).toBeInstanceOf(UnreadableProviderKeysError);
    expect(((failed as Error).cause as UnreadableProviderKeysError).providers).toEqual(['deepgram']);
    // Once the key is stored again (it opens), the account's providers are back.
    expect((await carol.put('/api/user/provider-keys/deepgram', { api_key: KEY })).status).toBe(200);
    expect([...(await t.service.ctx.providers.forAccount(carol.id)).stt.keys()]).toEqual(['deepgram']);
  });

  it("a second user sees none of the first user's keys and cannot remove them", async () => {
    await alice.put('/api/user/provider-keys/elevenlabs', { api_key: 'xi_alice_key_5678' });
    expect((await bob.get('/api/user/provider-keys')).body.data).toEqual([]);
    expect((await bob.delete('/api/user/provider-keys/elevenlabs')).status).toBe(404);
    expect((await alice.get('/api/user/provider-keys')).body.data.map((k: { provider: string }) => k.provider)).toContain('elevenlabs');
  });

  it('refuses unknown providers (404) and keys that are not keys (422)', async () => {
    expect((await alice.put('/api/user/provider-keys/twilio', { api_key: KEY })).body).toEqual({ message: 'Provider not found.' });
    const bad = await alice.put('/api/user/provider-keys/deepgram', { api_key: 'has a space in it' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.api_key).toEqual(['The api key field format is invalid.']);
    expect((await alice.put('/api/user/provider-keys/deepgram', {})).body.errors.api_key).toEqual(['The api key field is required.']);
    expect((await alice.put('/api/user/provider-keys/deepgram', { api_key: 'short' })).status).toBe(422);
    expect((await t.anonymous.get('/api/user/provider-keys')).status).toBe(401);
  });
});
