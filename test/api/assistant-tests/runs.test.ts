/**
 * Test runs through the API: run in the background (offline stand-in LLM, text path), read with
 * every repeat's transcript and assertions, listed per assistant; a version or unsaved changes
 * run without changing the stored assistant; a finished call turned into a scenario passes when
 * run, its tools answered by mocks; runs of a process that is gone end as error; another user's
 * assistant, run or call is 404; runs are not calls.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { testRunsPart } from '../../../src/assistant-tests/run-queue.js';
import { AUDIO_NEEDS_STT } from '../../../src/assistant-tests/audio.js';
import { assistantTestRuns, calls } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { startToolEndpoint } from '../../support/twilio-service.js';
import { insertTool, minimalCreate } from '../assistants/fixtures.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;

const greets = (text: string) => `name: greets on Tuesday
caller:
  script:
    - say: "Hi, I'd like an appointment."
expect:
  - transcript_contains: "${text}"
  - status: completed
`;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart, testRunsPart], env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const res = await alice.post('/api/user/assistant', { ...minimalCreate, initial_message: 'Hello, we have slots on Monday.' });
  assistantId = res.body.data.id;
});
afterAll(() => t.close());

/** Starts a run and waits until it is over; the run's record. */
async function run(body: Record<string, unknown>, id = assistantId, who: TestUser = alice) {
  const res = await who.post(`/api/user/assistants/${id}/test-runs`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({ data: { id: expect.any(Number), status: 'queued' } });
  await t.service.ctx.services.testRuns!.settled(res.body.data.id);
  const read = await who.get(`/api/user/test-runs/${res.body.data.id}`);
  expect(read.status).toBe(200);
  return read.body.data;
}

describe('test runs', () => {
  it('runs a failing scenario and reports the failing assertion with expected and actual, then a passing one', async () => {
    const failed = await run({ scenarios: [greets('Tuesday')] });
    expect(failed).toMatchObject({ assistant_id: assistantId, assistant_version: 1, unsaved_changes: false, status: 'failed', total: 1, passed: 0, failed: 1, errored: 0 });
    const [scenario] = failed.scenarios;
    expect(scenario).toMatchObject({ position: 0, name: 'greets on Tuesday', status: 'failed', repeat: 1 });
    const [repeat] = scenario.repeats;
    expect(repeat.end_status).toBe('completed');
    expect(repeat.transcript).toContainEqual({ role: 'assistant', text: 'Hello, we have slots on Monday.' });
    const failing = repeat.assertions.find((a: { outcome: string }) => a.outcome === 'failed');
    expect(failing).toMatchObject({ kind: 'transcript_contains', line: 6, expected: 'Tuesday' });
    expect(failing.message).toMatch(/Tuesday/);
    expect(repeat.assertions.find((a: { kind: string }) => a.kind === 'status')).toMatchObject({ outcome: 'passed', actual: 'completed' });

    const passed = await run({ scenarios: [greets('Monday')] });
    expect(passed).toMatchObject({ status: 'passed', passed: 1, failed: 0 });
    expect(passed.finished_at).not.toBeNull();
  });

  it('takes scenario objects, repeats, and stored scenarios (all of them when none are named)', async () => {
    const object = { name: 'object', repeat: 3, pass_rate: 1, caller: { script: [{ say: 'Hello' }] }, expect: [{ transcript_contains: 'Monday' }] };
    const r = await run({ scenarios: [object] });
    expect(r.status).toBe('passed');
    expect(r.scenarios[0].repeats.map((x: { repeat: number }) => x.repeat)).toEqual([0, 1, 2]);

    const stored = await alice.post(`/api/user/assistants/${assistantId}/test-scenarios`, { source: greets('Monday') });
    const byId = await run({ scenario_ids: [stored.body.data.id] });
    expect(byId).toMatchObject({ status: 'passed', total: 1 });
    expect(byId.scenarios[0].scenario_id).toBe(stored.body.data.id);
    const all = await run({});
    expect(all.total).toBe(1);
  });

  it('runs unsaved changes without changing the stored assistant, and an earlier version', async () => {
    const before = (await alice.get(`/api/user/assistant/${assistantId}`)).body.data;
    const versionsBefore = (await alice.get(`/api/user/assistants/${assistantId}/versions`)).body.total;
    const edited = await run({ scenarios: [greets('Tuesday')], assistant_overrides: { initial_message: 'Hello, we have slots on Tuesday.' } });
    expect(edited).toMatchObject({ status: 'passed', unsaved_changes: true, assistant_overrides: { initial_message: 'Hello, we have slots on Tuesday.' } });
    expect((await alice.get(`/api/user/assistant/${assistantId}`)).body.data).toEqual(before);
    expect((await alice.get(`/api/user/assistants/${assistantId}/versions`)).body.total).toBe(versionsBefore);

    // Saved now; version 1 (Monday) still runs as it was.
    await alice.put(`/api/user/assistant/${assistantId}`, { initial_message: 'Hello, we have slots on Tuesday.' });
    expect((await run({ scenarios: [greets('Tuesday')] })).status).toBe('passed');
    const old = await run({ scenarios: [greets('Tuesday')], version: 1 });
    expect(old).toMatchObject({ status: 'failed', assistant_version: 1 });
    await alice.put(`/api/user/assistant/${assistantId}`, { initial_message: 'Hello, we have slots on Monday.' });
  });

  it('refuses bad input with 4xx: a scenario with the line and reason, overrides the update would refuse, unknown ids', async () => {
    const bad = await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: [greets('x'), 'name: y\ncaller: {script: [{say: hi}]}\nexpect:\n  - tool_called: cancel_booking\n'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors['scenarios.1'][0]).toMatch(/^line 4: tool_called "cancel_booking": the assistant has no tool of that name/);
    expect(bad.body.scenario_errors).toEqual([{ scenario: 1, line: 4, message: expect.any(String) }]);

    // Audio mode on a service without speech-to-text (no DEEPGRAM_API_KEY / STT_BASE_URL): refused at the mode line.
    const audio = await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: ['name: by voice\nmode: audio\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n'] });
    expect(audio.status).toBe(422);
    expect(audio.body.errors).toEqual({ 'scenarios.0': [`line 2: ${AUDIO_NEEDS_STT}`] });

    const overrides = await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: [greets('x')], assistant_overrides: { max_call_duration: 5 } });
    expect(overrides.status).toBe(422);
    expect(Object.keys(overrides.body.errors)).toEqual(['max_call_duration']);

    const ids = await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenario_ids: [999999] });
    expect(ids.status).toBe(422);
    expect(ids.body.errors).toEqual({ 'scenario_ids.0': ['The selected scenario_ids.0 is invalid.'] });
    const none = await (async () => {
      const other = await alice.post('/api/user/assistant', minimalCreate);
      return alice.post(`/api/user/assistants/${other.body.data.id}/test-runs`, {});
    })();
    expect(none.status).toBe(422);
    expect((await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: 'nope' })).status).toBe(422);
    expect((await alice.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: [greets('x')], version: 99 })).status).toBe(404);
  });

  it('lists an assistant’s runs newest first, paginated', async () => {
    const page = await alice.get(`/api/user/assistants/${assistantId}/test-runs?per_page=2`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ current_page: 1, per_page: 2, total: expect.any(Number) });
    expect(page.body.total).toBeGreaterThan(2);
    const [a, b] = page.body.data;
    expect(a.id).toBeGreaterThan(b.id);
    expect(page.body.next_page_url).toContain(`/api/user/assistants/${assistantId}/test-runs?per_page=2&page=2`);
  });

  it('answers 404 to another user on every run route', async () => {
    const mine = await run({ scenarios: [greets('Monday')] });
    expect((await bob.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: [greets('Monday')] })).status).toBe(404);
    expect((await bob.get(`/api/user/assistants/${assistantId}/test-runs`)).status).toBe(404);
    expect((await bob.get(`/api/user/test-runs/${mine.id}`)).status).toBe(404);
    expect((await alice.get('/api/user/test-runs/abc')).status).toBe(404);
  });

  it('does not make calls: the call list, call slots and costs see nothing of a run', async () => {
    const before = await t.service.ctx.database.db.select().from(calls).where(eq(calls.userId, alice.id));
    await run({ scenarios: [greets('Monday')] });
    expect(await t.service.ctx.database.db.select().from(calls).where(eq(calls.userId, alice.id))).toEqual(before);
  });

  it("runs repeats at most the account's max_calls_in_parallel at a time", async () => {
    const carol = await t.createUser({ max_calls_in_parallel: 1 });
    const tool = await insertTool(t, carol.id, 'check_calendar');
    const created = await carol.post('/api/user/assistant', { ...minimalCreate, tool_ids: [tool!.id] });
    // Each repeat waits 300 ms for its mock: one at a time, the repeats cannot overlap.
    const scenario = { name: 'slow tool', repeat: 3, caller: { script: [{ say: 'Hello' }] }, mocks: { check_calendar: { status: 200, body: {}, delay_ms: 300 } }, expect: [{ tool_called: 'check_calendar' }] };
    const started = Date.now();
    const r = await run({ scenarios: [scenario] }, created.body.data.id, carol);
    expect(r.status).toBe('passed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const { assistantTestResults } = await import('../../../src/db/schema.js');
    const rows = await t.service.ctx.database.db.select().from(assistantTestResults).where(eq(assistantTestResults.runId, r.id));
    const spans = rows.map((x) => ({ end: Date.parse(x.createdAt), start: Date.parse(x.createdAt) - x.durationMs })).sort((a, b) => a.start - b.start);
    expect(spans).toHaveLength(3);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end - 50);
  });

  it('marks runs of a process that is gone as error when a process starts', async () => {
    const [left] = await t.service.ctx.database.db
      .insert(assistantTestRuns)
      .values({ userId: alice.id, assistantId, scenarios: [], status: 'running', ownerInstance: 'gone-instance' })
      .returning();
    const part = testRunsPart(t.service.ctx)!;
    await part.start();
    await part.stop();
    const read = await alice.get(`/api/user/test-runs/${left!.id}`);
    expect(read.body.data).toMatchObject({ status: 'error', error: 'The service stopped before this run finished; run it again.' });
    expect(read.body.data.finished_at).not.toBeNull();
  });
});

