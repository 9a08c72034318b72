/**
 * Built-in tools in assistant create and update (issue 20): every field of every type at its
 * accepted and rejected edge, in the flat request form `{type, …}` and the nested form
 * `{type, data: {…}}`; the record's nested `{type, data}` entries with defaults; the Cal.com
 * key sealed at rest and masked in the record; a second user's assistant and phone number refused.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistants } from '../../../src/db/schema.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;
let otherId: number;
let phoneId: number;
let bobPhoneId: number;
let bobAssistantId: number;

beforeAll(async () => {
  t = await startTestService({ env: { SECRET_KEY: 's'.repeat(40) } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  phoneId = (await t.addPhoneNumber(alice.id)).id;
  bobPhoneId = (await t.addPhoneNumber(bob.id)).id;
  assistantId = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
  otherId = (await alice.post('/api/user/assistant', { ...minimalCreate, assistant_name: 'Sales' })).body.data.id;
  bobAssistantId = (await bob.post('/api/user/assistant', minimalCreate)).body.data.id;
});
afterAll(() => t.close());

type Item = Record<string, unknown>;
const s = (n: number) => 'x'.repeat(n);

interface FieldCase {
  field: string;
  ok: { value: unknown; want?: unknown }[];
  bad: { value: unknown; message?: string }[];
}
interface TypeCase {
  type: string;
  base: () => Item;
  /** The record's data for `base` (every field, defaults applied). */
  record: () => Item;
  fields: () => FieldCase[];
}

const text = (field: string, max: number): FieldCase => ({
  field,
  ok: [{ value: s(max) }, { value: null }],
  bad: [{ value: s(max + 1), message: `must not be greater than ${max} characters.` }, { value: 5, message: 'must be a string.' }],
});
const phone = (field: string, required: boolean): FieldCase => ({
  field,
  ok: [{ value: '+4915112345678' }, { value: '+1234567' }, { value: '+123456789012345' }],
  bad: [
    { value: '015112345678', message: 'format is invalid.' },
    { value: '+123456', message: 'format is invalid.' },
    { value: '+1234567890123456', message: 'must not be greater than 16 characters.' },
    ...(required ? [{ value: undefined, message: 'is required.' }] : []),
  ],
});
const bool = (field: string): FieldCase => ({
  field,
  ok: [{ value: true }, { value: false }],
  bad: [{ value: 'yes', message: 'must be true or false.' }],
});
const oneOf = (field: string, values: string[], wrong: unknown): FieldCase => ({
  field,
  ok: values.map((value) => ({ value })),
  bad: [{ value: wrong, message: 'is invalid.' }],
});

