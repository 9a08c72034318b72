import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall, insertCalls } from './support.js';

const INVALID = 'The given data was invalid.';
const STATUSES = [
  'initiated', 'ringing', 'busy', 'in-progress', 'ended',
  'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed',
];

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

function expect422(res: { status: number; body: any }, field: string, message: string) {
  expect(res.status).toBe(422);
  expect(res.body.message).toBe(INVALID);
  expect(res.body.errors[field]).toEqual([message]);
}

describe('GET /api/user/calls — envelope, order, paging', () => {
  let u: TestUser;
  let ids: number[];
  beforeAll(async () => {
    u = await t.createUser();
    // 20 calls one minute apart, plus two sharing one timestamp (order falls back to id desc).
    ids = await insertCalls(t, u.id, Array.from({ length: 20 }, (_, i) => ({
      createdAt: new Date(Date.UTC(2026, 0, 1, 10, i)).toISOString(),
    })));
    ids.push(...await insertCalls(t, u.id, [
      { createdAt: '2026-01-02 00:00:00+00' },
      { createdAt: '2026-01-02 00:00:00+00' },
    ]));
  });

  it('answers an empty envelope to a user without calls', async () => {
    const fresh = await t.createUser();
    const res = await fresh.get('/api/user/calls');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      current_page: 1,
      data: [],
      first_page_url: 'http://base.test/api/user/calls?page=1',
      from: null,
      last_page: 1,
      last_page_url: 'http://base.test/api/user/calls?page=1',
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: 'http://base.test/api/user/calls?page=1', label: '1', active: true },
        { url: null, label: 'Next &raquo;', active: false },
      ],
      next_page_url: null,
      path: 'http://base.test/api/user/calls',
      per_page: 15,
      prev_page_url: null,
      to: null,
      total: 0,
    });
  });

  it('pages 15 by default, newest first, ties broken by id descending', async () => {
    const res = await u.get('/api/user/calls');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 22, last_page: 2, from: 1, to: 15 });
    const expected = [ids[21], ids[20], ...ids.slice(0, 20).reverse()];
    expect(res.body.data.map((c: any) => c.id)).toEqual(expected.slice(0, 15));
    const second = await u.get('/api/user/calls?page=2');
    expect(second.body).toMatchObject({ current_page: 2, from: 16, to: 22, total: 22, next_page_url: null });
    expect(second.body.data.map((c: any) => c.id)).toEqual(expected.slice(15));
    expect(second.body.prev_page_url).toBe('http://base.test/api/user/calls?page=1');
  });

  it('accepts per_page 1 and 100, rejects 0, 101, non-integers', async () => {
    const one = await u.get('/api/user/calls?per_page=1');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ per_page: 1, last_page: 22, total: 22 });
    expect(one.body.data).toHaveLength(1);
    const hundred = await u.get('/api/user/calls?per_page=100');
    expect(hundred.status).toBe(200);
    expect(hundred.body).toMatchObject({ per_page: 100, last_page: 1 });
    expect(hundred.body.data).toHaveLength(22);
    for (const bad of ['0', '101', '-1']) {
      expect422(await u.get(`/api/user/calls?per_page=${bad}`), 'per_page', 'The per page field must be between 1 and 100.');
    }
    for (const bad of ['abc', '1.5', '1e2', '%20']) {
      expect422(await u.get(`/api/user/calls?per_page=${bad}`), 'per_page', 'The per page field must be an integer.');
    }
  });

  it('accepts page 1 and beyond the last page (empty, with the total), rejects 0 and non-integers', async () => {
    const past = await u.get('/api/user/calls?page=5');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ current_page: 5, data: [], from: null, to: null, total: 22, last_page: 2 });
    const pastFiltered = await u.get('/api/user/calls?date_from=2026-01-01&page=3');
    expect(pastFiltered.body).toMatchObject({ current_page: 3, data: [], total: 22, last_page: 2 });
    const huge = await u.get('/api/user/calls?page=9007199254740991');
    expect(huge.status).toBe(200);
    expect(huge.body).toMatchObject({ data: [], total: 22 });
    expect422(await u.get('/api/user/calls?page=0'), 'page', 'The page field must be at least 1.');
    expect422(await u.get('/api/user/calls?page=x'), 'page', 'The page field must be an integer.');
  });

  it('treats an empty value as not sent, and rejects a repeated one', async () => {
    const res = await u.get('/api/user/calls?status=&type=&phone_number=&assistant_id=&campaign_id=&date_from=&date_to=&per_page=&page=');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 22, per_page: 15, current_page: 1 });
    expect422(await u.get('/api/user/calls?status=completed&status=failed'), 'status', 'The status field must be a string.');
  });

  it('keeps the other query parameters in every page URL', async () => {
    const res = await u.get('/api/user/calls?status=completed&per_page=2&page=3&type=outbound');
    expect(res.status).toBe(200);
    const url = (p: number) => `http://base.test/api/user/calls?status=completed&per_page=2&type=outbound&page=${p}`;
    expect(res.body).toMatchObject({
      current_page: 3,
      last_page: 11,
      path: 'http://base.test/api/user/calls',
      first_page_url: url(1),
      last_page_url: url(11),
      prev_page_url: url(2),
      next_page_url: url(4),
    });
    expect(res.body.links[0]).toEqual({ url: url(2), label: '&laquo; Previous', active: false });
    expect(res.body.links.find((l: any) => l.active)).toEqual({ url: url(3), label: '3', active: true });
    expect(res.body.links.at(-1)).toEqual({ url: url(4), label: 'Next &raquo;', active: false });
  });

  it('reports several invalid fields together', async () => {
    const res = await u.get('/api/user/calls?status=nope&type=fax&per_page=0');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: INVALID,
      errors: {
        status: ['The selected status is invalid.'],
        type: ['The selected type is invalid.'],
        per_page: ['The per page field must be between 1 and 100.'],
      },
    });
  });

  it('needs a token', async () => {
    expect(await t.anonymous.get('/api/user/calls')).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
  });
});

