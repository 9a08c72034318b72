/** Create, read, update, delete, the outbound list and the record's shape (spec 2.4, CONTRACT §4 and §7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, minimalCreate, MULTIMODAL_VOICE, PIPELINE_VOICE } from './fixtures.js';

let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
});
afterAll(() => t.close());

const ISO_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every field of spec 2.4 (plus tool_ids, CONTRACT §7) with the JSON type it must have. */
const RECORD_TYPES: Record<string, string> = {
  id: 'integer', user_id: 'integer', phone_number_id: 'integer|null', engine_id: 'integer|null', synthesizer_id: 'integer|null',
  transcriber_id: 'integer|null', voice_id: 'integer', instance_id: 'integer', name: 'string', variables: 'object',
  post_call_evaluation: 'boolean', fillers: 'integer', post_call_schema: 'array', tools: 'array', tool_ids: 'array',
  is_webhook_active: 'boolean', webhook_url: 'string|null', inbound_webhook_url: 'string|null', language: 'string|null',
  type: 'string', status: 'string', max_duration: 'integer', record: 'boolean', initial_message: 'string', system_prompt: 'string',
  flows_platform_id: 'integer|null', timezone: 'string', created_at: 'string', updated_at: 'string', max_silence_duration: 'integer',
  reengagement_interval: 'integer', deleted_at: 'string|null', end_call_on_voicemail: 'integer', llm_temperature: 'string',
  voice_stability: 'string', voice_similarity: 'string', allow_interruptions: 'boolean', enable_noise_cancellation: 'boolean',
  endpoint_sensitivity: 'number', speech_speed: 'string', endpoint_type: 'string', wait_for_customer: 'boolean', mode: 'string',
  language_id: 'integer|null', transcriber_provider_id: 'integer|null', synthesizer_provider_id: 'integer|null',
  llm_model_id: 'integer|null', multimodal_model_id: 'integer|null', ambient_sound: 'string', uuid: 'string',
  send_webhook_only_on_completed: 'boolean', include_recording_in_webhook: 'boolean', interrupt_sensitivity: 'number',
  filler_config: 'object', knowledgebase_id: 'integer|null', knowledgebase_mode: 'string', min_interrupt_words: 'integer',
  ambient_sound_volume: 'string', widget_settings: 'object',
  // extension (issue 19, docs/decisions.md): the message left on a voicemail box
  voice_mail_message: 'string|null',
  silence_goodbye_message: 'string|null',
  backchannel_words: 'array',
};

function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

function expectRecordShape(r: Record<string, unknown>) {
  expect(Object.keys(r).sort()).toEqual(Object.keys(RECORD_TYPES).sort());
  for (const [k, type] of Object.entries(RECORD_TYPES)) {
    const actual = jsonType(r[k]);
    const allowed = type.split('|');
    // a "number" field may hold an integral value
    expect(allowed.includes(actual) || (actual === 'integer' && allowed.includes('number')), `${k}: ${actual} not ${type}`).toBe(true);
  }
  for (const k of ['llm_temperature', 'voice_stability', 'voice_similarity', 'speech_speed', 'ambient_sound_volume']) {
    expect(r[k], k).toMatch(/^\d+\.\d{2}$/);
  }
  expect([0, 1]).toContain(r.fillers);
  expect([0, 1]).toContain(r.end_call_on_voicemail);
  expect(r.created_at).toMatch(ISO_MICRO);
  expect(r.updated_at).toMatch(ISO_MICRO);
  expect(r.uuid).toMatch(UUID);
  expect(Object.keys(r.filler_config as object).sort()).toEqual(['negative', 'neutral', 'positive', 'question']);
}

describe('create', () => {
  it('answers 201 with the full record and the defaults of CONTRACT §7', async () => {
    const res = await alice.post('/api/user/assistant', minimalCreate);
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Assistant created successfully');
    const r = res.body.data;
    expectRecordShape(r);
    expect(r).toMatchObject({
      user_id: alice.id,
      name: 'Support',
      type: 'outbound',
      status: 'active',
      language: 'English',
      language_id: 1,
      llm_model_id: 1,
      mode: 'pipeline',
      timezone: 'UTC',
      max_duration: 600,
      max_silence_duration: 40,
      reengagement_interval: 30,
      llm_temperature: '0.10',
      voice_stability: '0.70',
      voice_similarity: '0.50',
      speech_speed: '1.00',
      endpoint_type: 'vad',
      allow_interruptions: true,
      send_webhook_only_on_completed: true,
      include_recording_in_webhook: true,
      post_call_evaluation: true,
      is_webhook_active: false,
      webhook_url: null,
      deleted_at: null,
      tools: [],
      tool_ids: [],
      filler_config: { neutral: [], negative: [], positive: [], question: [] },
    });
    expect((await alice.get(`/api/user/assistant/${r.id}`)).body).toEqual({ data: r });
  });

  it('gives each assistant its own uuid', async () => {
    const a = await alice.post('/api/user/assistant', minimalCreate);
    const b = await alice.post('/api/user/assistant', minimalCreate);
    expect(a.body.data.uuid).not.toBe(b.body.data.uuid);
  });
});

