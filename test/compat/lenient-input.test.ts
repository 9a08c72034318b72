/**
 * Issue 9 items 3 and 4, across every endpoint that takes a JSON body:
 * - identifier fields (CONTRACT §1: assistant_id, campaign_id, voice_id, phone_number_id,
 *   items of tool_ids, language_id, llm_model_id, user_id) accept a string of digits and act
 *   exactly like the number; a string that is not digits is a 422 on that field; every other
 *   integer field still takes JSON numbers only;
 * - fields the existing clients send that Switchboard does not implement (folder_id,
 *   label_ids, tts_emotion_enabled, ringing_time) are ignored, not
 *   rejected, and never show up in a record — except on the lead update, where spec 4.6
 *   rule 1 refuses any field outside its four (the spec stays as it is).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { callEnded, ok, UNKNOWN_CLIENT_FIELDS } from './support.js';

let t: TestService;
let user: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await startTestService({ parts: fullProcess });
  user = await t.createUser({ name: 'Lenient', max_calls_in_parallel: 5 });
  other = await t.createUser({ name: 'Other' });
});
afterAll(() => t.close());

const U = UNKNOWN_CLIENT_FIELDS;
const UNKNOWN_KEYS = Object.keys(U);

function expectNoUnknownKeys(record: Record<string, unknown>) {
  for (const k of UNKNOWN_KEYS) {
    expect(record, k).not.toHaveProperty(k);
  }
}

let phoneSeq = 0;
async function phone(type: 'Normal' | 'Caller ID' = 'Normal') {
  phoneSeq++;
  return t.addPhoneNumber(user.id, `+49305559${String(1000 + phoneSeq)}`, type);
}

async function outboundAssistant(extra: Record<string, unknown> = {}) {
  const p = await phone();
  const res = await user.post('/api/user/assistant', {
    assistant_name: 'Outbound', voice_id: 1, calls_direction: 'make', phone_number_id: p.id, initial_message: 'Hi', ...extra,
  });
  ok('create assistant', res, 201);
  return { assistant: res.body.data, phone: p };
}

async function campaignFor(assistantId: number) {
  const res = await user.post('/api/user/campaigns', { name: 'C', assistant_id: assistantId });
  ok('create campaign', res, 201);
  return res.body.data;
}

describe('the issue\'s example body', () => {
  it('creates an outbound assistant with numeric ids as written in the issue', async () => {
    const p = await phone();
    const res = await user.post('/api/user/assistant', {
      name: 'Sales', voice_id: 1, language_id: 1, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}', system_prompt: 'Be brief.', llm_model_id: 1, phone_number_id: p.id,
    });
    ok('create', res, 201);
    expect(res.body.data).toMatchObject({
      name: 'Sales', type: 'outbound', mode: 'pipeline', voice_id: 1, language_id: 1, language: 'English', llm_model_id: 1,
      phone_number_id: p.id, timezone: 'Europe/Berlin',
    });
  });
});

describe('identifiers as strings of digits (item 3)', () => {
  it('assistant create: voice_id, language_id, llm_model_id, phone_number_id and tool_ids items', async () => {
    const p = await phone();
    const tool = ok('tool', await user.post('/api/user/tools', { name: 'lookup', description: 'd', endpoint: 'https://example.test/x', method: 'GET' }), 201).body.data;
    const res = await user.post('/api/user/assistant', {
      name: 'Strings', voice_id: '2', language_id: '3', llm_model_id: '2', type: 'outbound', phone_number_id: String(p.id), tool_ids: [String(tool.id)],
    });
    ok('create', res, 201);
    expect(res.body.data).toMatchObject({ voice_id: 2, language_id: 3, language: 'French', llm_model_id: 2, phone_number_id: p.id, tool_ids: [tool.id] });
  });

  it('assistant update: the same fields, read back as numbers', async () => {
    const { assistant } = await outboundAssistant();
    const p = await phone();
    const tool = ok('tool', await user.post('/api/user/tools', { name: 'lookup_two', description: 'd', endpoint: 'https://example.test/x', method: 'GET' }), 201).body.data;
    ok('update', await user.put(`/api/user/assistant/${assistant.id}`, {
      voice_id: '3', language_id: '2', llm_model_id: '4', phone_number_id: String(p.id), tool_ids: [String(tool.id)],
    }), 200);
    const read = ok('read', await user.get(`/api/user/assistant/${assistant.id}`), 200).body.data;
    expect(read).toMatchObject({ voice_id: 3, language_id: 2, language: 'German', llm_model_id: 4, phone_number_id: p.id, tool_ids: [tool.id] });
  });

  it('a digit string names the same row as the number: another user\'s voice id is refused either way', async () => {
    const voice = ok('voice', await t.admin.post('/api/admin/voices', { name: 'Private', mode: 'pipeline', user_id: String(other.id) }), 201).body.data;
    const asString = await user.post('/api/user/assistant', { name: 'X', voice_id: String(voice.id), type: 'outbound' });
    const asNumber = await user.post('/api/user/assistant', { name: 'X', voice_id: voice.id, type: 'outbound' });
    expect(asString.status).toBe(422);
    expect(asString.body).toEqual(asNumber.body);
    expect(Object.keys(asString.body.errors)).toEqual(['voice_id']);
  });

  it('webhook switches: assistant_id', async () => {
    const { assistant } = await outboundAssistant();
    const id = String(assistant.id);
    ok('enable', await user.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: id, webhook_url: 'https://hooks.example.test/in' }), 200);
    expect(ok('read', await user.get(`/api/user/assistant/${id}`), 200).body.data.inbound_webhook_url).toBe('https://hooks.example.test/in');
    ok('disable inbound', await user.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: id }), 200);
    ok('disable', await user.post('/api/user/assistants/disable-webhook', { assistant_id: id }), 200);
    expect(ok('read', await user.get(`/api/user/assistant/${id}`), 200).body.data.inbound_webhook_url).toBeNull();
    // another user's assistant by a digit string is answered like a missing one
    const foreign = await other.post('/api/user/assistants/disable-webhook', { assistant_id: id });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Assistant not found' });
  });

  it('campaigns: assistant_id on create, campaign_id on start and stop (action and status)', async () => {
    const { assistant } = await outboundAssistant();
    const created = ok('create', await user.post('/api/user/campaigns', { name: 'S', assistant_id: String(assistant.id) }), 201).body.data;
    expect(created.assistant_id).toBe(assistant.id);
    const cid = String(created.id);
    expect(ok('start', await user.post('/api/user/campaigns/update-status', { campaign_id: cid, action: 'start' }), 200).body.data)
      .toEqual({ campaign_id: created.id, status: 'in-progress' });
    expect(ok('stop', await user.post('/api/user/campaigns/update-status', { campaign_id: cid, status: 'stop' }), 200).body.data)
      .toEqual({ campaign_id: created.id, status: 'stopped' });
    const foreign = await other.post('/api/user/campaigns/update-status', { campaign_id: cid, status: 'start' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Campaign not found.', success: false });
  });

  it('leads: campaign_id on create, on update and on the /api/leads alias', async () => {
    const { assistant } = await outboundAssistant();
    const c1 = await campaignFor(assistant.id);
    const c2 = await campaignFor(assistant.id);
    const lead = ok('create', await user.post('/api/user/lead', { phone_number: '+4915111111111', campaign_id: String(c1.id) }), 200).body.data;
    expect(lead.campaign_id).toBe(c1.id);
    ok('move', await user.put(`/api/user/leads/${lead.id}`, { campaign_id: String(c2.id) }), 200);
    let list = ok('list', await user.get('/api/user/leads'), 200).body;
    expect(list.find((l: { id: number }) => l.id === lead.id).campaign).toEqual({ id: c2.id, name: 'C' });
    ok('move back', await user.put(`/api/leads/${lead.id}`, { campaign_id: String(c1.id) }), 200);
    list = ok('list', await user.get('/api/user/leads'), 200).body;
    expect(list.find((l: { id: number }) => l.id === lead.id).campaign_id).toBe(c1.id);
    // another user's campaign by a digit string: 404 like a missing one
    const foreign = await other.post('/api/user/lead', { phone_number: '+4915111111112', campaign_id: String(c1.id) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Campaign not found' });
  });

  it('make_call: assistant_id; another user\'s assistant by a digit string is 404', async () => {
    const { assistant } = await outboundAssistant();
    const res = ok('make call', await user.post('/api/user/make_call', { phone_number: '+4915122222200', assistant_id: String(assistant.id) }), 200);
    const record = await callEnded(user, res.body.call_id);
    expect(record.assistant_name).toBe('Outbound');
    const foreign = await other.post('/api/user/make_call', { phone_number: '+4915122222200', assistant_id: String(assistant.id) });
    expect(foreign.status).toBe(404);
  });

  it('admin voices: user_id', async () => {
    const res = ok('voice', await t.admin.post('/api/admin/voices', { name: 'Mine', mode: 'multimodal', user_id: String(user.id) }), 201);
    const voices = ok('voices', await user.get('/api/user/assistants/voices?mode=multimodal'), 200).body;
    expect(voices.map((v: { id: number }) => v.id)).toContain(res.body.data.id);
  });

  it.each([
    ['assistant create voice_id', () => user.post('/api/user/assistant', { name: 'X', voice_id: '1a', type: 'outbound' }), 'voice_id', 'The voice id field must be an integer.'],
    ['assistant tool_ids item', () => user.post('/api/user/assistant', { name: 'X', voice_id: 1, type: 'outbound', tool_ids: ['x'] }), 'tool_ids.0', 'The tool_ids.0 field must be an integer.'],
    ['assistant language_id', () => user.post('/api/user/assistant', { name: 'X', voice_id: 1, type: 'outbound', language_id: '1.5' }), 'language_id', 'The language id field must be an integer.'],
    ['campaign assistant_id', () => user.post('/api/user/campaigns', { name: 'X', assistant_id: ' 1' }), 'assistant_id', 'The assistant id field must be an integer.'],
    ['lead campaign_id', () => user.post('/api/user/lead', { phone_number: '+4915111111113', campaign_id: 'one' }), 'campaign_id', 'The campaign id field must be an integer.'],
    ['make_call assistant_id', () => user.post('/api/user/make_call', { phone_number: '+4915111111113', assistant_id: '' }), 'assistant_id', 'The assistant id field must be an integer.'],
    ['webhook assistant_id', () => user.post('/api/user/assistants/disable-webhook', { assistant_id: '1e3' }), 'assistant_id', 'The assistant id field must be an integer.'],
    ['update-status campaign_id', () => user.post('/api/user/campaigns/update-status', { campaign_id: '0x1', status: 'start' }), 'campaign_id', 'The campaign id field must be an integer.'],
  ])('%s: a string that is not digits is 422 on that field', async (_label, send, field, message) => {
    const res = await send();
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it.each([
    ['max_duration', '300'],
    ['max_call_duration', '300'],
    ['min_interrupt_words', '2'],
    ['max_silence_duration', '30'],
  ])('assistant %s (not an identifier) still takes JSON numbers only', async (field, value) => {
    const { assistant } = await outboundAssistant();
    const res = await user.put(`/api/user/assistant/${assistant.id}`, { [field]: value });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it('campaign max_calls_in_parallel and tool timeout (not identifiers) take JSON numbers only', async () => {
    const { assistant } = await outboundAssistant();
    const c = await user.post('/api/user/campaigns', { name: 'X', assistant_id: assistant.id, max_calls_in_parallel: '2' });
    expect(c.status).toBe(422);
    expect(Object.keys(c.body.errors)).toEqual(['max_calls_in_parallel']);
    const tool = await user.post('/api/user/tools', { name: 'timed', description: 'd', endpoint: 'https://example.test/x', method: 'GET', timeout: '5' });
    expect(tool.status).toBe(422);
    expect(Object.keys(tool.body.errors)).toEqual(['timeout']);
  });
});

describe('client fields Switchboard does not implement are ignored (item 4)', () => {
  it('assistant create and update', async () => {
    const created = ok('create', await user.post('/api/user/assistant', { name: 'Ignored', voice_id: 1, type: 'outbound', ...U }), 201).body.data;
    expectNoUnknownKeys(created);
    ok('update', await user.put(`/api/user/assistant/${created.id}`, { ...U, max_duration: 120 }), 200);
    ok('update with only unknown fields', await user.put(`/api/user/assistant/${created.id}`, U), 200);
    const read = ok('read', await user.get(`/api/user/assistant/${created.id}`), 200).body.data;
    expectNoUnknownKeys(read);
    expect(read.max_duration).toBe(120);
    const page = ok('list', await user.get('/api/user/assistants/get?folder_id=7'), 200).body;
    for (const a of page.data) expectNoUnknownKeys(a);
  });

  it('tool create and update', async () => {
    const tool = ok('create', await user.post('/api/user/tools', { name: 'ignored_fields', description: 'd', endpoint: 'https://example.test/x', method: 'GET', ...U }), 201).body;
    expect(tool.message).toBe('Tool erfolgreich erstellt');
    expectNoUnknownKeys(tool.data);
    const upd = ok('update', await user.put(`/api/user/tools/${tool.data.id}`, { ...U, timeout: 12 }), 200).body;
    expect(upd.data.timeout).toBe(12);
    expectNoUnknownKeys(upd.data);
    expectNoUnknownKeys(ok('read', await user.get(`/api/user/tools/${tool.data.id}`), 200).body);
  });

  it('campaign create and start/stop', async () => {
    const { assistant } = await outboundAssistant();
    const c = ok('create', await user.post('/api/user/campaigns', { name: 'U', assistant_id: assistant.id, ...U }), 201).body.data;
    expectNoUnknownKeys(c);
    ok('start', await user.post('/api/user/campaigns/update-status', { campaign_id: c.id, action: 'start', ...U }), 200);
    ok('stop', await user.post('/api/user/campaigns/update-status', { campaign_id: c.id, status: 'stop', ...U }), 200);
    for (const row of ok('list', await user.get('/api/user/campaigns'), 200).body) expectNoUnknownKeys(row);
  });

  it('lead create (secondary contacts too); the lead update refuses them as spec 4.6 rule 1 demands', async () => {
    const { assistant } = await outboundAssistant();
    const c = await campaignFor(assistant.id);
    const lead = ok('create', await user.post('/api/user/lead', {
      phone_number: '+4915133333333', campaign_id: c.id, ...U,
      secondary_contacts: [{ phone_number: '+4915133333334', ringing_time: 10 }],
    }), 200).body.data;
    expectNoUnknownKeys(lead);
    expectNoUnknownKeys(lead.secondary_contacts[0]);
    const upd = await user.put(`/api/leads/${lead.id}`, { variables: { a: 1 }, folder_id: 7, label_ids: [1] });
    expect(upd.status).toBe(422);
    expect(upd.body).toEqual({ message: 'Invalid fields: folder_id, label_ids' });
  });

  it('make_call and the sandbox inbound call', async () => {
    const { assistant } = await outboundAssistant();
    const res = ok('make call', await user.post('/api/user/make_call', { phone_number: '+4915144444400', assistant_id: assistant.id, ...U }), 200);
    expectNoUnknownKeys(await callEnded(user, res.body.call_id));
    const p = await phone();
    ok('inbound assistant', await user.post('/api/user/assistant', { name: 'In', voice_id: 1, type: 'inbound', phone_number_id: p.id }), 201);
    const inbound = ok('inbound call', await user.post('/api/user/sandbox/inbound-call', { to: p.phone_number, from: '+4915144444401', ...U }), 200);
    expectNoUnknownKeys(await callEnded(user, inbound.body.call_id));
  });

  it('webhook switches and the signing secret', async () => {
    const { assistant } = await outboundAssistant();
    ok('enable', await user.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: 'https://hooks.example.test/in', ...U }), 200);
    ok('disable inbound', await user.post('/api/user/assistants/disable-inbound-webhook', { assistant_id: assistant.id, ...U }), 200);
    ok('disable', await user.post('/api/user/assistants/disable-webhook', { assistant_id: assistant.id, ...U }), 200);
    ok('rotate', await user.post('/api/user/webhook-secret/rotate', U), 200);
  });

  it('list filters the calls list does not know are ignored', async () => {
    const res = ok('calls', await user.get('/api/user/calls?folder_id=7&label_ids=1&per_page=5'), 200).body;
    expect(res.per_page).toBe(5);
  });

  it('the admin API too', async () => {
    const created = ok('user', await t.admin.post('/api/admin/users', { name: 'Admin made', email: 'admin-made@example.test', ...U }), 201).body;
    expectNoUnknownKeys(created.data);
    ok('phone', await t.admin.post(`/api/admin/users/${created.data.id}/phone-numbers`, { phone_number: '+4930555777', type_label: 'Normal', ...U }), 201);
    ok('voice', await t.admin.post('/api/admin/voices', { name: 'V', mode: 'pipeline', ...U }), 201);
    ok('token', await t.admin.post(`/api/admin/users/${created.data.id}/tokens`, U), 201);
  });
});
