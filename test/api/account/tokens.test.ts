import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('the caller\'s own API tokens', () => {
  it('lists them without the token itself, marking the one of the request', async () => {
    const res = await alice.get('/api/user/tokens');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: expect.any(Number), created_at: expect.stringMatching(ISO), revoked_at: null, current: true }] });
    expect(JSON.stringify(res.body)).not.toContain(alice.token);
  });

  it('issues a working token, shown once, and revokes it at once', async () => {
    const issued = await alice.post('/api/user/tokens');
    expect(issued.status).toBe(201);
    expect(issued.body.data.token).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    const second = t.client(issued.body.data.token);
    expect((await second.get('/api/user/me')).body.name).toBe('Alice');
    const list = (await second.get('/api/user/tokens')).body.data;
    expect(list).toHaveLength(2);
    expect(list.find((x: { current: boolean }) => x.current).id).toBe(issued.body.data.id);

    const revoked = await alice.delete(`/api/user/tokens/${issued.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: 'Token revoked successfully' });
    expect((await second.get('/api/user/me')).status).toBe(401);
    const after = (await alice.get('/api/user/tokens')).body.data;
    expect(after[1].revoked_at).toMatch(ISO);
    expect((await alice.delete(`/api/user/tokens/${issued.body.data.id}`)).status).toBe(404);
  });

  it("never lists or revokes another user's tokens", async () => {
    const bobs = (await bob.get('/api/user/tokens')).body.data;
    expect(bobs).toHaveLength(1);
    for (const id of [bobs[0].id, 999999, 'x']) {
      const res = await alice.delete(`/api/user/tokens/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Token not found.' });
    }
    expect((await bob.get('/api/user/me')).status).toBe(200);
    const alices = (await alice.get('/api/user/tokens')).body.data.map((x: { id: number }) => x.id);
    expect(alices).not.toContain(bobs[0].id);
  });

  it('needs a token', async () => {
    expect((await t.anonymous.get('/api/user/tokens')).status).toBe(401);
    expect((await t.anonymous.post('/api/user/tokens')).status).toBe(401);
  });
});
