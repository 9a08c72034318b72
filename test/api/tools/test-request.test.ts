import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let guarded: TestService;
let alice: TestUser;
let bob: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver((req) =>
    req.path.startsWith('/slow') ? { status: 200, body: '{}', delayMs: 3000 } : { status: 201, body: JSON.stringify({ booked: true, got: req.path }) },
  );
  t = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  guarded = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(async () => {
  await t.close();
  await guarded.close();
  await receiver.close();
});

const tool = async (user: TestUser, body: Record<string, unknown>) => {
  const res = await user.post('/api/user/tools', {
    name: 'book_slot',
    description: 'Books a slot',
    method: 'POST',
    headers: [{ name: 'X-Api-Key', value: 'k1' }],
    schema: [{ name: 'day', type: 'string', description: 'the day' }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as number;
};

describe('POST /api/user/tools/{id}/test', () => {
  it('sends the request as a call would and shows the answer', async () => {
    const id = await tool(alice, { endpoint: `${receiver.url}/book?src=test` });
    const res = await alice.post(`/api/user/tools/${id}/test`, { arguments: { day: 'Monday', extra: 'dropped' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      ok: true,
      status: 201,
      duration_ms: expect.any(Number),
      result: { status: 201, body: { booked: true, got: '/book?src=test' } },
    });
    const got = receiver.received.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.headers['x-api-key']).toBe('k1');
    expect(JSON.parse(got.body)).toEqual({ day: 'Monday' });
  });

  it('puts GET arguments in the query string', async () => {
    const id = await tool(alice, { endpoint: `${receiver.url}/find`, method: 'GET' });
    const res = await alice.post(`/api/user/tools/${id}/test`, { arguments: { day: 'Tue' } });
    expect(res.body.data.result.body.got).toBe('/find?day=Tue');
  });

  it('reports a timeout as the call would', async () => {
    const id = await tool(alice, { endpoint: `${receiver.url}/slow`, timeout: 1 });
    const res = await alice.post(`/api/user/tools/${id}/test`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ok: false, status: null, result: { error: 'the tool did not answer within 1 seconds' } });
  });

  it('goes through the outbound guard: private targets are refused without ALLOW_PRIVATE_TARGETS', async () => {
    const carol = await guarded.createUser({ name: 'Carol' });
    const id = await tool(carol, { endpoint: `${receiver.url}/book` });
    const before = receiver.received.length;
    const res = await carol.post(`/api/user/tools/${id}/test`, {});
    expect(res.status).toBe(200);
    expect(res.body.data.ok).toBe(false);
    expect(res.body.data.result.error).toMatch(/^the tool endpoint is not allowed/);
    expect(receiver.received.length).toBe(before);
  });

  it('validates the arguments and answers foreign or unknown tools as not found', async () => {
    const id = await tool(alice, { endpoint: `${receiver.url}/book` });
    const bad = await alice.post(`/api/user/tools/${id}/test`, { arguments: [1] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ arguments: ['The arguments field must be an object.'] });
    const before = receiver.received.length;
    for (const [user, path] of [[bob, id], [alice, 999999], [alice, 'x']] as const) {
      const res = await user.post(`/api/user/tools/${path}/test`, {});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Tool nicht gefunden' });
    }
    expect(receiver.received.length).toBe(before);
  });
});
