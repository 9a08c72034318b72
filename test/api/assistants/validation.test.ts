/**
 * Every field of spec 4.9 at its accepted and rejected edges, on update and on create
 * (the rules are the same, CONTRACT §4), plus: a rejected request changes nothing, and a
 * failed write answers 500 "Assistant update failed" and rolls back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let assistantId: number;
let phoneId: number;
let toolId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  phoneId = (await t.addPhoneNumber(alice.id)).id;
  toolId = (await insertTool(t, alice.id)).id;
  const res = await alice.post('/api/user/assistant', minimalCreate);
  expect(res.status).toBe(201);
  assistantId = res.body.data.id;
});
afterAll(() => t.close());

type Rec = Record<string, any>;
interface Accept {
  value: unknown;
  /** Reads the record field the value maps to, compared with `want`. */
  read?: (r: Rec) => unknown;
  want?: unknown;
}
interface Row {
  field: string;
  ok: Accept[];
  bad: { value: unknown; key?: string; message?: string }[];
}

const s = (n: number) => 'x'.repeat(n);
const rec = (k: string) => (r: Rec) => r[k];

const table = (): Row[] => [
  {
    field: 'assistant_name',
    ok: [{ value: s(255), read: rec('name'), want: s(255) }, { value: 'A', read: rec('name'), want: 'A' }],
    bad: [
      { value: s(256), message: 'The assistant name field must not be greater than 255 characters.' },
      { value: '', message: 'The assistant name field is required.' },
      { value: 5, message: 'The assistant name field must be a string.' },
    ],
  },
  {
    field: 'voice_id',
    ok: [{ value: 2, read: rec('voice_id'), want: 2 }, { value: '3', read: rec('voice_id'), want: 3 }],
    bad: [
      { value: 99999, message: 'The selected voice id is invalid.' },
      { value: 'abc', message: 'The voice id field must be an integer.' },
      { value: 0 },
      { value: 1.5 },
      { value: 5, message: 'The selected voice id is not available for the pipeline mode.' },
    ],
  },
  {
    field: 'language',
    ok: [
      { value: 'German', read: (r) => [r.language, r.language_id], want: ['German', 2] },
      { value: 'french', read: (r) => [r.language, r.language_id], want: ['French', 3] },
    ],
    bad: [
      { value: 'Klingon', message: 'The selected language is invalid.' },
      { value: s(101), message: 'The language field must not be greater than 100 characters.' },
      { value: 7 },
    ],
  },
  {
    field: 'llm_model',
    ok: [{ value: 'gpt-4o', read: rec('llm_model_id'), want: 2 }, { value: 'gpt-4o-mini', read: rec('llm_model_id'), want: 1 }],
    bad: [{ value: 'gpt-99', message: 'The selected llm model is invalid.' }, { value: s(101) }, { value: 1 }],
  },
  {
    field: 'calls_direction',
    ok: [{ value: 'receive', read: rec('type'), want: 'inbound' }, { value: 'make', read: rec('type'), want: 'outbound' }],
    bad: [{ value: 'both', message: 'The selected calls direction is invalid.' }, { value: 'inbound' }],
  },
  {
    field: 'engine_type',
    ok: [{ value: 'pipeline', read: rec('mode'), want: 'pipeline' }],
    bad: [{ value: 'hybrid', message: 'The selected engine type is invalid.' }],
  },
  {
    field: 'timezone',
    ok: [{ value: 'Europe/Berlin', read: rec('timezone'), want: 'Europe/Berlin' }, { value: 'UTC', read: rec('timezone'), want: 'UTC' }],
    bad: [{ value: 'Mars/Olympus', message: 'The timezone field must be a valid timezone.' }, { value: '' }, { value: 3 }],
  },
  {
    field: 'initial_message',
    ok: [{ value: 'Hallo {{customer_name}}', read: rec('initial_message'), want: 'Hallo {{customer_name}}' }, { value: '', read: rec('initial_message'), want: '' }],
    bad: [{ value: 5, message: 'The initial message field must be a string.' }],
  },
  {
    field: 'system_prompt',
    ok: [{ value: 'Be brief.', read: rec('system_prompt'), want: 'Be brief.' }],
    bad: [{ value: ['x'], message: 'The system prompt field must be a string.' }],
  },
  {
    field: 'phone_number_id',
    ok: [
      { value: '__phone__', read: rec('phone_number_id'), want: '__phone__' },
      { value: null, read: rec('phone_number_id'), want: null },
    ],
    bad: [{ value: 99999, message: 'The selected phone number id is invalid.' }, { value: 'x' }, { value: -1 }],
  },
  {
    field: 'tool_ids',
    ok: [
      { value: ['__tool__'], read: rec('tool_ids'), want: ['__tool__'] },
      { value: [], read: rec('tool_ids'), want: [] },
    ],
    bad: [
      { value: [99999], key: 'tool_ids.0', message: 'The selected tool_ids.0 is invalid.' },
      { value: 'x', message: 'The tool ids field must be an array.' },
      { value: ['a'], key: 'tool_ids.0' },
    ],
  },
  ...['endpoint_sensitivity', 'interrupt_sensitivity'].map((field) => ({
    field,
    ok: [{ value: 0, read: rec(field), want: 0 }, { value: 5, read: rec(field), want: 5 }, { value: 2.5, read: rec(field), want: 2.5 }],
    bad: [
      { value: -0.01, message: `The ${field.replace('_', ' ')} field must be between 0 and 5.` },
      { value: 5.01 },
      { value: '3' },
    ],
  })),
  ...['ambient_sound_volume', 'llm_temperature', 'voice_stability', 'voice_similarity'].map((field) => ({
    field,
    ok: [{ value: 0, read: rec(field), want: '0.00' }, { value: 1, read: rec(field), want: '1.00' }, { value: 0.7, read: rec(field), want: '0.70' }],
    bad: [
      { value: -0.01, message: `The ${field.replace(/_/g, ' ')} field must be between 0 and 1.` },
      { value: 1.01 },
      { value: '0.5', message: `The ${field.replace(/_/g, ' ')} field must be a number.` },
    ],
  })),
  {
    field: 'speech_speed',
    ok: [{ value: 0.7, read: rec('speech_speed'), want: '0.70' }, { value: 1.2, read: rec('speech_speed'), want: '1.20' }],
    bad: [{ value: 0.69, message: 'The speech speed field must be between 0.7 and 1.2.' }, { value: 1.21 }, { value: 'fast' }],
  },
  ...(
    [
      ['post_call_evaluation', 'post_call_evaluation', (b: boolean) => b],
      ['send_webhook_only_on_completed', 'send_webhook_only_on_completed', (b: boolean) => b],
      ['include_recording_in_webhook', 'include_recording_in_webhook', (b: boolean) => b],
      ['allow_interruptions', 'allow_interruptions', (b: boolean) => b],
      ['filler_audios', 'fillers', (b: boolean) => (b ? 1 : 0)],
      ['end_call_on_voicemail', 'end_call_on_voicemail', (b: boolean) => (b ? 1 : 0)],
      ['noise_cancellation', 'enable_noise_cancellation', (b: boolean) => b],
      ['record_call', 'record', (b: boolean) => b],
    ] as const
  ).map(([field, key, map]) => ({
    field,
    ok: [{ value: true, read: rec(key), want: map(true) }, { value: false, read: rec(key), want: map(false) }],
    bad: [{ value: 'yes', message: `The ${field.replace(/_/g, ' ')} field must be true or false.` }, { value: 2 }],
  })),
  {
    field: 'is_webhook_active',
    ok: [{ value: false, read: rec('is_webhook_active'), want: false }],
    bad: [{ value: 'on', message: 'The is webhook active field must be true or false.' }],
  },
  {
    field: 'webhook_url',
    ok: [
      { value: 'https://hooks.example.test/a?b=1', read: rec('webhook_url'), want: 'https://hooks.example.test/a?b=1' },
      { value: null, read: rec('webhook_url'), want: null },
    ],
    bad: [{ value: 'not a url', message: 'The webhook url field must be a valid URL.' }, { value: 'ftp://example.test/x' }, { value: 5 }],
  },
  {
    field: 'use_min_interrupt_words',
    ok: [{ value: true }, { value: false, read: rec('min_interrupt_words'), want: 0 }],
    bad: [{ value: 'no', message: 'The use min interrupt words field must be true or false.' }],
  },
  {
    field: 'min_interrupt_words',
    ok: [{ value: 0, read: rec('min_interrupt_words'), want: 0 }, { value: 10, read: rec('min_interrupt_words'), want: 10 }],
    bad: [
      { value: -1, message: 'The min interrupt words field must be between 0 and 10.' },
      { value: 11 },
      { value: 1.5, message: 'The min interrupt words field must be an integer.' },
      { value: '5' },
    ],
  },
  {
    field: 'variables',
    ok: [{ value: { company: 'ACME', n: 2 }, read: rec('variables'), want: { company: 'ACME', n: 2 } }, { value: {}, read: rec('variables'), want: {} }],
    bad: [{ value: [1, 2], message: 'The variables field must be an object.' }, { value: 'x' }],
  },
  {
    field: 'post_call_schema',
    ok: [
      {
        value: [{ name: 'Order_ID2', type: 'bool', description: 'd' }, { name: 'amount', type: 'number', description: 'Amount' }],
        read: rec('post_call_schema'),
        want: [{ name: 'Order_ID2', type: 'bool', description: 'd' }, { name: 'amount', type: 'number', description: 'Amount' }],
      },
      { value: [], read: rec('post_call_schema'), want: [] },
    ],
    bad: [
      { value: [{ name: 'bad-name', type: 'string', description: 'd' }], key: 'post_call_schema.0.name', message: 'The post_call_schema.0.name field format is invalid.' },
      { value: [{ name: 'ok', type: 'boolean', description: 'd' }], key: 'post_call_schema.0.type', message: 'The selected post_call_schema.0.type is invalid.' },
      { value: [{ name: 'ok', type: 'string' }], key: 'post_call_schema.0.description', message: 'The post_call_schema.0.description field is required.' },
      { value: [{ type: 'string', description: 'd' }], key: 'post_call_schema.0.name', message: 'The post_call_schema.0.name field is required.' },
      { value: 'x', message: 'The post call schema field must be an array.' },
    ],
  },
  {
    field: 'end_call_tool.description',
    ok: [{ value: s(500), read: (r) => r.tools, want: [{ type: 'end_call', data: { description: s(500) } }] }],
    bad: [{ value: s(501), message: 'The end call tool.description field must not be greater than 500 characters.' }, { value: 5 }],
  },
  {
    // Extension (issue 19): the message left on a voicemail box; '' and null clear it.
    field: 'voice_mail_message',
    ok: [
      { value: s(1000), read: rec('voice_mail_message'), want: s(1000) },
      { value: '  Hi {{customer_name}}, please call back.  ', read: rec('voice_mail_message'), want: 'Hi {{customer_name}}, please call back.' },
      { value: '', read: rec('voice_mail_message'), want: null },
      { value: null, read: rec('voice_mail_message'), want: null },
    ],
    bad: [{ value: s(1001), message: 'The voice mail message field must not be greater than 1000 characters.' }, { value: 5, message: 'The voice mail message field must be a string.' }],
  },
  {
    // Issue 26: the closing line before a silence hang-up; null: the default line, '': none (kept as '').
    field: 'silence_goodbye_message',
    ok: [
      { value: s(1000), read: rec('silence_goodbye_message'), want: s(1000) },
      { value: '  Thanks for calling, {{customer_name}}. Goodbye!  ', read: rec('silence_goodbye_message'), want: 'Thanks for calling, {{customer_name}}. Goodbye!' },
      { value: '', read: rec('silence_goodbye_message'), want: '' },
      { value: null, read: rec('silence_goodbye_message'), want: null },
    ],
    bad: [{ value: s(1001), message: 'The silence goodbye message field must not be greater than 1000 characters.' }, { value: 5, message: 'The silence goodbye message field must be a string.' }],
  },
  {
    // Issue 26: the assistant's own backchannel words (≤ 50, each ≤ 40 characters); trimmed, repeats once.
    field: 'backchannel_words',
    ok: [
      { value: ['jo', ' passt scho ', 'jo'], read: rec('backchannel_words'), want: ['jo', 'passt scho'] },
      { value: Array.from({ length: 50 }, (_, i) => `w${i}`), read: (r: Rec) => r.backchannel_words.length, want: 50 },
      { value: [s(40)], read: rec('backchannel_words'), want: [s(40)] },
      { value: [], read: rec('backchannel_words'), want: [] },
    ],
    bad: [
      { value: Array.from({ length: 51 }, (_, i) => `w${i}`), message: 'The backchannel words field must not have more than 50 items.' },
      { value: ['ok', s(41)], key: 'backchannel_words.1', message: 'The backchannel_words.1 field must not be greater than 40 characters.' },
      { value: [''], key: 'backchannel_words.0', message: 'The backchannel_words.0 field is required.' },
      { value: [5], key: 'backchannel_words.0', message: 'The backchannel_words.0 field must be a string.' },
      { value: 'mhm', message: 'The backchannel words field must be an array.' },
      { value: null },
    ],
  },
  {
    field: 're_engagement_interval',
    ok: [{ value: 7, read: rec('reengagement_interval'), want: 7 }, { value: 600, read: rec('reengagement_interval'), want: 600 }],
    bad: [{ value: 6, message: 'The re engagement interval field must be between 7 and 600.' }, { value: 601 }, { value: '30' }],
  },
  {
    field: 'max_call_duration',
    ok: [{ value: 20, read: rec('max_duration'), want: 20 }, { value: 1200, read: rec('max_duration'), want: 1200 }],
    bad: [{ value: 19, message: 'The max call duration field must be between 20 and 1200.' }, { value: 1201 }, { value: 60.5 }, { value: '60' }],
  },
  {
    field: 'max_silence_duration',
    ok: [{ value: 1, read: rec('max_silence_duration'), want: 1 }, { value: 120, read: rec('max_silence_duration'), want: 120 }],
    bad: [{ value: 0, message: 'The max silence duration field must be between 1 and 120.' }, { value: 121 }],
  },
  {
    field: 'who_speaks_first',
    ok: [{ value: 'Customer', read: rec('wait_for_customer'), want: true }, { value: 'AI assistant', read: rec('wait_for_customer'), want: false }],
    bad: [{ value: 'Nobody', message: 'The selected who speaks first is invalid.' }, { value: true }],
  },
  {
    field: 'status',
    ok: [{ value: 'inactive', read: rec('status'), want: 'inactive' }, { value: 'active', read: rec('status'), want: 'active' }],
    bad: [{ value: 'paused', message: 'The selected status is invalid.' }],
  },
];

