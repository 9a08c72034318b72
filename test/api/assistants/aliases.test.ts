/**
 * Record names as aliases of the request names (issue 9 items 1 and 4, CONTRACT §7): each
 * alias on create and on update, read back; conflicts; the same ranges; errors keyed by the
 * name sent; unknown client fields ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate, MULTIMODAL_VOICE, PIPELINE_VOICE } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let phoneId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  phoneId = (await t.addPhoneNumber(alice.id)).id;
});
afterAll(() => t.close());

type Rec = Record<string, any>;
const read = async (id: number) => (await alice.get(`/api/user/assistant/${id}`)).body.data as Rec;

/** alias, a value, the record field it sets and the value expected there. */
const ALIASES: [alias: string, value: unknown, field: string, want: unknown][] = [
  ['name', 'Via alias', 'name', 'Via alias'],
  ['type', 'inbound', 'type', 'inbound'],
  ['type', 'outbound', 'type', 'outbound'],
  ['mode', 'pipeline', 'mode', 'pipeline'],
  ['language_id', 2, 'language', 'German'],
  ['language_id', '3', 'language_id', 3],
  ['llm_model_id', 2, 'llm_model_id', 2],
  ['llm_model_id', '4', 'llm_model_id', 4],
  ['record', true, 'record', true],
  ['reengagement_interval', 7, 'reengagement_interval', 7],
  ['reengagement_interval', 600, 'reengagement_interval', 600],
  ['max_duration', 20, 'max_duration', 20],
  ['max_duration', 1200, 'max_duration', 1200],
  ['enable_noise_cancellation', true, 'enable_noise_cancellation', true],
  ['fillers', 1, 'fillers', 1],
  ['fillers', 0, 'fillers', 0],
  ['fillers', true, 'fillers', 1],
  ['fillers', false, 'fillers', 0],
  ['wait_for_customer', true, 'wait_for_customer', true],
  ['wait_for_customer', false, 'wait_for_customer', false],
  ['end_call_on_voicemail', 1, 'end_call_on_voicemail', 1],
  ['end_call_on_voicemail', 0, 'end_call_on_voicemail', 0],
];

describe('each alias on create', () => {
  for (const [alias, value, field, want] of ALIASES) {
    it(`${alias}=${JSON.stringify(value)} sets ${field}`, async () => {
      const body: Rec = { ...minimalCreate, [alias]: value };
      // the alias stands in for its spec name
      if (alias === 'name') delete body.assistant_name;
      if (alias === 'type') delete body.calls_direction;
      const res = await alice.post('/api/user/assistant', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data[field]).toEqual(want);
      expect((await read(res.body.data.id))[field]).toEqual(want);
    });
  }

  it('mode multimodal with a multimodal voice', async () => {
    const res = await alice.post('/api/user/assistant', { name: 'M', type: 'outbound', mode: 'multimodal', voice_id: MULTIMODAL_VOICE });
    expect(res.status).toBe(201);
    expect(res.body.data.mode).toBe('multimodal');
  });
});

describe('each alias on update', () => {
  for (const [alias, value, field, want] of ALIASES) {
    it(`${alias}=${JSON.stringify(value)} sets ${field}`, async () => {
      const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
      const res = await alice.put(`/api/user/assistant/${id}`, { [alias]: value });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((await read(id))[field]).toEqual(want);
    });
  }

  it('the update answer reflects name, type and mode sent by alias', async () => {
    const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
    const res = await alice.put(`/api/user/assistant/${id}`, { name: 'N', type: 'inbound', mode: 'multimodal', voice_id: MULTIMODAL_VOICE });
    expect(res.body).toEqual({ message: 'Assistant updated successfully', data: { id, name: 'N', status: 'active', type: 'inbound', mode: 'multimodal' } });
  });
});