describe('GET /api/user/calls — filters', () => {
  let u: TestUser;
  let other: TestUser;
  let a1: number;
  let a2: number;
  let c1: number;
  let otherAssistant: number;
  let otherCampaign: number;
  const byStatus = new Map<string, number>();

  beforeAll(async () => {
    u = await t.createUser();
    other = await t.createUser();
    a1 = (await insertAssistant(t, u.id, { name: 'Sales' })).id;
    a2 = (await insertAssistant(t, u.id, { name: 'Support', type: 'inbound' })).id;
    c1 = (await insertCampaign(t, u.id, a1, { name: 'Spring' })).id;
    otherAssistant = (await insertAssistant(t, other.id)).id;
    otherCampaign = (await insertCampaign(t, other.id, otherAssistant)).id;
    for (const [i, status] of STATUSES.entries()) {
      const row = await insertCall(t, u.id, {
        status,
        assistantId: i % 2 === 0 ? a1 : a2,
        assistantName: i % 2 === 0 ? 'Sales' : 'Support',
        campaignId: i < 3 ? c1 : null,
        campaignName: i < 3 ? 'Spring' : null,
        type: i % 2 === 0 ? 'outbound' : i === 9 ? 'web' : 'inbound',
        clientPhoneNumber: i === 4 ? '+4915112345678' : `+4917012345${String(i).padStart(2, '0')}`,
        createdAt: `2026-03-${String(i + 1).padStart(2, '0')} 12:00:00+00`,
      });
      byStatus.set(status, row.id);
    }
    // The other user's calls share every attribute that a leak would show.
    await insertCall(t, other.id, { status: 'completed', assistantId: otherAssistant, campaignId: otherCampaign, clientPhoneNumber: '+4915112345678', createdAt: '2026-03-05 12:00:00+00' });
  });

  const ids = async (client: TestUser, query: string) => {
    const res = await client.get(`/api/user/calls${query}`);
    expect(res.status).toBe(200);
    return res.body.data.map((c: any) => c.id) as number[];
  };

  it('filters by each of the ten statuses', async () => {
    for (const status of STATUSES) expect(await ids(u, `?status=${status}`)).toEqual([byStatus.get(status)]);
  });

  it('rejects an unknown status, including near misses', async () => {
    for (const bad of ['unknown', 'Completed', 'in_progress', 'no_answer']) {
      expect422(await u.get(`/api/user/calls?status=${bad}`), 'status', 'The selected status is invalid.');
    }
  });

  it('filters by type and rejects others', async () => {
    expect(await ids(u, '?type=outbound')).toHaveLength(5);
    expect(await ids(u, '?type=web')).toEqual([byStatus.get('failed')]);
    expect(await ids(u, '?type=inbound')).toHaveLength(4);
    expect422(await u.get('/api/user/calls?type=phone'), 'type', 'The selected type is invalid.');
  });

  it('filters by the client number: E.164, national format, unencoded +, and as given when not a number', async () => {
    const target = [byStatus.get('ended')];
    expect(await ids(u, '?phone_number=%2B4915112345678')).toEqual(target);
    expect(await ids(u, '?phone_number=0151%2012345678')).toEqual(target); // national (DEFAULT_PHONE_REGION=DE)
    expect(await ids(u, '?phone_number=+4915112345678')).toEqual(target); // '+' arrives as a space
    expect(await ids(u, '?phone_number=%2B49%20151%201234%205678')).toEqual(target);
    expect(await ids(u, '?phone_number=%2B4915112345679')).toEqual([]);
    expect(await ids(u, '?phone_number=12345')).toEqual([]);
    const stored = await insertCall(t, u.id, { clientPhoneNumber: 'anonymous', status: 'failed', createdAt: '2025-01-01 00:00:00+00' });
    expect(await ids(u, '?phone_number=anonymous')).toEqual([stored.id]);
    expect(await ids(u, `?phone_number=${'1'.repeat(64)}`)).toEqual([]);
    expect422(await u.get(`/api/user/calls?phone_number=${'1'.repeat(65)}`), 'phone_number', 'The phone number field must not be greater than 64 characters.');
    for (const bad of ['%00', '%2B49%00151']) {
      expect422(await u.get(`/api/user/calls?phone_number=${bad}`), 'phone_number', 'The phone number field format is invalid.');
    }
    // Undecodable bytes arrive as U+FFFD, which is storable: no match, no error.
    expect(await ids(u, '?phone_number=%FF%E0%A4')).toEqual([]);
  });

  it('filters by assistant_id; edges of the integer', async () => {
    expect(await ids(u, `?assistant_id=${a1}`)).toEqual([8, 6, 4, 2, 0].map((i) => byStatus.get(STATUSES[i])));
    expect(await ids(u, `?assistant_id=${a2}&status=busy`)).toEqual([]);
    expect(await ids(u, `?assistant_id=${a1}&status=busy`)).toEqual([byStatus.get('busy')]);
    expect(await ids(u, '?assistant_id=2147483647')).toEqual([]);
    expect422(await u.get('/api/user/calls?assistant_id=abc'), 'assistant_id', 'The assistant id field must be an integer.');
    expect422(await u.get('/api/user/calls?assistant_id=1.0'), 'assistant_id', 'The assistant id field must be an integer.');
    expect422(await u.get('/api/user/calls?assistant_id=0'), 'assistant_id', 'The assistant id field must be between 1 and 2147483647.');
    expect422(await u.get('/api/user/calls?assistant_id=2147483648'), 'assistant_id', 'The assistant id field must be between 1 and 2147483647.');
  });

  it('filters by campaign_id; edges of the integer', async () => {
    expect(await ids(u, `?campaign_id=${c1}`)).toEqual([2, 1, 0].map((i) => byStatus.get(STATUSES[i])));
    expect(await ids(u, '?campaign_id=2147483647')).toEqual([]);
    expect422(await u.get('/api/user/calls?campaign_id=x1'), 'campaign_id', 'The campaign id field must be an integer.');
    expect422(await u.get('/api/user/calls?campaign_id=-3'), 'campaign_id', 'The campaign id field must be between 1 and 2147483647.');
  });

  it("never shows the other user's calls, also when filtering by the other's assistant or campaign", async () => {
    expect(await ids(u, `?assistant_id=${otherAssistant}`)).toEqual([]);
    expect(await ids(u, `?campaign_id=${otherCampaign}`)).toEqual([]);
    expect(await ids(other, `?assistant_id=${a1}`)).toEqual([]);
    expect(await ids(other, `?campaign_id=${c1}`)).toEqual([]);
    const mine = await u.get('/api/user/calls?per_page=100');
    const theirs = await other.get('/api/user/calls?per_page=100');
    expect(theirs.body.total).toBe(1);
    const mineIds = new Set(mine.body.data.map((c: any) => c.id));
    expect(theirs.body.data.some((c: any) => mineIds.has(c.id))).toBe(false);
    expect(await ids(other, '?phone_number=%2B4915112345678')).toEqual([theirs.body.data[0].id]);
  });

  it('combines filters with AND', async () => {
    expect(await ids(u, `?assistant_id=${a1}&campaign_id=${c1}&type=outbound&date_from=2026-03-02`)).toEqual([byStatus.get('busy')]);
  });

  it('answers every combination of the seven filters with exactly the matching calls and their total', async () => {
    // Each combination has its own prepared statements (src/api/calls/service.ts); the values are
    // those of the 'busy' call, so every combination matches at least that one.
    const mine = await t.service.ctx.database.db.select().from(calls).where(eq(calls.userId, u.id));
    const target = mine.find((c) => c.status === 'busy')!;
    const filters = [
      { param: `status=${target.status}`, match: (c: typeof target) => c.status === target.status },
      { param: `type=${target.type}`, match: (c: typeof target) => c.type === target.type },
      { param: `phone_number=${encodeURIComponent(target.clientPhoneNumber)}`, match: (c: typeof target) => c.clientPhoneNumber === target.clientPhoneNumber },
      { param: `assistant_id=${target.assistantId}`, match: (c: typeof target) => c.assistantId === target.assistantId },
      { param: `campaign_id=${target.campaignId}`, match: (c: typeof target) => c.campaignId === target.campaignId },
      { param: 'date_from=2026-03-02', match: (c: typeof target) => c.createdAt >= '2026-03-02' },
      { param: 'date_to=2026-03-08', match: (c: typeof target) => c.createdAt < '2026-03-09' },
    ];
    const newestFirst = [...mine].sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
    for (let mask = 0; mask < 1 << filters.length; mask++) {
      const chosen = filters.filter((_, i) => mask & (1 << i));
      const expected = newestFirst.filter((c) => chosen.every((f) => f.match(c))).map((c) => c.id);
      // Page 1 and page 2 run different statements (the first page reads its rows off the index range).
      for (const page of [1, 2]) {
        const res = await u.get(`/api/user/calls?per_page=2&page=${page}&${chosen.map((f) => f.param).join('&')}`);
        expect(res.status).toBe(200);
        expect({ mask, page, total: res.body.total, ids: res.body.data.map((c: any) => c.id) })
          .toEqual({ mask, page, total: expected.length, ids: expected.slice((page - 1) * 2, page * 2) });
      }
    }
  });
});