const TYPES = (): TypeCase[] => [
  {
    type: 'end_call',
    base: () => ({}),
    record: () => ({ description: null }),
    fields: () => [text('description', 500)],
  },
  {
    type: 'call_transfer',
    base: () => ({ phone_number: '+4915112345678' }),
    record: () => ({ phone_number: '+4915112345678', description: null, warm_transfer: false, warm_transfer_message: null, timezone: null }),
    fields: () => [
      phone('phone_number', true),
      text('description', 500),
      bool('warm_transfer'),
      text('warm_transfer_message', 1000),
      { field: 'timezone', ok: [{ value: 'Europe/Berlin' }], bad: [{ value: 'Mars/Base', message: 'must be a valid timezone.' }] },
    ],
  },
  {
    type: 'warm_call_transfer',
    base: () => ({ supervisor_phone: '+4930123456', outbound_phone_id: phoneId, description: 'Escalate to a human' }),
    record: () => ({
      supervisor_phone: '+4930123456',
      outbound_phone_id: phoneId,
      description: 'Escalate to a human',
      caller_id_mode: 'outbound_number',
      custom_caller_id: null,
      hold_music: 'hold_music',
      hold_music_volume: 80,
      hold_message: null,
      summary_instructions: null,
      briefing_initial_message: null,
      connected_message: null,
    }),
    fields: () => [
      phone('supervisor_phone', true),
      {
        field: 'outbound_phone_id',
        ok: [{ value: phoneId }, { value: String(phoneId), want: phoneId }],
        bad: [
          { value: bobPhoneId, message: 'is invalid.' },
          { value: 99999, message: 'is invalid.' },
          { value: 'abc', message: 'must be an integer.' },
          { value: undefined, message: 'is required.' },
        ],
      },
      {
        field: 'description',
        ok: [{ value: s(500) }, { value: 'a' }],
        bad: [{ value: '', message: 'is required.' }, { value: undefined, message: 'is required.' }, { value: s(501), message: 'must not be greater than 500 characters.' }],
      },
      oneOf('caller_id_mode', ['outbound_number', 'customer_number'], 'anonymous'),
      phone('custom_caller_id', false),
      oneOf('hold_music', ['hold_music', 'none'], 'jazz'),
      {
        field: 'hold_music_volume',
        ok: [{ value: 0 }, { value: 100 }],
        bad: [
          { value: -1, message: 'must be between 0 and 100.' },
          { value: 101, message: 'must be between 0 and 100.' },
          { value: 50.5, message: 'must be an integer.' },
        ],
      },
      text('hold_message', 1000),
      text('summary_instructions', 2000),
      text('briefing_initial_message', 1000),
      text('connected_message', 1000),
    ],
  },
  {
    type: 'dtmf_input',
    base: () => ({}),
    record: () => ({ description: null }),
    fields: () => [text('description', 500)],
  },
  {
    type: 'collect_keypad',
    base: () => ({}),
    record: () => ({ timeout: 5, stop_key: null }),
    fields: () => [
      {
        field: 'timeout',
        ok: [{ value: 1 }, { value: 30 }],
        bad: [
          { value: 0, message: 'must be between 1 and 30.' },
          { value: 31, message: 'must be between 1 and 30.' },
          { value: 2.5, message: 'must be an integer.' },
        ],
      },
      { field: 'stop_key', ok: [{ value: '#' }, { value: '*' }, { value: null }], bad: [{ value: '0', message: 'is invalid.' }] },
    ],
  },
  {
    type: 'assistant_transfer',
    base: () => ({ assistant_id: otherId }),
    record: () => ({ assistant_id: otherId, description: null, message_before_transfer: null, speak_transfer_greeting: true }),
    fields: () => [
      {
        field: 'assistant_id',
        ok: [{ value: otherId }, { value: String(otherId), want: otherId }],
        bad: [
          { value: bobAssistantId, message: 'is invalid.' },
          { value: assistantId, message: 'must not be the assistant itself.' },
          { value: 0, message: 'is invalid.' },
          { value: 'x', message: 'must be an integer.' },
          { value: undefined, message: 'is required.' },
        ],
      },
      text('description', 500),
      text('message_before_transfer', 500),
      bool('speak_transfer_greeting'),
    ],
  },
  {
    type: 'calendar_integration',
    base: () => ({ calcom_api_key: 'cal_live_0123456789abcdef', calcom_event_slug: 'intro-call' }),
    record: () => ({
      calcom_api_key: '••••cdef',
      calcom_event_slug: 'intro-call',
      calcom_team_slug: null,
      calcom_endpoint: 'us',
      calcom_custom_endpoint: null,
      calcom_booking_fields: [],
    }),
    fields: () => [
      {
        field: 'calcom_api_key',
        ok: [{ value: `cal_${s(251)}`, want: `••••${s(4)}` }, { value: 'short', want: '••••' }],
        bad: [{ value: '', message: 'is required.' }, { value: undefined, message: 'is required.' }, { value: s(256), message: 'must not be greater than 255 characters.' }],
      },
      {
        field: 'calcom_event_slug',
        ok: [{ value: s(255) }, { value: 'a.b_c-1' }],
        bad: [{ value: 'a b', message: 'format is invalid.' }, { value: undefined, message: 'is required.' }, { value: s(256), message: 'must not be greater than 255 characters.' }],
      },
      {
        field: 'calcom_team_slug',
        ok: [{ value: 'sales-team' }, { value: null }],
        bad: [{ value: 'a/b', message: 'format is invalid.' }],
      },
      oneOf('calcom_endpoint', ['us', 'eu'], 'asia'),
      {
        field: 'calcom_custom_endpoint',
        ok: [{ value: 'https://cal.example.com/v2' }],
        bad: [{ value: 'ftp://cal.example.com', message: 'must be a valid URL.' }],
      },
      {
        field: 'calcom_booking_fields',
        ok: [{ value: ['name', 'email', 'notes'] }, { value: Array.from({ length: 20 }, (_, i) => `f${i}`) }],
        bad: [
          { value: Array.from({ length: 21 }, (_, i) => `f${i}`), message: 'must not have more than 20 items.' },
          { value: 'name', message: 'must be an array.' },
        ],
      },
    ],
  },
];

const flat = (type: string, fields: Item) => ({ type, ...fields });
const nested = (type: string, fields: Item) => ({ type, data: fields });
const FORMS = [
  { name: 'flat', make: flat, prefix: 'tools.0.' },
  { name: 'nested', make: nested, prefix: 'tools.0.data.' },
] as const;

const withField = (base: Item, field: string, value: unknown) => {
  const out = { ...base };
  if (value === undefined) delete out[field];
  else out[field] = value;
  return out;
};

async function toolsOf(user: TestUser, id = assistantId) {
  const res = await user.get(`/api/user/assistant/${id}`);
  expect(res.status).toBe(200);
  return res.body.data.tools as { type: string; data: Item }[];
}