describe('the client example body of issue 9', () => {
  it('creates an outbound assistant', async () => {
    const res = await alice.post('/api/user/assistant', {
      name: 'Sales',
      voice_id: 1,
      language_id: 1,
      type: 'outbound',
      mode: 'pipeline',
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
      llm_model_id: 1,
      phone_number_id: phoneId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Sales',
      voice_id: 1,
      language: 'English',
      language_id: 1,
      type: 'outbound',
      mode: 'pipeline',
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
      llm_model_id: 1,
      phone_number_id: phoneId,
    });
    const outbound = (await alice.get('/api/user/assistants/outbound')).body.map((a: Rec) => a.id);
    expect(outbound).toContain(res.body.data.id);
  });
});

describe('both names of one field', () => {
  const CONFLICTS: [Rec, string, string][] = [
    [{ assistant_name: 'A', name: 'B' }, 'name', 'The name field must match assistant name.'],
    [{ calls_direction: 'make', type: 'inbound' }, 'type', 'The type field must match calls direction.'],
    [{ engine_type: 'pipeline', mode: 'multimodal' }, 'mode', 'The mode field must match engine type.'],
    [{ record_call: true, record: false }, 'record', 'The record field must match record call.'],
    [{ re_engagement_interval: 30, reengagement_interval: 31 }, 'reengagement_interval', 'The reengagement interval field must match re engagement interval.'],
    [{ max_call_duration: 300, max_duration: 301 }, 'max_duration', 'The max duration field must match max call duration.'],
    [{ noise_cancellation: true, enable_noise_cancellation: false }, 'enable_noise_cancellation', 'The enable noise cancellation field must match noise cancellation.'],
    [{ filler_audios: true, fillers: 0 }, 'fillers', 'The fillers field must match filler audios.'],
    [{ who_speaks_first: 'Customer', wait_for_customer: false }, 'wait_for_customer', 'The wait for customer field must match who speaks first.'],
    [{ language: 'German', language_id: 1 }, 'language_id', 'The language id field must match language.'],
    [{ llm_model: 'gpt-4o-mini', llm_model_id: 2 }, 'llm_model_id', 'The llm model id field must match llm model.'],
    [{ 'end_call_tool.description': 'a', end_call_tool: { description: 'b' } }, 'end_call_tool.description', 'The end call tool.description field must match end_call_tool.'],
  ];

  for (const [body, key, message] of CONFLICTS) {
    it(`different values → 422 on ${key}, on create and on update, nothing changes`, async () => {
      const created = await alice.post('/api/user/assistant', { ...minimalCreate, ...body });
      expect(created.status).toBe(422);
      expect(created.body).toEqual({ message: 'Validation failed', errors: { [key]: [message] } });
      const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
      const before = await read(id);
      const updated = await alice.put(`/api/user/assistant/${id}`, body);
      expect(updated.status).toBe(422);
      expect(updated.body).toEqual({ message: 'Validation failed', errors: { [key]: [message] } });
      expect(await read(id)).toEqual(before);
    });
  }

  it('equal values under both names are accepted (after conversion)', async () => {
    const res = await alice.post('/api/user/assistant', {
      assistant_name: 'Same',
      name: 'Same',
      calls_direction: 'receive',
      type: 'inbound',
      voice_id: PIPELINE_VOICE,
      filler_audios: true,
      fillers: 1,
      who_speaks_first: 'Customer',
      wait_for_customer: true,
      language: 'German',
      language_id: 2,
      llm_model: 'gpt-4o',
      llm_model_id: 2,
      max_call_duration: 300,
      max_duration: 300,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Same', type: 'inbound', fillers: 1, wait_for_customer: true, language_id: 2, llm_model_id: 2, max_duration: 300 });
  });
});

describe('aliases follow the same rules, and errors name the field as sent', () => {
  const BAD: [Rec, string, string][] = [
    [{ max_duration: 5 }, 'max_duration', 'The max duration field must be between 20 and 1200.'],
    [{ max_duration: 1201 }, 'max_duration', 'The max duration field must be between 20 and 1200.'],
    [{ reengagement_interval: 6 }, 'reengagement_interval', 'The reengagement interval field must be between 7 and 600.'],
    [{ reengagement_interval: 601 }, 'reengagement_interval', 'The reengagement interval field must be between 7 and 600.'],
    [{ max_duration: '60' }, 'max_duration', 'The max duration field must be an integer.'],
    [{ name: '' }, 'name', 'The name field is required.'],
    [{ name: 'x'.repeat(256) }, 'name', 'The name field must not be greater than 255 characters.'],
    [{ type: 'receive' }, 'type', 'The selected type is invalid.'],
    [{ mode: 'hybrid' }, 'mode', 'The selected mode is invalid.'],
    [{ fillers: 2 }, 'fillers', 'The fillers field must be true or false.'],
    [{ fillers: 'yes' }, 'fillers', 'The fillers field must be true or false.'],
    [{ record: 'yes' }, 'record', 'The record field must be true or false.'],
    [{ enable_noise_cancellation: 1 }, 'enable_noise_cancellation', 'The enable noise cancellation field must be true or false.'],
    [{ wait_for_customer: 'Customer' }, 'wait_for_customer', 'The wait for customer field must be true or false.'],
    [{ language_id: 9999 }, 'language_id', 'The selected language id is invalid.'],
    [{ language_id: 'en' }, 'language_id', 'The language id field must be an integer.'],
    [{ llm_model_id: 9999 }, 'llm_model_id', 'The selected llm model id is invalid.'],
    [{ end_call_tool: { description: 'x'.repeat(501) } }, 'end_call_tool.description', 'The end call tool.description field must not be greater than 500 characters.'],
  ];

  for (const [body, key, message] of BAD) {
    it(`${JSON.stringify(body).slice(0, 50)} → 422 on ${key} (create and update)`, async () => {
      const created = await alice.post('/api/user/assistant', { ...minimalCreate, ...body });
      expect(created.status).toBe(422);
      expect(created.body).toEqual({ message: 'Validation failed', errors: { [key]: [message] } });
      const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
      const updated = await alice.put(`/api/user/assistant/${id}`, body);
      expect(updated.status).toBe(422);
      expect(updated.body).toEqual({ message: 'Validation failed', errors: { [key]: [message] } });
    });
  }

  it('a mode sent by alias that does not fit the voice is reported on mode', async () => {
    const res = await alice.post('/api/user/assistant', { name: 'X', type: 'outbound', mode: 'multimodal', voice_id: PIPELINE_VOICE });
    expect(res.body.errors).toEqual({ voice_id: ['The selected voice id is not available for the multimodal mode.'] });
    const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
    const upd = await alice.put(`/api/user/assistant/${id}`, { mode: 'multimodal' });
    expect(upd.body.errors).toEqual({ mode: ["The mode field does not match the mode of the assistant's voice (pipeline)."] });
  });

  it('turning inbound by type onto a taken number is reported on type', async () => {
    const n = await t.addPhoneNumber(alice.id);
    await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive', phone_number_id: n.id });
    const out = (await alice.post('/api/user/assistant', { ...minimalCreate, phone_number_id: n.id })).body.data.id;
    const res = await alice.put(`/api/user/assistant/${out}`, { type: 'inbound' });
    expect(res.body.errors).toEqual({ type: ['The selected phone number id is already assigned to an inbound assistant.'] });
  });

  it('required fields are satisfied by their aliases; missing under both names names the spec field', async () => {
    const res = await alice.post('/api/user/assistant', { voice_id: PIPELINE_VOICE });
    expect(res.body.errors).toEqual({
      assistant_name: ['The assistant name field is required.'],
      calls_direction: ['The calls direction field is required.'],
    });
  });
});

describe('client fields we do not implement', () => {
  it('are ignored on create and update, not rejected', async () => {
    const extra = {
      folder_id: 7,
      label_ids: [1, 2],
      tts_emotion_enabled: true,
      ringing_time: 20,
      widget_settings: { color: 'red' },
      something_new: { deep: true },
    };
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const r = created.body.data;
    expect(r).not.toHaveProperty('folder_id');
    expect(r).not.toHaveProperty('ringing_time');
    const updated = await alice.put(`/api/user/assistant/${r.id}`, { ...extra, name: 'Still fine' });
    expect(updated.status).toBe(200);
    expect(await read(r.id)).toEqual({ ...r, name: 'Still fine', updated_at: (await read(r.id)).updated_at });
  });
});
