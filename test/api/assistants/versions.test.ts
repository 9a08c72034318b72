/** Assistant versions: every change numbered, compared field by field, restored; calls record theirs. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { assistants, tools } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}): Promise<number> {
  const res = await alice.post('/api/user/assistant', { ...minimalCreate, system_prompt: 'Be brief.', ...body });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const versions = (id: number, who: TestUser = alice) => who.get(`/api/user/assistants/${id}/versions`);

describe('versions of an assistant', () => {
  it('numbers every change with who, from which client and what changed, newest first', async () => {
    const id = await create();
    const put = await alice.request('PUT', `/api/user/assistant/${id}`, { system_prompt: 'Be warm.', max_call_duration: 300 }, { 'X-Switchboard-Client': 'dashboard' });
    expect(put.status).toBe(200);

    const list = await versions(id);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    const [second, first] = list.body.data;
    expect(first).toMatchObject({ number: 1, action: 'create', author: 'Alice', via: 'api', restored_from: null, changed_fields: [] });
    expect(second).toMatchObject({ number: 2, action: 'update', author: 'Alice', via: 'dashboard' });
    expect(second.changed_fields.sort()).toEqual(['max_duration', 'system_prompt']);

    const read = await alice.get(`/api/user/assistants/${id}/versions/2`);
    expect(read.status).toBe(200);
    expect(read.body.data.compared_to).toBe(1);
    expect(read.body.data.record.system_prompt).toBe('Be warm.');
    expect(read.body.data.changes).toEqual(
      expect.arrayContaining([
        { field: 'system_prompt', before: 'Be brief.', after: 'Be warm.' },
        { field: 'max_duration', before: 600, after: 300 },
      ]),
    );
    // The first version has nothing before it; compare_to names another one.
    expect((await alice.get(`/api/user/assistants/${id}/versions/1`)).body.data).toMatchObject({ compared_to: null, changes: [] });
    const backwards = await alice.get(`/api/user/assistants/${id}/versions/1?compare_to=2`);
    expect(backwards.body.data.changes).toContainEqual({ field: 'system_prompt', before: 'Be warm.', after: 'Be brief.' });
  });

  it('restores a version as a new one, through the update rules', async () => {
    const id = await create();
    await alice.put(`/api/user/assistant/${id}`, { system_prompt: 'Changed.' });
    const res = await alice.post(`/api/user/assistants/${id}/versions/1/restore`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Assistant restored to version 1', data: { id, version: 3, restored_from: 1 } });
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data.system_prompt).toBe('Be brief.');
    const list = await versions(id);
    expect(list.body.data[0]).toMatchObject({ number: 3, action: 'restore', restored_from: 1, changed_fields: ['system_prompt'] });
  });

  it('versions backchannel_words: a change is listed and compared, a restore brings the old words back', async () => {
    const id = await create({ backchannel_words: ['jo'] });
    expect((await alice.put(`/api/user/assistant/${id}`, { backchannel_words: ['jo', 'passt'] })).status).toBe(200);
    const [second] = (await versions(id)).body.data;
    expect(second).toMatchObject({ number: 2, changed_fields: ['backchannel_words'] });
    const read = await alice.get(`/api/user/assistants/${id}/versions/2`);
    expect(read.body.data.changes).toEqual([{ field: 'backchannel_words', before: ['jo'], after: ['jo', 'passt'] }]);
    expect((await alice.post(`/api/user/assistants/${id}/versions/1/restore`)).status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data.backchannel_words).toEqual(['jo']);
  });

  it('refuses to restore a version whose tool is gone since, and changes nothing', async () => {
    const tool = await insertTool(t, alice.id, 'check_calendar');
    const id = await create({ tool_ids: [tool.id] });
    await alice.put(`/api/user/assistant/${id}`, { tool_ids: [] });
    await t.service.ctx.database.db.delete(tools).where(eq(tools.id, tool.id));
    const res = await alice.post(`/api/user/assistants/${id}/versions/1/restore`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toContain('tool_ids.0');
    expect((await versions(id)).body.total).toBe(2);
  });

  it('brings back a Cal.com key that was replaced since (the record only shows it masked)', async () => {
    const cal = (key: string) => ({ type: 'calendar_integration', calcom_api_key: key, calcom_event_slug: 'intro' });
    const id = await create({ tools: [cal('cal_live_first_key_0000AAAA')] });
    const sealedKey = async () => {
      const [row] = await t.service.ctx.database.db.select({ b: assistants.builtinTools }).from(assistants).where(eq(assistants.id, id));
      return (row.b[0].data as { calcom_api_key_sealed: string }).calcom_api_key_sealed;
    };
    const first = await sealedKey();
    await alice.put(`/api/user/assistant/${id}`, { tools: [cal('cal_live_second_key_000BBBB')] });
    expect(await sealedKey()).not.toBe(first);
    expect((await alice.post(`/api/user/assistants/${id}/versions/1/restore`)).status).toBe(200);
    expect(await sealedKey()).toBe(first);
  });

  it('keeps the state before the first change of an assistant made before versions existed', async () => {
    const legacy = await insertAssistant(t, alice.id, { systemPrompt: 'Old prompt.' });
    expect((await versions(legacy.id)).body.total).toBe(0);
    await alice.put(`/api/user/assistant/${legacy.id}`, { system_prompt: 'New prompt.' });
    const list = await versions(legacy.id);
    expect(list.body.data.map((v: { number: number; action: string }) => [v.number, v.action])).toEqual([[2, 'update'], [1, 'baseline']]);
    expect((await alice.get(`/api/user/assistants/${legacy.id}/versions/1`)).body.data.record.system_prompt).toBe('Old prompt.');
  });

  it('records the webhook switches', async () => {
    const id = await create();
    const res = await alice.post('/api/user/assistants/disable-webhook', { assistant_id: id });
    expect(res.status).toBe(200);
    expect((await versions(id)).body.data[0]).toMatchObject({ number: 2, action: 'webhook' });
  });

  it('is recorded by a call: the version the assistant had when the call was placed', async () => {
    const id = await create();
    await alice.put(`/api/user/assistant/${id}`, { system_prompt: 'Version two.' });
    const call = await alice.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: id });
    expect(call.status).toBe(200);
    const callId = call.body.call_id;
    await t.service.ctx.services.callEngine!.whenFinished(callId);
    const turns = await alice.get(`/api/user/calls/${callId}/turns`);
    expect(turns.status).toBe(200);
    expect(turns.body.assistant_version).toBe(2);
  });

  it('answers 404 for a version that does not exist, and 422 for a bad page', async () => {
    const id = await create();
    expect(await alice.get(`/api/user/assistants/${id}/versions/9`)).toMatchObject({ status: 404, body: { message: 'Version not found' } });
    expect(await alice.get(`/api/user/assistants/${id}/versions/x`)).toMatchObject({ status: 404, body: { message: 'Version not found' } });
    expect(await alice.get(`/api/user/assistants/${id}/versions/1?compare_to=7`)).toMatchObject({ status: 404 });
    expect((await alice.post(`/api/user/assistants/${id}/versions/9/restore`)).status).toBe(404);
    expect((await alice.get(`/api/user/assistants/${id}/versions?per_page=500`)).status).toBe(422);
  });
});

describe('a second user', () => {
  it("neither lists, reads nor restores Alice's versions", async () => {
    const id = await create();
    await alice.put(`/api/user/assistant/${id}`, { system_prompt: 'Secret prompt.' });
    for (const res of [
      await versions(id, bob),
      await bob.get(`/api/user/assistants/${id}/versions/1`),
      await bob.post(`/api/user/assistants/${id}/versions/1/restore`),
    ]) {
      expect(res).toMatchObject({ status: 404, body: { message: 'Assistant not found' } });
    }
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data.system_prompt).toBe('Secret prompt.');
  });
});
