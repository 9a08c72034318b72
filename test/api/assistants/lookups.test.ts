/**
 * The older assistant list `GET /api/user/assistants` (a bare array of the caller's records)
 * and the provider lookups behind `synthesizer_provider_id` / `transcriber_provider_id` (issue 20).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const SYNTHESIZERS = [
  { id: 1, name: 'Local (eSpeak NG)', code: 'local' },
  { id: 2, name: 'ElevenLabs', code: 'elevenlabs' },
  { id: 3, name: 'OpenAI', code: 'openai' },
];
const TRANSCRIBERS = [
  { id: 1, name: 'Deepgram', code: 'deepgram' },
  { id: 2, name: 'OpenAI', code: 'openai' },
];

describe('GET /api/user/assistants', () => {
  it("is a bare array of the caller's live assistants, oldest first, each the full record", async () => {
    const a = (await alice.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'First' })).body.data;
    const b = (await alice.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Second', calls_direction: 'receive' })).body.data;
    const gone = (await alice.post('/api/user/assistant', minimalCreate)).body.data;
    await alice.delete(`/api/user/assistant/${gone.id}`);
    await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Bob’s' });

    const res = await alice.get('/api/user/assistants');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
    expect(res.body[0]).toEqual((await alice.get(`/api/user/assistant/${a.id}`)).body.data);

    const bobs = await bob.get('/api/user/assistants');
    expect(bobs.body.map((x: { name: string }) => x.name)).toEqual(['Bob’s']);
    expect((await t.anonymous.get('/api/user/assistants')).status).toBe(401);
  });

  it('is an empty array for a user without assistants', async () => {
    const carol = await t.createUser({ name: 'Carol' });
    const res = await carol.get('/api/user/assistants');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('provider lookups', () => {
  it.each([
    ['synthesizer-providers', SYNTHESIZERS],
    ['transcriber-providers', TRANSCRIBERS],
  ])('%s lists [{id, name, code}] of the adapters the voice core has, filtered by language_id', async (path, all) => {
    const url = `/api/user/assistants/${path}`;
    expect((await alice.get(url)).body).toEqual(all);
    const languages = (await alice.get('/api/user/assistants/languages')).body as { id: number; name: string }[];
    const german = languages.find((l) => l.name === 'German')!;
    expect((await alice.get(`${url}?language_id=${german.id}`)).body).toEqual(all);
    expect((await alice.get(`${url}?language_id=99999`)).body).toEqual([]);
    const bad = await alice.get(`${url}?language_id=abc`);
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ language_id: ['The language id field must be an integer.'] });
    expect((await t.anonymous.get(url)).status).toBe(401);
  });

  it('do not collide with the assistant routes', async () => {
    expect((await alice.get('/api/user/assistants/get')).body.data).toBeDefined();
    expect((await alice.get('/api/user/assistants/outbound')).status).toBe(200);
    expect((await alice.get('/api/user/assistant/synthesizer-providers')).status).toBe(404);
  });
});

describe('synthesizer_provider_id and transcriber_provider_id on an assistant', () => {
  it.each([
    ['synthesizer_provider_id', 'synthesizer provider id', 3],
    ['transcriber_provider_id', 'transcriber provider id', 2],
  ])('%s selects among the lookup (edges; null clears)', async (field, words, last) => {
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, [field]: 1 });
    expect(created.status).toBe(201);
    expect(created.body.data[field]).toBe(1);
    const id = created.body.data.id;
    const read = async () => (await alice.get(`/api/user/assistant/${id}`)).body.data[field];

    expect((await alice.put(`/api/user/assistant/${id}`, { [field]: last })).status).toBe(200);
    expect(await read()).toBe(last);
    expect((await alice.put(`/api/user/assistant/${id}`, { [field]: String(last) })).status).toBe(200);
    for (const [value, message] of [
      [last + 1, `The selected ${words} is invalid.`],
      [0, `The selected ${words} is invalid.`],
      ['x', `The ${words} field must be an integer.`],
    ] as const) {
      const res = await alice.put(`/api/user/assistant/${id}`, { [field]: value });
      expect(res.status, String(value)).toBe(422);
      expect(res.body.errors).toEqual({ [field]: [message] });
    }
    expect(await read()).toBe(last);
    expect((await alice.put(`/api/user/assistant/${id}`, { [field]: null })).status).toBe(200);
    expect(await read()).toBeNull();
  });
});