describe('GET /api/user/calls — records', () => {
  it('lists each call as the same record as reading it alone, also for text to escape and JSON that is not an object', async () => {
    // The list reads its rows as arrays of the record's columns; the single read goes through drizzle.
    const u = await t.createUser();
    const plain = await insertCall(t, u.id, {
      transcript: 'AI: "Hi" \\ there\n\tCustomer: Grüße 👋 \u0001',
      variables: { b: 2, a: [1, { x: null }], big: 12.5 },
      evaluation: { status: true, summary: 'ok' },
      carrierCost: '0.01493333',
      totalCost: '0.00000001',
      campaignName: null,
      recordingUrl: 'https://rec.example.test/1?a=1&b=2',
      createdAt: '2026-03-05 12:00:00.123456+00',
    });
    const odd = await insertCall(t, u.id, { createdAt: '2026-03-04 12:00:00+00' });
    await t.service.ctx.database.pool.query(
      `UPDATE calls SET variables = '[1, 2]', evaluation = 'null', webhook_response = '"text"' WHERE id = $1`,
      [odd.id],
    );
    const list = await u.get('/api/user/calls');
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.body.data.map((c: any) => c.id)).toEqual([plain.id, odd.id]);
    for (const listed of list.body.data) {
      const alone = await u.get(`/api/user/calls/${listed.id}`);
      expect(alone.status).toBe(200);
      expect(listed).toEqual(alone.body);
      expect(Object.keys(listed)).toEqual(Object.keys(alone.body));
    }
    expect(list.body.data[1]).toMatchObject({ variables: { body: [1, 2] }, evaluation: {}, webhook_response: { body: 'text' } });
    expect(list.body.data[0].total_cost).toBe(0.00000001);
  });
});

