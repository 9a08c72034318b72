/**
 * Whose LLM a call thinks with: a user who stored an `llm` key has every request of their calls
 * (the conversation and the post-call extraction) go to their chat server with their key; another
 * user's calls go to the deployment's (LLM_BASE_URL); so do their assistant test runs. Both
 * servers are local doubles of the OpenAI protocol; the calls run end to end on the sandbox
 * carrier (text).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRunsPart } from '../../src/assistant-tests/run-queue.js';
import { callEnginePart } from '../../src/calls/index.js';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

const ACCOUNT_KEY = 'sk-account-own-llm-1234';
let accountLlm: ChatDouble;
let deploymentLlm: ChatDouble;
let t: TestService;

const goodbye = (words: string) => ({ text: words, toolCalls: [{ id: 'call_end', name: END_CALL_TOOL, args: {} }] });

beforeAll(async () => {
  accountLlm = await new ChatDouble({ apiKey: ACCOUNT_KEY }).start();
  accountLlm.decide(() => goodbye('This is your own model. Goodbye!')).extract({ status: true, summary: 'own model' });
  deploymentLlm = await new ChatDouble({ apiKey: 'sk-deployment' }).start();
  deploymentLlm.decide(() => goodbye('This is the deployment model. Goodbye!')).extract({ status: true, summary: 'deployment model' });
  t = await startTestService({
    parts: [callEnginePart, testRunsPart],
    env: { SECRET_KEY: 'k'.repeat(40), LLM_BASE_URL: deploymentLlm.baseUrl, LLM_API_KEY: 'sk-deployment', ALLOW_PRIVATE_TARGETS: 'true' },
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([accountLlm.close(), deploymentLlm.close()]);
});

describe("an account's own LLM in its calls", () => {
  it("user A's call asks A's server with A's key; user B's call asks the deployment's", async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    expect((await a.put('/api/user/provider-keys/llm', { api_key: ACCOUNT_KEY, base_url: accountLlm.baseUrl })).status).toBe(200);
    const assistantA = await insertAssistant(t, a.id);
    const assistantB = await insertAssistant(t, b.id);

    const callA = await a.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistantA.id });
    const callB = await b.post('/api/user/make_call', { phone_number: '+4915123456701', assistant_id: assistantB.id });
    expect(callA.status).toBe(200);
    expect(callB.status).toBe(200);
    const engine = t.service.ctx.services.callEngine!;
    await Promise.all([engine.whenFinished(callA.body.call_id), engine.whenFinished(callB.body.call_id)]);

    const recordA = (await a.get(`/api/user/calls/${callA.body.call_id}`)).body;
    const recordB = (await b.get(`/api/user/calls/${callB.body.call_id}`)).body;
    expect(recordA.transcript).toContain('AI: This is your own model. Goodbye!');
    expect(recordA.transcript).not.toContain('deployment model');
    expect(recordB.transcript).toContain('AI: This is the deployment model. Goodbye!');
    expect(recordB.transcript).not.toContain('own model');
    expect(recordA.evaluation).toMatchObject({ summary: 'own model' });
    expect(recordB.evaluation).toMatchObject({ summary: 'deployment model' });

    // Every request of A's call (conversation and extraction) went to A's server with A's key, none to the deployment's.
    expect(accountLlm.received.length).toBeGreaterThanOrEqual(2);
    expect(accountLlm.received.every((r) => r.headers.authorization === `Bearer ${ACCOUNT_KEY}`)).toBe(true);
    expect(accountLlm.received.some((r) => r.body.stream === false)).toBe(true);
    expect(deploymentLlm.received.every((r) => r.headers.authorization === 'Bearer sk-deployment')).toBe(true);
    expect(deploymentLlm.received.some((r) => r.body.stream === false)).toBe(true);
  });

  it("an assistant test run of a user with an LLM key asks that user's server", async () => {
    const a = await t.createUser();
    await a.put('/api/user/provider-keys/llm', { api_key: ACCOUNT_KEY, base_url: accountLlm.baseUrl });
    const assistant = await insertAssistant(t, a.id, { initialMessage: 'Hello, how can I help?' });
    const scenario = 'name: own model\ncaller:\n  script:\n    - say: "Who are you?"\nexpect:\n  - transcript_contains: "your own model"\n';
    const [ownBefore, deploymentBefore] = [accountLlm.received.length, deploymentLlm.received.length];
    const res = await a.post(`/api/user/assistants/${assistant.id}/test-runs`, { scenarios: [scenario] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await t.service.ctx.services.testRuns!.settled(res.body.data.id);
    const run = (await a.get(`/api/user/test-runs/${res.body.data.id}`)).body.data;
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'passed', passed: 1 });
    expect(accountLlm.received.length).toBeGreaterThan(ownBefore);
    expect(deploymentLlm.received.length).toBe(deploymentBefore);
  });
});
