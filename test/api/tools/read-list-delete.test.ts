import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantTools, tools } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { ISO_MICRO, validTool } from './helpers.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ max_tools: 100 });
  bob = await t.createUser({ max_tools: 100 });
});
afterAll(() => t.close());

async function createTool(user: TestUser, overrides: Record<string, unknown> = {}) {
  const res = await user.post('/api/user/tools', validTool(overrides));
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
}

const NOT_FOUND = { message: 'Tool nicht gefunden' };

describe('GET /api/user/tools', () => {
  it("is a bare array of the caller's tools, ascending by id, never another user's", async () => {
    const carol = await t.createUser();
    const dave = await t.createUser();
    expect(await carol.get('/api/user/tools')).toMatchObject({ status: 200, body: [] });
    const c1 = await createTool(carol, { name: 'first_tool' });
    const d1 = await createTool(dave, { name: 'dave_tool', headers: [{ name: 'X-Secret', value: 'dave-only' }] });
    const c2 = await createTool(carol, { name: 'second_tool' });
    const list = await carol.get('/api/user/tools');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body).toEqual([c1, c2]);
    expect(JSON.stringify(list.body)).not.toContain('dave-only');
    expect((await dave.get('/api/user/tools')).body).toEqual([d1]);
  });

  it('serves full tool objects with microsecond timestamps', async () => {
    const created = await createTool(alice, { headers: [{ name: 'X-A', value: '1' }] });
    const item = (await alice.get('/api/user/tools')).body.find((x: { id: number }) => x.id === created.id);
    expect(item).toEqual(created);
    expect(item.created_at).toMatch(ISO_MICRO);
    expect(item.updated_at).toMatch(ISO_MICRO);
  });

  it('needs a token', async () => {
    expect(await t.anonymous.get('/api/user/tools')).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
  });
});

describe('GET /api/user/tools/{id}', () => {
  it('answers the bare tool object', async () => {
    const created = await createTool(alice, { schema: [{ name: 'city', type: 'string', description: 'The city' }] });
    const res = await alice.get(`/api/user/tools/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it("answers another user's tool exactly like a missing one", async () => {
    const created = await createTool(alice);
    const foreign = await bob.get(`/api/user/tools/${created.id}`);
    const missing = await bob.get('/api/user/tools/2000000000');
    expect(foreign).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(missing).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(foreign.body).toEqual(missing.body);
  });

  it.each(['abc', '0', '-3', '1.0', '1e3', '2147483648', '99999999999'])('answers 404 Tool nicht gefunden for the id %j', async (id) => {
    expect(await alice.get(`/api/user/tools/${id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
  });
});

describe('DELETE /api/user/tools/{id}', () => {
  it('deletes the tool', async () => {
    const created = await createTool(alice);
    expect(await alice.delete(`/api/user/tools/${created.id}`)).toMatchObject({ status: 200, body: { message: 'Tool erfolgreich gelöscht' } });
    expect(await alice.get(`/api/user/tools/${created.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await alice.get('/api/user/tools')).body.map((x: { id: number }) => x.id)).not.toContain(created.id);
    expect(await alice.delete(`/api/user/tools/${created.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  it('detaches it from every assistant, leaving their other tools attached', async () => {
    const { db } = t.service.ctx.database;
    const doomed = await createTool(alice, { name: 'doomed' });
    const kept = await createTool(alice, { name: 'kept' });
    const a1 = await insertAssistant(t, alice.id);
    const a2 = await insertAssistant(t, alice.id);
    await db.insert(assistantTools).values([
      { assistantId: a1.id, toolId: doomed.id, position: 0 },
      { assistantId: a1.id, toolId: kept.id, position: 1 },
      { assistantId: a2.id, toolId: doomed.id, position: 0 },
    ]);
    expect((await alice.delete(`/api/user/tools/${doomed.id}`)).status).toBe(200);
    const left = await db.select().from(assistantTools).where(eq(assistantTools.toolId, doomed.id));
    expect(left).toEqual([]);
    const others = await db.select().from(assistantTools).where(and(eq(assistantTools.assistantId, a1.id), eq(assistantTools.toolId, kept.id)));
    expect(others).toHaveLength(1);
  });

  it("refuses another user's tool exactly like a missing one and leaves it in place", async () => {
    const created = await createTool(alice);
    expect(await bob.delete(`/api/user/tools/${created.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await alice.get(`/api/user/tools/${created.id}`)).status).toBe(200);
    const [row] = await t.service.ctx.database.db.select().from(tools).where(eq(tools.id, created.id));
    expect(row.userId).toBe(alice.id);
  });

  it.each(['abc', '0', '2147483648'])('answers 404 Tool nicht gefunden for the id %j', async (id) => {
    expect(await alice.delete(`/api/user/tools/${id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  it('needs a token', async () => {
    const created = await createTool(alice);
    expect(await t.anonymous.delete(`/api/user/tools/${created.id}`)).toMatchObject({ status: 401 });
    expect((await alice.get(`/api/user/tools/${created.id}`)).status).toBe(200);
  });
});

describe('a second user, on every operation', () => {
  it('sees none of the first user\'s tools and gets 404 on read, update and delete', async () => {
    const created = await createTool(alice, { name: 'alice_only' });
    const zed = await t.createUser();
    expect((await zed.get('/api/user/tools')).body).toEqual([]);
    expect(await zed.get(`/api/user/tools/${created.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await zed.put(`/api/user/tools/${created.id}`, { name: 'stolen' })).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await zed.delete(`/api/user/tools/${created.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await alice.get(`/api/user/tools/${created.id}`)).body).toEqual(created);
  });
});
