/** Rules that need the database: voice, phone number, tools, webhook state (spec 3.5, 4.9; CONTRACT §7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, insertVoice, minimalCreate, MULTIMODAL_VOICE, PIPELINE_VOICE } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const create = async (user: TestUser, body: Record<string, unknown> = {}) => {
  const res = await user.post('/api/user/assistant', { ...minimalCreate, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as Record<string, any>;
};
const read = async (user: TestUser, id: number) => (await user.get(`/api/user/assistant/${id}`)).body.data;

describe('voice_id', () => {
  it('accepts a public voice and the caller\'s own voice, not another user\'s', async () => {
    const own = await insertVoice(t, alice.id, 'pipeline');
    const bobs = await insertVoice(t, bob.id, 'pipeline');
    expect((await alice.post('/api/user/assistant', { ...minimalCreate, voice_id: own.id })).status).toBe(201);
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, voice_id: bobs.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ voice_id: ['The selected voice id is invalid.'] });
    const a = await create(alice);
    expect((await alice.put(`/api/user/assistant/${a.id}`, { voice_id: bobs.id })).status).toBe(422);
    expect((await read(alice, a.id)).voice_id).toBe(PIPELINE_VOICE);
  });

  it('must match the assistant\'s mode, on create and on update', async () => {
    let res = await alice.post('/api/user/assistant', { ...minimalCreate, engine_type: 'multimodal' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ voice_id: ['The selected voice id is not available for the multimodal mode.'] });
    const m = await create(alice, { engine_type: 'multimodal', voice_id: MULTIMODAL_VOICE });
    expect(m.mode).toBe('multimodal');
    // the stored voice does not fit a new mode
    res = await alice.put(`/api/user/assistant/${m.id}`, { engine_type: 'pipeline' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ engine_type: ["The engine type field does not match the mode of the assistant's voice (multimodal)."] });
    // changing both together is fine
    res = await alice.put(`/api/user/assistant/${m.id}`, { engine_type: 'pipeline', voice_id: PIPELINE_VOICE });
    expect(res.status).toBe(200);
    expect(res.body.data.mode).toBe('pipeline');
  });
});

describe('phone_number_id', () => {
  it('must be the caller\'s number; null unassigns', async () => {
    const bobsNumber = await t.addPhoneNumber(bob.id);
    const mine = await t.addPhoneNumber(alice.id);
    let res = await alice.post('/api/user/assistant', { ...minimalCreate, phone_number_id: bobsNumber.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ phone_number_id: ['The selected phone number id is invalid.'] });
    const a = await create(alice, { phone_number_id: mine.id });
    expect(a.phone_number_id).toBe(mine.id);
    res = await alice.put(`/api/user/assistant/${a.id}`, { phone_number_id: bobsNumber.id });
    expect(res.status).toBe(422);
    res = await alice.put(`/api/user/assistant/${a.id}`, { phone_number_id: null });
    expect(res.status).toBe(200);
    expect((await read(alice, a.id)).phone_number_id).toBeNull();
  });

  it('an inbound assistant\'s number is exclusive; outbound assistants may share and keep it available', async () => {
    const n = await t.addPhoneNumber(alice.id);
    const out1 = await create(alice, { phone_number_id: n.id });
    const out2 = await create(alice, { phone_number_id: n.id });
    expect([out1.phone_number_id, out2.phone_number_id]).toEqual([n.id, n.id]);
    const inbound = await create(alice, { calls_direction: 'receive', phone_number_id: n.id });
    expect(inbound.type).toBe('inbound');
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive', phone_number_id: n.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ phone_number_id: ['The selected phone number id is already assigned to an inbound assistant.'] });
    // re-sending its own number is fine
    expect((await alice.put(`/api/user/assistant/${inbound.id}`, { phone_number_id: n.id })).status).toBe(200);
    // an outbound assistant holding the number cannot turn inbound while the number is taken; the error names the field sent
    const turn = await alice.put(`/api/user/assistant/${out1.id}`, { calls_direction: 'receive' });
    expect(turn.status).toBe(422);
    expect(turn.body.errors).toEqual({ calls_direction: ['The selected phone number id is already assigned to an inbound assistant.'] });
    expect((await read(alice, out1.id)).type).toBe('outbound');
    // released by unassigning, then the other one may take it
    expect((await alice.put(`/api/user/assistant/${inbound.id}`, { phone_number_id: null })).status).toBe(200);
    expect((await alice.put(`/api/user/assistant/${out1.id}`, { calls_direction: 'receive' })).status).toBe(200);
  });

  it('never gives an inbound assistant a Caller ID number', async () => {
    const cid = await t.addPhoneNumber(alice.id, undefined, 'Caller ID');
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive', phone_number_id: cid.id });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ phone_number_id: ['The phone number id field must not be a Caller ID number for an inbound assistant.'] });
    // an outbound assistant may use it as its caller ID
    await create(alice, { phone_number_id: cid.id });
  });

  it('two concurrent creates cannot both take one inbound number', async () => {
    const n = await t.addPhoneNumber(alice.id);
    const body = { ...minimalCreate, calls_direction: 'receive', phone_number_id: n.id };
    const results = await Promise.all([1, 2, 3, 4].map(() => alice.post('/api/user/assistant', body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) {
      expect(r.body.errors).toEqual({ phone_number_id: ['The selected phone number id is already assigned to an inbound assistant.'] });
    }
  });
});

describe('tool_ids', () => {
  it('replaces all assignments, [] removes all, another user\'s tool → 422 and nothing changes', async () => {
    const t1 = await insertTool(t, alice.id, 'one');
    const t2 = await insertTool(t, alice.id, 'two');
    const t3 = await insertTool(t, alice.id, 'three');
    const foreign = await insertTool(t, bob.id, 'bobs_tool');
    const a = await create(alice, { tool_ids: [t1.id, t2.id] });
    expect(a.tool_ids).toEqual([t1.id, t2.id]);
    expect((await alice.put(`/api/user/assistant/${a.id}`, { tool_ids: [t3.id, t1.id, t3.id] })).status).toBe(200);
    expect((await read(alice, a.id)).tool_ids).toEqual([t3.id, t1.id]);
    const res = await alice.put(`/api/user/assistant/${a.id}`, { tool_ids: [t2.id, foreign.id], assistant_name: 'Nope' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'tool_ids.1': ['The selected tool_ids.1 is invalid.'] });
    const after = await read(alice, a.id);
    expect(after.tool_ids).toEqual([t3.id, t1.id]);
    expect(after.name).toBe('Support');
    expect((await alice.put(`/api/user/assistant/${a.id}`, { tool_ids: [] })).status).toBe(200);
    expect((await read(alice, a.id)).tools).toEqual([]);
  });

  it('a tool deleted elsewhere disappears from the record', async () => {
    const tool = await insertTool(t, alice.id, 'temp');
    const a = await create(alice, { tool_ids: [tool.id] });
    await t.service.ctx.database.pool.query('delete from tools where id = $1', [tool.id]);
    expect((await read(alice, a.id)).tool_ids).toEqual([]);
  });
});

describe('webhook state on update (spec 3.5)', () => {
  it('true with a URL activates; false disables and keeps the URL; null URL disables', async () => {
    const a = await create(alice);
    let res = await alice.put(`/api/user/assistant/${a.id}`, { is_webhook_active: true, webhook_url: 'https://hooks.example.test/a' });
    expect(res.status).toBe(200);
    expect(await read(alice, a.id)).toMatchObject({ is_webhook_active: true, webhook_url: 'https://hooks.example.test/a' });
    res = await alice.put(`/api/user/assistant/${a.id}`, { is_webhook_active: false });
    expect(await read(alice, a.id)).toMatchObject({ is_webhook_active: false, webhook_url: 'https://hooks.example.test/a' });
    // true again without a URL in the request uses the stored one
    res = await alice.put(`/api/user/assistant/${a.id}`, { is_webhook_active: true });
    expect(res.status).toBe(200);
    expect(await read(alice, a.id)).toMatchObject({ is_webhook_active: true, webhook_url: 'https://hooks.example.test/a' });
    res = await alice.put(`/api/user/assistant/${a.id}`, { webhook_url: null });
    expect(await read(alice, a.id)).toMatchObject({ is_webhook_active: false, webhook_url: null });
  });

  it('true without any URL → 422 on webhook_url, nothing changes', async () => {
    const a = await create(alice);
    let res = await alice.put(`/api/user/assistant/${a.id}`, { is_webhook_active: true, assistant_name: 'Changed' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Validation failed',
      errors: { webhook_url: ['The webhook url field is required when is webhook active is true.'] },
    });
    expect((await read(alice, a.id)).name).toBe('Support');
    res = await alice.put(`/api/user/assistant/${a.id}`, { is_webhook_active: true, webhook_url: null });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['webhook_url']);
    res = await alice.post('/api/user/assistant', { ...minimalCreate, is_webhook_active: true });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['webhook_url']);
  });

  it('a URL alone is stored without changing the active flag', async () => {
    const a = await create(alice);
    await alice.put(`/api/user/assistant/${a.id}`, { webhook_url: 'https://hooks.example.test/b' });
    expect(await read(alice, a.id)).toMatchObject({ is_webhook_active: false, webhook_url: 'https://hooks.example.test/b' });
  });
});

describe('language and LLM model names', () => {
  it('accept names from the reference lists only', async () => {
    const langs = (await alice.get('/api/user/assistants/languages')).body as { id: number; name: string }[];
    const models = (await alice.get('/api/user/assistants/models')).body as { id: number; name: string }[];
    const last = langs[langs.length - 1];
    const model = models[models.length - 1];
    const a = await create(alice, { language: last.name, llm_model: model.name });
    expect(a).toMatchObject({ language: last.name, language_id: last.id, llm_model_id: model.id });
  });
});
