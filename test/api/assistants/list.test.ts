/** GET /api/user/assistants/get: the pagination envelope of spec 2.8 / CONTRACT §3. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { minimalCreate } from './fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let ids: number[];

const PATH = 'http://app.test/api/user/assistants/get';

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  ids = [];
  for (let i = 1; i <= 24; i++) {
    const res = await alice.post('/api/user/assistant', { ...minimalCreate, assistant_name: `A${i}` });
    ids.push(res.body.data.id);
    // Bob's assistants interleave with Alice's and must never show up in her pages
    if (i % 5 === 0) await bob.post('/api/user/assistant', { ...minimalCreate, assistant_name: `B${i}` });
  }
  // one deleted assistant: 23 remain
  await alice.delete(`/api/user/assistant/${ids.pop()}`);
});
afterAll(() => t.close());

const link = (page: number, extra = 'per_page=10') => `${PATH}?${extra}&page=${page}`;

describe('assistant list over 23 assistants, per_page 10', () => {
  it('page 1', async () => {
    const res = await alice.get('/api/user/assistants/get?per_page=10&page=1');
    expect(res.status).toBe(200);
    const { data, ...envelope } = res.body;
    expect(data.map((a: { id: number }) => a.id)).toEqual(ids.slice(0, 10));
    expect(data[0].name).toBe('A1');
    expect(envelope).toEqual({
      current_page: 1,
      first_page_url: link(1),
      from: 1,
      last_page: 3,
      last_page_url: link(3),
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: link(1), label: '1', active: true },
        { url: link(2), label: '2', active: false },
        { url: link(3), label: '3', active: false },
        { url: link(2), label: 'Next &raquo;', active: false },
      ],
      next_page_url: link(2),
      path: PATH,
      per_page: 10,
      prev_page_url: null,
      to: 10,
      total: 23,
    });
  });

  it('page 2', async () => {
    const res = await alice.get('/api/user/assistants/get?per_page=10&page=2');
    expect(res.body.data.map((a: { id: number }) => a.id)).toEqual(ids.slice(10, 20));
    expect(res.body).toMatchObject({ current_page: 2, from: 11, to: 20, prev_page_url: link(1), next_page_url: link(3), total: 23 });
    expect(res.body.links.map((l: { active: boolean }) => l.active)).toEqual([false, false, true, false, false]);
  });

  it('page 3 holds the last three', async () => {
    const res = await alice.get('/api/user/assistants/get?per_page=10&page=3');
    expect(res.body.data.map((a: { id: number }) => a.id)).toEqual(ids.slice(20, 23));
    expect(res.body).toMatchObject({ current_page: 3, from: 21, to: 23, prev_page_url: link(2), next_page_url: null, last_page: 3 });
    expect(res.body.links.at(-1)).toEqual({ url: null, label: 'Next &raquo;', active: false });
  });

  it('page 4 is empty with from/to null', async () => {
    const res = await alice.get('/api/user/assistants/get?per_page=10&page=4');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 4, data: [], from: null, to: null, total: 23, last_page: 3, next_page_url: null, prev_page_url: link(3) });
  });

  it('defaults to page 1 with 10 per page; page URLs carry only the query the request sent', async () => {
    const res = await alice.get('/api/user/assistants/get');
    expect(res.body.per_page).toBe(10);
    expect(res.body.current_page).toBe(1);
    expect(res.body.data).toHaveLength(10);
    expect(res.body.next_page_url).toBe(`${PATH}?page=2`);
    expect(res.body.first_page_url).toBe(`${PATH}?page=1`);
  });

  it('per_page 1 and 100 are the edges; 0, 101 and non-integers → 422 on the field', async () => {
    expect((await alice.get('/api/user/assistants/get?per_page=1')).body).toMatchObject({ per_page: 1, last_page: 23 });
    expect((await alice.get('/api/user/assistants/get?per_page=100')).body.data).toHaveLength(23);
    for (const q of ['per_page=0', 'per_page=101', 'per_page=abc', 'per_page=2.5']) {
      const res = await alice.get(`/api/user/assistants/get?${q}`);
      expect(res.status, q).toBe(422);
      expect(Object.keys(res.body.errors), q).toEqual(['per_page']);
    }
    for (const q of ['page=0', 'page=x']) {
      const res = await alice.get(`/api/user/assistants/get?${q}`);
      expect(res.status, q).toBe(422);
      expect(Object.keys(res.body.errors), q).toEqual(['page']);
    }
  });

  it('never shows another user\'s assistants', async () => {
    const res = await bob.get('/api/user/assistants/get?per_page=100');
    expect(res.body.total).toBe(4);
    expect(res.body.data.every((a: { user_id: number }) => a.user_id === bob.id)).toBe(true);
    const fresh = await t.createUser();
    expect((await fresh.get('/api/user/assistants/get')).body).toMatchObject({ total: 0, data: [], from: null, to: null, last_page: 1 });
  });
});