describe('a finished call as a test scenario', () => {
  it('turns the call into a scripted scenario with its tool calls and status, which passes when run, its tool answered by a mock', async () => {
    const endpoint = await startToolEndpoint({ free: ['10:00'] });
    try {
      const tool = await insertTool(t, alice.id, 'check_calendar');
      await t.service.ctx.database.db.update((await import('../../../src/db/schema.js')).tools).set({ endpoint: endpoint.url }).where(eq((await import('../../../src/db/schema.js')).tools.id, tool!.id));
      const number = await t.addPhoneNumber(alice.id, '+493012345680');
      const assistant = await insertAssistant(t, alice.id, { name: 'Front desk', type: 'inbound', phoneNumberId: number.id, initialMessage: 'Front desk, how can I help?' });
      const { assistantTools } = await import('../../../src/db/schema.js');
      await t.service.ctx.database.db.insert(assistantTools).values({ assistantId: assistant!.id, toolId: tool!.id, position: 0 });
      const sim = await alice.post('/api/user/sandbox/inbound-call', { to: number.phone_number, from: '+4915123456700' });
      expect(sim.status).toBe(200);
      await t.service.ctx.services.callEngine!.whenFinished(sim.body.call_id);
      expect(endpoint.hits).toHaveLength(1);

      const res = await alice.post(`/api/user/calls/${sim.body.call_id}/test-scenario`, { save: true });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ assistant_id: assistant!.id, name: `Call ${sim.body.call_id} replayed`, scenario: { name: `Call ${sim.body.call_id} replayed` } });
      const source: string = res.body.data.source;
      expect(source).toContain('say: Hello, yes, speaking.');
      expect(source).toContain('tool_called:');
      expect(source).toContain('name: check_calendar');
      expect(source).toContain('status: completed');

      const ran = await run({ scenario_ids: [res.body.data.scenario.id] }, assistant!.id);
      expect(ran.status, JSON.stringify(ran.scenarios[0].repeats[0].assertions)).toBe('passed');
      expect(ran.scenarios[0].repeats[0].tool_requests.filter((r: { name: string }) => r.name === 'check_calendar')).toHaveLength(1);
      // The mock answered: the real endpoint saw the call's request only.
      expect(endpoint.hits).toHaveLength(1);

      // Without save: the source only. Another user: 404.
      const preview = await alice.post(`/api/user/calls/${sim.body.call_id}/test-scenario`, {});
      expect(preview.status).toBe(200);
      expect(preview.body.data.scenario).toBeNull();
      expect((await bob.post(`/api/user/calls/${sim.body.call_id}/test-scenario`, { save: true })).status).toBe(404);
    } finally {
      await endpoint.close();
    }
  });
});