describe('GET /api/user/calls — date range (inclusive whole UTC days)', () => {
  let u: TestUser;
  const at = new Map<string, number>();
  beforeAll(async () => {
    u = await t.createUser();
    for (const ts of [
      '2026-03-09 23:59:59.999999+00',
      '2026-03-10 00:00:00+00',
      '2026-03-10 23:59:59.999999+00',
      '2026-03-11 00:00:00+00',
      '2026-03-10 23:30:00-02', // 2026-03-11 01:30 UTC
      '2024-02-29 12:00:00+00',
    ]) {
      at.set(ts, (await insertCall(t, u.id, { createdAt: ts })).id);
    }
  });
  const ids = async (query: string) => {
    const res = await u.get(`/api/user/calls?per_page=100&${query}`);
    expect(res.status).toBe(200);
    return (res.body.data.map((c: any) => c.id) as number[]).sort((a, b) => a - b);
  };
  const idsOf = (...ts: string[]) => ts.map((s) => at.get(s)!).sort((a, b) => a - b);

  it('takes a single day from its first to its last microsecond', async () => {
    expect(await ids('date_from=2026-03-10&date_to=2026-03-10')).toEqual(idsOf('2026-03-10 00:00:00+00', '2026-03-10 23:59:59.999999+00'));
  });

  it('date_from alone starts at 00:00 UTC of that day; date_to alone ends at its last instant', async () => {
    expect(await ids('date_from=2026-03-11')).toEqual(idsOf('2026-03-11 00:00:00+00', '2026-03-10 23:30:00-02'));
    expect(await ids('date_to=2026-03-09')).toEqual(idsOf('2026-03-09 23:59:59.999999+00', '2024-02-29 12:00:00+00'));
    expect(await ids('date_from=2024-02-29&date_to=2024-02-29')).toEqual(idsOf('2024-02-29 12:00:00+00'));
  });

  it('shows created_at in UTC', async () => {
    const res = await u.get(`/api/user/calls/${at.get('2026-03-10 23:30:00-02')}`);
    expect(res.body.created_at).toBe('2026-03-11 01:30:00');
  });

  it('accepts real calendar dates at the edges', async () => {
    for (const d of ['0001-01-01', '9999-12-31', '2024-02-29', '2000-02-29', '2026-12-31']) {
      expect((await u.get(`/api/user/calls?date_from=${d}`)).status).toBe(200);
      expect((await u.get(`/api/user/calls?date_to=${d}`)).status).toBe(200);
    }
    expect(await ids('date_from=9999-12-31')).toEqual([]);
    expect(await ids('date_to=9999-12-31')).toHaveLength(6);
  });

  it('rejects impossible dates and other formats', async () => {
    for (const bad of ['2026-02-30', '2025-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-01-01', '2026-1-05', '26-01-05', '2026/01/05', '2026-01-05T00:00:00', 'today']) {
      expect422(await u.get(`/api/user/calls?date_from=${bad}`), 'date_from', 'The date from field must match the format Y-m-d.');
      expect422(await u.get(`/api/user/calls?date_to=${bad}`), 'date_to', 'The date to field must match the format Y-m-d.');
    }
  });

  it('rejects date_to before date_from; equal is fine', async () => {
    expect422(
      await u.get('/api/user/calls?date_from=2026-03-11&date_to=2026-03-10'),
      'date_to',
      'The date to field must be a date after or equal to date from.',
    );
    expect((await u.get('/api/user/calls?date_from=2026-03-11&date_to=2026-03-11')).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents every query parameter of the call list', async () => {
    const res = await t.anonymous.get('/openapi.json');
    const params = res.body.paths['/api/user/calls'].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    for (const name of ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to', 'page', 'per_page']) {
      expect(params).toContain(`query:${name}`);
    }
  });
});