/** Placeholders for ids only known at run time. */
function fill(x: unknown): unknown {
  if (x === '__phone__') return phoneId;
  if (x === '__tool__') return toolId;
  if (Array.isArray(x)) return x.map(fill);
  return x;
}

/** The flat key `end_call_tool.description` and the nested object are two spellings of one field. */
function bodyOf(field: string, value: unknown): Record<string, unknown> {
  return { [field]: fill(value) };
}

describe('update: every field of spec 4.9 at its edges', () => {
  for (const row of table()) {
    it(`${row.field}: accepts ${row.ok.length} edge values and reads them back`, async () => {
      for (const ok of row.ok) {
        const res = await alice.put(`/api/user/assistant/${assistantId}`, bodyOf(row.field, ok.value));
        expect(res.status, `${row.field}=${JSON.stringify(ok.value).slice(0, 40)}: ${JSON.stringify(res.body)}`).toBe(200);
        if (ok.read) {
          const read = await alice.get(`/api/user/assistant/${assistantId}`);
          expect(ok.read(read.body.data)).toEqual(fill(ok.want));
        }
      }
    });

    it(`${row.field}: rejects ${row.bad.length} values with 422 on that field and changes nothing`, async () => {
      const before = (await alice.get(`/api/user/assistant/${assistantId}`)).body.data;
      for (const bad of row.bad) {
        const res = await alice.put(`/api/user/assistant/${assistantId}`, bodyOf(row.field, bad.value));
        expect(res.status, `${row.field}=${JSON.stringify(bad.value).slice(0, 40)}`).toBe(422);
        expect(res.body.message).toBe('Validation failed');
        const key = bad.key ?? row.field;
        expect(Object.keys(res.body.errors)).toEqual([key]);
        if (bad.message) expect(res.body.errors[key]).toEqual([bad.message]);
      }
      expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data).toEqual(before);
    });
  }
});

