/** Stored test scenarios: create, list, read, update, delete, validate; refusals name the line; another user's are 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertTool, minimalCreate } from '../assistants/fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;

const GOOD = `name: books a Tuesday appointment
caller:
  script:
    - say: "Hi, I'd like an appointment on Tuesday."
mocks:
  check_calendar: {status: 200, body: {free: ["10:00"]}}
expect:
  - tool_called: check_calendar
  - transcript_contains: Tuesday
`;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const tool = await insertTool(t, alice.id, 'check_calendar');
  const res = await alice.post('/api/user/assistant', { ...minimalCreate, tool_ids: [tool!.id] });
  assistantId = res.body.data.id;
});
afterAll(() => t.close());

const base = () => `/api/user/assistants/${assistantId}/test-scenarios`;

describe('stored test scenarios', () => {
  it('creates, lists, reads, updates and deletes a scenario', async () => {
    const created = await alice.post(base(), { source: GOOD });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'Test scenario created', data: { assistant_id: assistantId, name: 'books a Tuesday appointment', source: GOOD } });
    const id = created.body.data.id;

    const list = await alice.get(base());
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: number }) => s.id)).toEqual([id]);
    expect((await alice.get(`${base()}/${id}`)).body.data).toEqual(created.body.data);

    const changed = GOOD.replace('books a Tuesday appointment', 'books on Tuesday');
    const put = await alice.put(`${base()}/${id}`, { source: changed });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ id, name: 'books on Tuesday', source: changed });

    expect((await alice.delete(`${base()}/${id}`)).body).toEqual({ message: 'Test scenario deleted' });
    expect((await alice.get(`${base()}/${id}`)).status).toBe(404);
    expect((await alice.get(base())).body.data).toEqual([]);
  });

  it('refuses a bad document with the line and the reason, and stores nothing', async () => {
    const bad = GOOD.replace('    - say:', '    - shout:');
    const res = await alice.post(base(), { source: bad });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The scenario is invalid.');
    expect(res.body.errors.source.join('\n')).toMatch(/^line 4: .*shout/m);
    for (const text of res.body.errors.source) expect(text).toMatch(/^line 4: /);
    expect(res.body.scenario_errors).toContainEqual({ line: 4, message: expect.stringContaining('shout') });

    const mockless = GOOD.replace('check_calendar: {status', 'cancel_booking: {status');
    const refused = await alice.post(base(), { source: mockless });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.source[0]).toMatch(/^line 6: mock for "cancel_booking": the assistant has no tool of that name \(its tools: check_calendar\)/);

    const regex = GOOD.replace('transcript_contains: Tuesday', 'transcript_contains: "/(unclosed/"');
    expect((await alice.post(base(), { source: regex })).body.errors.source[0]).toMatch(/^line 9: /);

    expect((await alice.post(base(), {})).status).toBe(422);
    expect((await alice.get(base())).body.data).toEqual([]);
  });

  it('checks a document without storing it (the editor, as the user types)', async () => {
    const ok = await alice.post(`${base()}/validate`, { source: GOOD });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ valid: true, errors: [], scenarios: [{ name: 'books a Tuesday appointment', mode: 'text', repeat: 1, expectations: 2 }] });
    const bad = await alice.post(`${base()}/validate`, { source: 'name: x\ncaller: {script: [{say: hi}]}\nexpect: []\nfoo: 1\n' });
    expect(bad.status).toBe(200);
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.errors.map((e: { line: number }) => e.line)).toEqual(expect.arrayContaining([3, 4]));
    expect((await alice.get(base())).body.data).toEqual([]);
  });

  it('answers 404 to another user on every scenario route, and to ids that are not numbers', async () => {
    const id = (await alice.post(base(), { source: GOOD })).body.data.id;
    const theirs = await bob.post('/api/user/assistant', minimalCreate);
    const answers = [
      await bob.get(base()),
      await bob.post(base(), { source: GOOD }),
      await bob.post(`${base()}/validate`, { source: GOOD }),
      await bob.get(`${base()}/${id}`),
      await bob.put(`${base()}/${id}`, { source: GOOD }),
      await bob.delete(`${base()}/${id}`),
      // Alice's scenario under Bob's own assistant.
      await bob.get(`/api/user/assistants/${theirs.body.data.id}/test-scenarios/${id}`),
      await bob.delete(`/api/user/assistants/${theirs.body.data.id}/test-scenarios/${id}`),
      await alice.get(`${base()}/abc`),
    ];
    for (const res of answers) expect(res.status).toBe(404);
    expect((await alice.get(`${base()}/${id}`)).body.data.source).toBe(GOOD);
    expect((await bob.get(`/api/user/assistants/${theirs.body.data.id}/test-scenarios`)).body.data).toEqual([]);
  });
});
