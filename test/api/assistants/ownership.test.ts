/** A second user sees none of the first user's assistants and cannot use their numbers, voices or tools. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, insertVoice, minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let aliceAssistant: Record<string, any>;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const res = await alice.post('/api/user/assistant', { ...minimalCreate, is_webhook_active: true, webhook_url: 'https://hooks.example.test/a' });
  aliceAssistant = res.body.data;
  await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: aliceAssistant.id, webhook_url: 'https://hooks.example.test/in' });
  aliceAssistant = (await alice.get(`/api/user/assistant/${aliceAssistant.id}`)).body.data;
});
afterAll(() => t.close());

const notFound = { status: 404, body: { message: 'Assistant not found' } };

describe('a second user', () => {
  it('gets 404 "Assistant not found" on read, update and delete, exactly like a missing id', async () => {
    const id = aliceAssistant.id;
    const missing = 999999;
    for (const target of [id, missing]) {
      const get = await bob.get(`/api/user/assistant/${target}`);
      const put = await bob.put(`/api/user/assistant/${target}`, { assistant_name: 'Stolen' });
      const del = await bob.delete(`/api/user/assistant/${target}`);
      expect(get).toMatchObject(notFound);
      expect(put).toMatchObject(notFound);
      expect(del).toMatchObject(notFound);
      expect(get.body).toEqual({ message: 'Assistant not found' });
      expect(put.body).toEqual({ message: 'Assistant not found' });
    }
    // the id is checked before the body: an invalid body to another user's assistant is a 404 too
    for (const body of [{ is_webhook_active: true }, { speech_speed: 5 }, { name: 'a', assistant_name: 'b' }, { voice_id: 'x' }]) {
      expect(await bob.put(`/api/user/assistant/${id}`, body), JSON.stringify(body)).toMatchObject(notFound);
      expect(await bob.put(`/api/user/assistant/${missing}`, body), JSON.stringify(body)).toMatchObject(notFound);
    }
    expect(await bob.put('/api/user/assistant/abc', { speech_speed: 5 })).toMatchObject(notFound);
    expect(await bob.put('/api/user/assistant/99999999999', { speech_speed: 5 })).toMatchObject(notFound);
  });

  it('gets 404 on every webhook switch of the first user\'s assistant', async () => {
    const id = aliceAssistant.id;
    expect(await bob.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id, webhook_url: 'https://evil.example.test' })).toMatchObject(notFound);
    expect(await bob.post('/api/user/assistants/disable-webhook', { assistant_id: id })).toMatchObject(notFound);
    expect(await bob.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: id })).toMatchObject(notFound);
  });

  it('left the first user\'s assistant untouched', async () => {
    expect((await alice.get(`/api/user/assistant/${aliceAssistant.id}`)).body.data).toEqual(aliceAssistant);
  });

  it('does not see it in either list', async () => {
    expect((await bob.get('/api/user/assistants/get')).body).toMatchObject({ total: 0, data: [] });
    expect((await bob.get('/api/user/assistants/outbound')).body).toEqual([]);
    expect((await alice.get('/api/user/assistants/outbound')).body).toEqual([aliceAssistant]);
  });

  it('cannot assign the first user\'s phone number, private voice or tools', async () => {
    const number = await t.addPhoneNumber(alice.id);
    const voice = await insertVoice(t, alice.id, 'pipeline');
    const tool = await insertTool(t, alice.id, 'alices_tool');
    const own = (await bob.post('/api/user/assistant', minimalCreate)).body.data;

    for (const [field, value, key] of [
      ['phone_number_id', number.id, 'phone_number_id'],
      ['voice_id', voice.id, 'voice_id'],
      ['tool_ids', [tool.id], 'tool_ids.0'],
    ] as const) {
      const created = await bob.post('/api/user/assistant', { ...minimalCreate, [field]: value });
      expect(created.status, field).toBe(422);
      expect(Object.keys(created.body.errors), field).toEqual([key]);
      const updated = await bob.put(`/api/user/assistant/${own.id}`, { [field]: value });
      expect(updated.status, field).toBe(422);
      expect(Object.keys(updated.body.errors), field).toEqual([key]);
    }
    expect((await bob.get(`/api/user/assistant/${own.id}`)).body.data).toEqual(own);
    // the first user can use all three
    const mine = await alice.post('/api/user/assistant', { ...minimalCreate, phone_number_id: number.id, voice_id: voice.id, tool_ids: [tool.id] });
    expect(mine.status).toBe(201);
  });
});