describe('round trip: request names in, record out', () => {
  it('maps every request field of spec 4.9 onto its record field with the record type', async () => {
    const phone = await t.addPhoneNumber(alice.id);
    const tool1 = await insertTool(t, alice.id, 'lookup_order', 'Looks up an order');
    const tool2 = await insertTool(t, alice.id, 'book_slot', 'Books a slot');
    const body = {
      assistant_name: 'Round trip',
      voice_id: MULTIMODAL_VOICE,
      language: 'German',
      llm_model: 'gpt-4.1',
      calls_direction: 'receive',
      engine_type: 'multimodal',
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
      phone_number_id: phone.id,
      tool_ids: [tool2.id, String(tool1.id)],
      endpoint_type: 'ai',
      endpoint_sensitivity: 3.5,
      interrupt_sensitivity: 1.25,
      ambient_sound_volume: 0.3,
      post_call_evaluation: false,
      send_webhook_only_on_completed: false,
      include_recording_in_webhook: false,
      is_webhook_active: true,
      webhook_url: 'https://hooks.example.test/post-call',
      use_min_interrupt_words: true,
      min_interrupt_words: 3,
      variables: { company: 'ACME', nested: { a: [1, 2] } },
      post_call_schema: [{ name: 'appointment_booked', type: 'bool', description: 'Whether a slot was booked' }],
      end_call_tool: { description: 'End the call when the customer says goodbye' },
      llm_temperature: 0.7,
      voice_stability: 0.25,
      voice_similarity: 0.9,
      speech_speed: 1.1,
      allow_interruptions: false,
      filler_audios: true,
      re_engagement_interval: 45,
      max_call_duration: 900,
      max_silence_duration: 25,
      end_call_on_voicemail: true,
      noise_cancellation: true,
      record_call: true,
      who_speaks_first: 'Customer',
    };
    const created = await alice.post('/api/user/assistant', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const r = (await alice.get(`/api/user/assistant/${created.body.data.id}`)).body.data;
    expectRecordShape(r);
    expect(r).toEqual({
      ...r,
      name: 'Round trip',
      voice_id: MULTIMODAL_VOICE,
      language: 'German',
      language_id: 2,
      llm_model_id: 3,
      type: 'inbound',
      mode: 'multimodal',
      timezone: 'Europe/Berlin',
      initial_message: 'Hallo {{customer_name}}',
      system_prompt: 'Be brief.',
      phone_number_id: phone.id,
      tool_ids: [tool2.id, tool1.id],
      tools: [
        { type: 'end_call', data: { description: 'End the call when the customer says goodbye' } },
        { type: 'mid_call_tool', data: { id: tool2.id, name: 'book_slot', description: 'Books a slot' } },
        { type: 'mid_call_tool', data: { id: tool1.id, name: 'lookup_order', description: 'Looks up an order' } },
      ],
      endpoint_type: 'ai',
      endpoint_sensitivity: 3.5,
      interrupt_sensitivity: 1.25,
      ambient_sound_volume: '0.30',
      post_call_evaluation: false,
      send_webhook_only_on_completed: false,
      include_recording_in_webhook: false,
      is_webhook_active: true,
      webhook_url: 'https://hooks.example.test/post-call',
      min_interrupt_words: 3,
      variables: { company: 'ACME', nested: { a: [1, 2] } },
      post_call_schema: [{ name: 'appointment_booked', type: 'bool', description: 'Whether a slot was booked' }],
      llm_temperature: '0.70',
      voice_stability: '0.25',
      voice_similarity: '0.90',
      speech_speed: '1.10',
      allow_interruptions: false,
      fillers: 1,
      reengagement_interval: 45,
      max_duration: 900,
      max_silence_duration: 25,
      end_call_on_voicemail: 1,
      enable_noise_cancellation: true,
      record: true,
      wait_for_customer: true,
    });
    // the inbound number is now taken
    const numbers = (await alice.get('/api/user/assistants/phone-numbers')).body;
    expect(numbers.find((n: { id: number }) => n.id === phone.id).is_available).toBe(false);
  });

  it('use_min_interrupt_words false sets min_interrupt_words to 0', async () => {
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, min_interrupt_words: 4, use_min_interrupt_words: false });
    expect(res.body.data.min_interrupt_words).toBe(0);
  });
});

