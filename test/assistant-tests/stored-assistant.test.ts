/** A stored assistant under test: as it is, with unsaved changes (never written), and an earlier version. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestAssistant } from '../../src/assistant-tests/assistant.js';
import { runOnce } from '../../src/assistant-tests/runner.js';
import { testTargetChanges } from '../../src/api/assistants/test-target.js';
import { ValidationError } from '../../src/api/toolkit/errors.js';
import { credentialSealer } from '../../src/lib/secrets.js';
import { OfflineStandInLlm } from '../../src/providers/llm/stand-in.js';
import { END_CALL_TOOL } from '../../src/calls/session-types.js';
import { minimalCreate, insertTool } from '../api/assistants/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { scenario, silent } from './support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
const llm = new OfflineStandInLlm(END_CALL_TOOL);

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const greets = (text: string) => scenario(`name: greeting\ncaller: {script: []}\nexpect:\n  - transcript_contains: ${JSON.stringify(text)}\n`);

describe('the assistant a test runs', () => {
  it('runs unsaved changes in memory: the stored assistant and its version stay as they were', async () => {
    const tool = await insertTool(t, alice.id, 'check_calendar', 'Free slots');
    const created = await alice.post('/api/user/assistant', { ...minimalCreate, initial_message: 'Hello from the saved one.', post_call_schema: [{ name: 'day', type: 'string', description: 'day' }] });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const db = t.service.ctx.database.db;
    const sealer = credentialSealer(t.config);
    const before = (await alice.get(`/api/user/assistant/${id}`)).body;

    const changes = await testTargetChanges(db, alice.id, id, { overrides: { initial_message: 'Hello from the edit.', tool_ids: [tool!.id], llm_temperature: 0.5 } }, sealer);
    const edited = await loadTestAssistant(db, alice.id, id, changes!);
    expect(edited).toMatchObject({ id, version: null, initial_message: 'Hello from the edit.', llm_temperature: '0.50', tools: [{ name: 'check_calendar' }] });
    const run = await runOnce(greets('Hello from the edit.'), edited!, { llm, log: silent });
    expect(run.status).toBe('passed');

    const after = (await alice.get(`/api/user/assistant/${id}`)).body;
    expect(after).toEqual(before);
    expect((await alice.get(`/api/user/assistants/${id}/versions`)).body.total).toBe(1);
    const stored = await loadTestAssistant(db, alice.id, id);
    expect(stored).toMatchObject({ version: 1, initial_message: 'Hello from the saved one.', tools: [] });
    expect((await runOnce(greets('Hello from the saved one.'), stored!, { llm, log: silent })).status).toBe('passed');
  });

  it('runs an earlier version', async () => {
    const id = (await alice.post('/api/user/assistant', { ...minimalCreate, initial_message: 'Version one speaking.' })).body.data.id;
    expect((await alice.put(`/api/user/assistant/${id}`, { initial_message: 'Version two speaking.' })).status).toBe(200);
    const db = t.service.ctx.database.db;
    const changes = await testTargetChanges(db, alice.id, id, { version: 1 }, credentialSealer(t.config));
    const old = await loadTestAssistant(db, alice.id, id, changes!);
    expect(old).toMatchObject({ version: 1, initial_message: 'Version one speaking.' });
    expect((await runOnce(greets('Version one speaking.'), old!, { llm, log: silent })).status).toBe('passed');
    expect((await loadTestAssistant(db, alice.id, id))!.initial_message).toBe('Version two speaking.');
  });

  it("refuses overrides the update would refuse, and another user's assistant", async () => {
    const id = (await alice.post('/api/user/assistant', minimalCreate)).body.data.id;
    const db = t.service.ctx.database.db;
    await expect(testTargetChanges(db, alice.id, id, { overrides: { max_duration: 'long' } }, credentialSealer(t.config))).rejects.toBeInstanceOf(ValidationError);
    await expect(testTargetChanges(db, alice.id, id, { version: 99 }, credentialSealer(t.config))).rejects.toMatchObject({ statusCode: 404, message: 'Version not found' });
    expect(await testTargetChanges(db, bob.id, id, {}, credentialSealer(t.config))).toBeNull();
    expect(await loadTestAssistant(db, bob.id, id)).toBeNull();
  });
});