describe.each(TYPES())('$type', (tc) => {
  it.each(FORMS)('is stored from the $name form and returned nested under data with its defaults', async ({ make }) => {
    const res = await alice.put(`/api/user/assistant/${assistantId}`, { tools: [make(tc.type, tc.base())] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await toolsOf(alice)).toEqual([{ type: tc.type, data: tc.record() }]);
  });

  it.each(FORMS)('accepts every field at its edges ($name form)', async ({ make }) => {
    for (const f of tc.fields()) {
      for (const ok of f.ok) {
        const res = await alice.put(`/api/user/assistant/${assistantId}`, { tools: [make(tc.type, withField(tc.base(), f.field, ok.value))] });
        expect(res.status, `${f.field}=${JSON.stringify(ok.value)} ${JSON.stringify(res.body)}`).toBe(200);
        const [entry] = await toolsOf(alice);
        expect(entry.data[f.field], f.field).toEqual(ok.want ?? ok.value);
      }
    }
  });

  it.each(FORMS)('refuses every field past its edge, named as sent, and changes nothing ($name form)', async ({ make, prefix }) => {
    await alice.put(`/api/user/assistant/${assistantId}`, { tools: [make(tc.type, tc.base())] });
    const before = await toolsOf(alice);
    for (const f of tc.fields()) {
      for (const bad of f.bad) {
        const res = await alice.put(`/api/user/assistant/${assistantId}`, { tools: [make(tc.type, withField(tc.base(), f.field, bad.value))] });
        const label = `${f.field}=${JSON.stringify(bad.value)} ${JSON.stringify(res.body)}`;
        expect(res.status, label).toBe(422);
        expect(res.body.message).toBe('Validation failed');
        const key = `${prefix}${f.field}`;
        expect(Object.keys(res.body.errors), label).toEqual([key]);
        expect(res.body.errors[key].join(' '), label).toContain(key);
        if (bad.message) expect(res.body.errors[key].join(' '), label).toContain(bad.message);
      }
    }
    expect(await toolsOf(alice)).toEqual(before);
  });

  it('is accepted on create too', async () => {
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, tools: [flat(tc.type, tc.base())] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.tools).toEqual([{ type: tc.type, data: tc.record() }]);
  });
});