describe('update', () => {
  it('answers {message, data: {id, name, status, type, mode}} and changes only the supplied fields', async () => {
    const created = (await alice.post('/api/user/assistant', { ...minimalCreate, max_call_duration: 300, system_prompt: 'Keep me' })).body.data;
    const res = await alice.put(`/api/user/assistant/${created.id}`, { assistant_name: 'Renamed', status: 'inactive' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Assistant updated successfully',
      data: { id: created.id, name: 'Renamed', status: 'inactive', type: 'outbound', mode: 'pipeline' },
    });
    const after = (await alice.get(`/api/user/assistant/${created.id}`)).body.data;
    expect(after).toEqual({ ...created, name: 'Renamed', status: 'inactive', updated_at: after.updated_at });
    expect(after.updated_at >= created.updated_at).toBe(true);
  });

  it('an empty body is a successful no-op', async () => {
    const created = (await alice.post('/api/user/assistant', minimalCreate)).body.data;
    const res = await alice.put(`/api/user/assistant/${created.id}`, {});
    expect(res.status).toBe(200);
    const after = (await alice.get(`/api/user/assistant/${created.id}`)).body.data;
    expect({ ...after, updated_at: null }).toEqual({ ...created, updated_at: null });
  });

  it('answers 404 "Assistant not found" for an unknown, a deleted or a non-integer id', async () => {
    const created = (await alice.post('/api/user/assistant', minimalCreate)).body.data;
    await alice.delete(`/api/user/assistant/${created.id}`);
    for (const id of ['999999', String(created.id), 'abc', '0', '-1', '1.5']) {
      expect(await alice.put(`/api/user/assistant/${id}`, { assistant_name: 'x' }), id).toMatchObject({
        status: 404,
        body: { message: 'Assistant not found' },
      });
      expect(await alice.get(`/api/user/assistant/${id}`), id).toMatchObject({ status: 404, body: { message: 'Assistant not found' } });
      expect(await alice.delete(`/api/user/assistant/${id}`), id).toMatchObject({ status: 404, body: { message: 'Assistant not found' } });
    }
  });
});

describe('delete', () => {
  it('soft-deletes: gone from read, lists and outbound list; its inbound number is released', async () => {
    const phone = await t.addPhoneNumber(alice.id);
    const created = (await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive', phone_number_id: phone.id })).body.data;
    const available = async () =>
      (await alice.get('/api/user/assistants/phone-numbers')).body.find((n: { id: number }) => n.id === phone.id).is_available;
    expect(await available()).toBe(false);
    const res = await alice.delete(`/api/user/assistant/${created.id}`);
    expect(res).toMatchObject({ status: 200, body: { message: 'Assistant deleted successfully' } });
    expect(await available()).toBe(true);
    expect((await alice.get(`/api/user/assistant/${created.id}`)).status).toBe(404);
    const list = (await alice.get('/api/user/assistants/get?per_page=100')).body.data.map((a: { id: number }) => a.id);
    expect(list).not.toContain(created.id);
    // the row stays, with deleted_at set and the number released
    const { rows } = await t.service.ctx.database.pool.query('select deleted_at, phone_number_id from assistants where id = $1', [created.id]);
    expect(rows[0].deleted_at).not.toBeNull();
    expect(rows[0].phone_number_id).toBeNull();
    // the number can go to another inbound assistant
    const again = await alice.post('/api/user/assistant', { ...minimalCreate, calls_direction: 'receive', phone_number_id: phone.id });
    expect(again.status).toBe(201);
  });
});

describe('outbound list', () => {
  it('is a bare array of the caller\'s live outbound assistants, ascending by id', async () => {
    const bob = await t.createUser({ name: 'Bob' });
    const a = (await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Out A' })).body.data;
    await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'In', calls_direction: 'receive' });
    const c = (await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Out C' })).body.data;
    const d = (await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Out D' })).body.data;
    await bob.delete(`/api/user/assistant/${d.id}`);
    const res = await bob.get('/api/user/assistants/outbound');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toEqual([a, c]);
    expect(res.body.map((x: { id: number }) => x.id)).toEqual([a.id, c.id]);
  });
});

describe('record values', () => {
  it('two-decimal strings survive rounding (0.555 → "0.56") and integers stay integers', async () => {
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, llm_temperature: 0.555, voice_id: String(PIPELINE_VOICE) });
    expect(res.status).toBe(201);
    expect(res.body.data.llm_temperature).toBe('0.56');
    expect(res.body.data.voice_id).toBe(PIPELINE_VOICE);
  });
});