describe('create: the same rules', () => {
  for (const row of table()) {
    it(`${row.field}: accepted edges create, rejected edges answer 422 on that field`, async () => {
      const base = minimalCreate;
      for (const ok of row.ok) {
        const res = await alice.post('/api/user/assistant', { ...base, ...bodyOf(row.field, ok.value) });
        expect(res.status, `${row.field}=${JSON.stringify(ok.value).slice(0, 40)}: ${JSON.stringify(res.body)}`).toBe(201);
        if (ok.read) expect(ok.read(res.body.data)).toEqual(fill(ok.want));
      }
      for (const bad of row.bad) {
        const res = await alice.post('/api/user/assistant', { ...base, ...bodyOf(row.field, bad.value) });
        expect(res.status, `${row.field}=${JSON.stringify(bad.value).slice(0, 40)}`).toBe(422);
        expect(res.body.message).toBe('Validation failed');
        const key = bad.key ?? row.field;
        expect(Object.keys(res.body.errors)).toEqual([key]);
        if (bad.message) expect(res.body.errors[key]).toEqual([bad.message]);
      }
    });
  }

  it('requires assistant_name, voice_id and calls_direction, one message each', async () => {
    const res = await alice.post('/api/user/assistant', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Validation failed',
      errors: {
        assistant_name: ['The assistant name field is required.'],
        voice_id: ['The voice id field is required.'],
        calls_direction: ['The calls direction field is required.'],
      },
    });
  });

  it('reports every failing field of one request together', async () => {
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, voice_id: 99999, language: 'Klingon', tool_ids: [99999] });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['language', 'tool_ids.0', 'voice_id']);
  });

  it('a rejected create leaves no assistant behind', async () => {
    const count = async () => (await alice.get('/api/user/assistants/get?per_page=1')).body.total;
    const before = await count();
    expect((await alice.post('/api/user/assistant', { ...minimalCreate, tool_ids: [toolId, 99999] })).status).toBe(422);
    expect(await count()).toBe(before);
  });
});