describe('rules across fields and items', () => {
  it('requires custom_caller_id when caller_id_mode is custom, and calcom_custom_endpoint when calcom_endpoint is custom', async () => {
    const warm = { supervisor_phone: '+4930123456', outbound_phone_id: phoneId, description: 'd', caller_id_mode: 'custom' };
    const cal = { calcom_api_key: 'k', calcom_event_slug: 'e', calcom_endpoint: 'custom' };
    const res = await alice.put(`/api/user/assistant/${assistantId}`, { tools: [flat('warm_call_transfer', warm), nested('calendar_integration', cal)] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'tools.0.custom_caller_id': ['The tools.0.custom_caller_id field is required when caller id mode is custom.'],
      'tools.1.data.calcom_custom_endpoint': ['The tools.1.data.calcom_custom_endpoint field is required when calcom endpoint is custom.'],
    });
    const ok = await alice.put(`/api/user/assistant/${assistantId}`, {
      tools: [flat('warm_call_transfer', { ...warm, custom_caller_id: '+4930999999' }), nested('calendar_integration', { ...cal, calcom_custom_endpoint: 'https://cal.example.com' })],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('names an unknown or missing type, an item that is not an object, and data that is not an object', async () => {
    const res = await alice.put(`/api/user/assistant/${assistantId}`, {
      tools: [{ type: 'teleport' }, { phone_number: '+4930123456' }, 'end_call', { type: 'end_call', data: 'x' }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'tools.0.type': ['The selected tools.0.type is invalid.'],
      'tools.1.type': ['The tools.1.type field is required.'],
      'tools.2': ['The tools.2 field must be an object.'],
      'tools.3.data': ['The tools.3.data field must be an object.'],
    });
    const notArray = await alice.put(`/api/user/assistant/${assistantId}`, { tools: { type: 'end_call' } });
    expect(notArray.body.errors).toEqual({ tools: ['The tools field must be an array.'] });
  });

  it('keeps several items in order beside the mid-call tools; tools [] removes them; an update without tools keeps them', async () => {
    const items = [flat('dtmf_input', {}), nested('collect_keypad', { timeout: 9 }), flat('call_transfer', { phone_number: '+4930123456' })];
    expect((await alice.put(`/api/user/assistant/${assistantId}`, { tools: items })).status).toBe(200);
    expect((await toolsOf(alice)).map((x) => x.type)).toEqual(['dtmf_input', 'collect_keypad', 'call_transfer']);
    expect((await alice.put(`/api/user/assistant/${assistantId}`, { system_prompt: 'Be brief.' })).status).toBe(200);
    expect((await toolsOf(alice)).length).toBe(3);
    expect((await alice.put(`/api/user/assistant/${assistantId}`, { tools: [] })).status).toBe(200);
    expect(await toolsOf(alice)).toEqual([]);
  });

  it('leaves the hidden end_call entry of end_call_tool.description as it is, and never doubles it', async () => {
    const a = (await alice.post('/api/user/assistant', { ...minimalCreate, 'end_call_tool.description': 'Say goodbye first' })).body.data;
    expect(a.tools).toEqual([{ type: 'end_call', data: { description: 'Say goodbye first' } }]);
    // The record's tools sent back as they are: still one end_call entry.
    expect((await alice.put(`/api/user/assistant/${a.id}`, { tools: a.tools })).status).toBe(200);
    expect(await toolsOf(alice, a.id)).toEqual([{ type: 'end_call', data: { description: 'Say goodbye first' } }]);
    // A built-in end_call without its own description takes the spec field's.
    expect((await alice.put(`/api/user/assistant/${a.id}`, { tools: [{ type: 'end_call' }, { type: 'dtmf_input' }] })).status).toBe(200);
    expect(await toolsOf(alice, a.id)).toEqual([
      { type: 'end_call', data: { description: 'Say goodbye first' } },
      { type: 'dtmf_input', data: { description: null } },
    ]);
  });

  it('ignores mid_call_tool items (tool_ids governs them) so a record echoed back keeps its built-ins', async () => {
    const res = await alice.put(`/api/user/assistant/${assistantId}`, {
      tools: [{ type: 'mid_call_tool', data: { id: 123, name: 'x', description: 'y' } }, { type: 'dtmf_input' }],
    });
    expect(res.status).toBe(200);
    const tools = await toolsOf(alice);
    expect(tools).toEqual([{ type: 'dtmf_input', data: { description: null } }]);
    const read = await alice.get(`/api/user/assistant/${assistantId}`);
    expect(read.body.data.tool_ids).toEqual([]);
  });
});

describe('the Cal.com key', () => {
  const KEY = 'cal_live_secret_0123456789ABCD';

  it('is stored sealed, shown masked, and kept when the masked record value is sent back', async () => {
    const item = { type: 'calendar_integration', calcom_api_key: KEY, calcom_event_slug: 'intro' };
    expect((await alice.put(`/api/user/assistant/${assistantId}`, { tools: [item] })).status).toBe(200);
    const db = t.service.ctx.database.db;
    const [row] = await db.select({ raw: assistants.builtinTools }).from(assistants).where(eq(assistants.id, assistantId));
    expect(JSON.stringify(row.raw)).not.toContain(KEY);
    expect(JSON.stringify(row.raw)).toContain('"calcom_api_key_sealed":"v1:');
    const tools = await toolsOf(alice);
    expect(tools[0].data.calcom_api_key).toBe('••••ABCD');
    expect(JSON.stringify(await alice.get('/api/user/assistants/get'))).not.toContain(KEY);

    // Echo the record's entry (masked key) back: the sealed key is unchanged.
    expect((await alice.put(`/api/user/assistant/${assistantId}`, { tools })).status).toBe(200);
    const [after] = await db.select({ raw: assistants.builtinTools }).from(assistants).where(eq(assistants.id, assistantId));
    const sealed = (raw: unknown) => (raw as { data: Item }[])[0].data;
    expect(sealed(after.raw).calcom_api_key_sealed).toBe(sealed(row.raw).calcom_api_key_sealed);
    expect(sealed(after.raw).calcom_api_key_hint).toBe('••••ABCD');
    expect(await toolsOf(alice)).toEqual(tools);
  });
});

describe('a second user', () => {
  it("cannot name Alice's assistant or phone number, and Alice's tools stay hers", async () => {
    const res = await bob.put(`/api/user/assistant/${bobAssistantId}`, {
      tools: [
        { type: 'assistant_transfer', assistant_id: otherId },
        { type: 'warm_call_transfer', data: { supervisor_phone: '+4930123456', outbound_phone_id: phoneId, description: 'd' } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'tools.0.assistant_id': ['The selected tools.0.assistant_id is invalid.'],
      'tools.1.data.outbound_phone_id': ['The selected tools.1.data.outbound_phone_id is invalid.'],
    });
    expect((await bob.put(`/api/user/assistant/${assistantId}`, { tools: [{ type: 'end_call' }] })).status).toBe(404);
  });

  it('refuses a deleted assistant as transfer target', async () => {
    const gone = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
    expect((await alice.delete(`/api/user/assistant/${gone}`)).status).toBe(200);
    const res = await alice.put(`/api/user/assistant/${assistantId}`, { tools: [{ type: 'assistant_transfer', assistant_id: gone }] });
    expect(res.body.errors).toEqual({ 'tools.0.assistant_id': ['The selected tools.0.assistant_id is invalid.'] });
  });
});
