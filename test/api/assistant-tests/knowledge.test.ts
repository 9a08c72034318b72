/**
 * Test runs use the assistant's knowledge base as its calls do (issue 29): a text base in
 * function_call mode, a scripted caller asking a price, the chat double as the model. The double
 * searches when the search is offered and answers from what reached it (the price in a tool
 * result, or "I do not know"), so `transcript_contains` on the price passes only when the
 * passage reached the model. An assistant pointed at another user's base never gets that base.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { KNOWLEDGE_FUNCTION } from '../../../src/calls/knowledge.js';
import { knowledgePart } from '../../../src/knowledge/index.js';
import { testRunsPart } from '../../../src/assistant-tests/run-queue.js';
import { ChatDouble } from '../../support/doubles/chat.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const KB = '/api/user/knowledgebases';

let t: TestService;
let llm: ChatDouble;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  llm = await new ChatDouble().start();
  llm.extract({ status: true, summary: 'A price question.' });
  // Search when the search is offered and not yet answered; then answer from the request's text.
  llm.decide((body) => {
    const messages = body.messages as { role: string; content: string | null }[];
    const offered = (body.tools ?? []).some((x: { function: { name: string } }) => x.function.name === KNOWLEDGE_FUNCTION);
    if (offered && messages.at(-1)?.role === 'user') return { toolCalls: [{ id: 'kb_1', name: KNOWLEDGE_FUNCTION, args: { query: 'teeth cleaning price' } }] };
    const price = /teeth cleaning costs (\d+) euros/.exec(messages.map((m) => m.content ?? '').join('\n'))?.[1];
    return { text: price ? `A professional teeth cleaning costs ${price} euros.` : 'I am sorry, I do not know that.' };
  });
  t = await startTestService({ parts: [callEnginePart, knowledgePart, testRunsPart], env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local' } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await llm?.close();
});

async function baseWith(user: TestUser, content: string): Promise<number> {
  const kb = (await user.post(KB, { name: 'Clinic' })).body.data.id as number;
  const doc = await user.post(`${KB}/${kb}/documents`, { type: 'text', content });
  expect(doc.status, JSON.stringify(doc.body)).toBe(201);
  for (let i = 0; ; i++) {
    const d = (await user.get(`${KB}/${kb}/documents/${doc.body.data.id}`)).body.data;
    if (d.status === 'ready') return kb;
    expect(d.status, JSON.stringify(d)).toBe('processing');
    if (i > 400) throw new Error('document still processing');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const priceQuestion = `name: asks the cleaning price
caller:
  script:
    - say: "How much is a professional teeth cleaning?"
expect:
  - transcript_contains: "89 euros"
`;

async function run(user: TestUser, assistantId: number) {
  const res = await user.post(`/api/user/assistants/${assistantId}/test-runs`, { scenarios: [priceQuestion] });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await t.service.ctx.services.testRuns!.settled(res.body.data.id);
  return (await user.get(`/api/user/test-runs/${res.body.data.id}`)).body.data;
}

it("a test run searches the assistant's own knowledge base and passes on the passage's fact; another user's base is never used", async () => {
  const alicesBase = await baseWith(alice, '# Prices\n\n## Dental hygiene\n\nA professional teeth cleaning costs 89 euros and takes 45 minutes.');
  const bobsBase = await baseWith(bob, '# Prices\n\n## Dental hygiene\n\nA professional teeth cleaning costs 89 euros at our clinic.');

  const own = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: alicesBase, knowledgebaseMode: 'function_call' });
  const passed = await run(alice, own.id);
  expect(passed, JSON.stringify(passed)).toMatchObject({ status: 'passed', passed: 1 });
  const [repeat] = passed.scenarios[0].repeats;
  expect(repeat.transcript).toContainEqual({ role: 'assistant', text: 'A professional teeth cleaning costs 89 euros.' });
  expect(repeat.tool_requests.map((r: { name: string }) => r.name)).toContain(KNOWLEDGE_FUNCTION);

  // Alice's assistant pointed at Bob's base: no search offered, nothing of Bob's base reaches the model.
  const from = llm.received.length;
  const foreign = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: bobsBase, knowledgebaseMode: 'function_call' });
  const failed = await run(alice, foreign.id);
  expect(failed).toMatchObject({ status: 'failed', failed: 1 });
  expect(failed.scenarios[0].repeats[0].transcript).toContainEqual({ role: 'assistant', text: 'I am sorry, I do not know that.' });
  const requests = llm.received.slice(from).filter((r) => r.body?.stream === true);
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) {
    expect((r.body.tools ?? []).map((x: { function: { name: string } }) => x.function.name)).not.toContain(KNOWLEDGE_FUNCTION);
    expect(JSON.stringify(r.body.messages)).not.toContain('89 euros');
  }
}, 60_000);