describe('end_call_tool.description: flat key and nested object', () => {
  it('accepts the nested object with the same limit and clears with null', async () => {
    let res = await alice.put(`/api/user/assistant/${assistantId}`, { end_call_tool: { description: s(500) } });
    expect(res.status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data.tools[0]).toEqual({ type: 'end_call', data: { description: s(500) } });
    res = await alice.put(`/api/user/assistant/${assistantId}`, { end_call_tool: { description: s(501) } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'end_call_tool.description': ['The end call tool.description field must not be greater than 500 characters.'] });
    res = await alice.put(`/api/user/assistant/${assistantId}`, { 'end_call_tool.description': null });
    expect(res.status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data.tools.filter((x: Rec) => x.type === 'end_call')).toEqual([]);
  });
});

describe('a failed write', () => {
  it('answers 500 "Assistant update failed" and rolls the whole update back', async () => {
    const { pool } = t.service.ctx.database;
    await alice.put(`/api/user/assistant/${assistantId}`, { tool_ids: [], assistant_name: 'Before' });
    // A real database failure in the middle of the transaction: inserting tool assignments fails.
    await pool.query(`CREATE FUNCTION sb_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`);
    await pool.query(`CREATE TRIGGER sb_test_fail BEFORE INSERT ON assistant_tools FOR EACH ROW EXECUTE FUNCTION sb_test_fail()`);
    try {
      const before = (await alice.get(`/api/user/assistant/${assistantId}`)).body.data;
      const res = await alice.put(`/api/user/assistant/${assistantId}`, { assistant_name: 'After', tool_ids: [toolId] });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Assistant update failed' });
      expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data).toEqual(before);
    } finally {
      await pool.query('DROP TRIGGER sb_test_fail ON assistant_tools');
      await pool.query('DROP FUNCTION sb_test_fail()');
    }
    const ok = await alice.put(`/api/user/assistant/${assistantId}`, { assistant_name: 'After', tool_ids: [toolId] });
    expect(ok.status).toBe(200);
  });
});

describe('bad input never yields a 500', () => {
  it('text the database cannot store is a 422 "format is invalid" on the field that holds it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ assistant_name: 'a\u0000b' }, 'assistant_name'],
      [{ name: 'a\u0000b' }, 'name'],
      [{ system_prompt: 'x\ud800y' }, 'system_prompt'],
      [{ variables: { k: 'v\u0000' } }, 'variables'],
      [{ variables: { 'k\u0000': 1 } }, 'variables'],
      [{ variables: { k: ['\udc00'] } }, 'variables'],
      [{ post_call_schema: [{ name: 'a', type: 'string', description: 'd\u0000' }] }, 'post_call_schema'],
      [{ end_call_tool: { description: '\u0000' } }, 'end_call_tool'],
    ];
    for (const [body, key] of cases) {
      const upd = await alice.put(`/api/user/assistant/${assistantId}`, body);
      expect(upd.status, JSON.stringify(body)).toBe(422);
      expect(upd.body.message).toBe('Validation failed');
      expect(upd.body.errors, JSON.stringify(body)).toEqual({ [key]: [`The ${key.replace(/_/g, ' ')} field format is invalid.`] });
      const created = await alice.post('/api/user/assistant', { ...minimalCreate, ...body });
      expect(created.status, JSON.stringify(body)).toBe(422);
    }
    const sw = await alice.post('/api/user/assistants/enable-inbound-webhook', { assistant_id: assistantId, webhook_url: 'https://a.test/\u0000' });
    expect(sw).toMatchObject({ status: 422, body: { message: 'The given data was invalid.', errors: { webhook_url: ['The webhook url field format is invalid.'] } } });
    // a paired surrogate (an emoji) is fine
    const ok = await alice.put(`/api/user/assistant/${assistantId}`, { variables: { mood: '🙂' } });
    expect(ok.status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data.variables).toEqual({ mood: '🙂' });
  });

  it('a body that is not a JSON object counts as {}', async () => {
    for (const raw of ['[]', '"text"', 'null', '42']) {
      const upd = await alice.request('PUT', `/api/user/assistant/${assistantId}`, raw);
      expect(upd.status, raw).toBe(200);
      const created = await alice.request('POST', '/api/user/assistant', raw);
      expect(created.status, raw).toBe(422);
      expect(Object.keys(created.body.errors)).toEqual(['assistant_name', 'voice_id', 'calls_direction']);
      const sw = await alice.request('POST', '/api/user/assistants/disable-webhook', raw);
      expect(sw.body, raw).toEqual({ message: 'The given data was invalid.', errors: { assistant_id: ['The assistant id field is required.'] } });
    }
  });

  it('oversized ids and lists are 422s', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ voice_id: 2 ** 31 }, 'voice_id'],
      [{ voice_id: '99999999999' }, 'voice_id'],
      [{ phone_number_id: 1e300 }, 'phone_number_id'],
      [{ language_id: -5 }, 'language_id'],
      [{ max_call_duration: 1e300 }, 'max_call_duration'],
      [{ tool_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'tool_ids'],
    ];
    for (const [body, key] of cases) {
      const res = await alice.put(`/api/user/assistant/${assistantId}`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([key]);
    }
    const many = await alice.put(`/api/user/assistant/${assistantId}`, { tool_ids: Array.from({ length: 1000 }, (_, i) => i + 1) });
    // 1000 items pass the length rule; the ids that are not Alice's tools are each reported
    expect(many.status).toBe(422);
    expect(many.body.errors).not.toHaveProperty('tool_ids');
    expect(many.body.errors).not.toHaveProperty(`tool_ids.${toolId - 1}`);
    expect(Object.keys(many.body.errors)).toHaveLength(999);
    const sw = await alice.post('/api/user/assistants/disable-webhook', { assistant_id: 2 ** 31 });
    expect(sw.status).toBe(422);
  });
});
