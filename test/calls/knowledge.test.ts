/**
 * Knowledge bases in calls, on typed browser calls (a text leg) through the
 * whole service: documents processed on the job queue, the chat double as the model.
 *
 * The double answers from what reached it: its reply quotes the price it finds in the request
 * (a tool result, a system message), or says it does not know — so "the answer uses the
 * passages" is read off the conversation, not scripted. Checked: the request bodies the double
 * received (the function offered, the passages present), the reply, and `/turns` naming the
 * document and the passage with its score, in both modes (`prompt` with the whole base in the
 * system prompt, and searched per turn when the base is over the budget); a base of another
 * user is never used; a deleted base detaches; multimodal refuses `prompt`.
 */
import type http from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { KNOWLEDGE_FUNCTION, knowledgeOfAssistant, PROMPT_BUDGET_CHARS } from '../../src/calls/knowledge.js';
import { sessionSettings } from '../support/voice-session.js';
import { knowledgePart } from '../../src/knowledge/index.js';
import { ChatDouble, sse, textChunks, toolCallChunks, type Received } from '../support/doubles/chat.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { openBrowserPage } from '../support/web-call-page.js';
import { MULTIMODAL_VOICE, minimalCreate } from '../api/assistants/fixtures.js';

const KB = '/api/user/knowledgebases';
const QUESTION = 'How much is a professional teeth cleaning?';
const PRICES = [
  '# Prices',
  '## Dental hygiene',
  'A professional teeth cleaning costs 89 euros and takes 45 minutes.',
  '## Whitening',
  'In-office whitening costs 290 euros per session.',
].join('\n\n');

let t: TestService;
let llm: ChatDouble;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  llm = await new ChatDouble().start();
  llm.extract({ status: true, summary: 'A price question.' });
  t = await startTestService({ parts: [callEnginePart, knowledgePart], listen: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local' } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await llm?.close();
});

/** Every text the model was given in one request (system prompt, passages, tool results). */
const requestText = (r: Received) => (r.body.messages as { content: string | null }[]).map((m) => m.content ?? '').join('\n');

/** The model's answer: the price the request holds, or that it does not know. */
function answerFromRequest(req: Received, res: http.ServerResponse): void {
  const price = /teeth cleaning costs (\d+) euros/.exec(requestText(req))?.[1];
  sse(textChunks(price ? `A professional teeth cleaning costs ${price} euros.` : 'I am sorry, I do not know that.'))(req, res);
}

const searchCall = (query: string) => sse(toolCallChunks([{ id: 'kb_1', name: KNOWLEDGE_FUNCTION, args: JSON.stringify({ query }) }]));

async function baseWith(user: TestUser, ...contents: string[]): Promise<{ kb: number; docs: { id: number; name: string }[] }> {
  const kb = (await user.post(KB, { name: 'Clinic' })).body.data.id as number;
  const docs = [];
  for (const content of contents) {
    const created = await user.post(`${KB}/${kb}/documents`, { type: 'text', content });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    docs.push(created.body.data as { id: number; name: string });
  }
  for (const doc of docs) {
    for (let i = 0; ; i++) {
      const d = (await user.get(`${KB}/${kb}/documents/${doc.id}`)).body.data;
      if (d.status === 'ready') break;
      expect(d.status, JSON.stringify(d)).toBe('processing');
      if (i > 400) throw new Error('document still processing');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { kb, docs };
}

/** A typed browser call: the greeting, then each line and the assistant's reply to it; then the caller hangs up. */
async function typedCall(user: TestUser, assistantId: number, lines: string[]) {
  const from = llm.received.length;
  const res = await user.post('/api/user/web-calls', { assistant_id: assistantId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const callId = res.body.call_id as number;
  const page = openBrowserPage(t, res.body.media_path);
  await page.next('ready');
  await page.next('assistant');
  const replies: string[] = [];
  for (const line of lines) {
    page.ws.send(JSON.stringify({ type: 'text', text: line }));
    replies.push(String((await page.next('assistant')).text));
  }
  page.ws.send(JSON.stringify({ type: 'hangup' }));
  await page.closed;
  await t.service.ctx.services.callEngine!.whenFinished(callId);
  const turns = await user.get(`/api/user/calls/${callId}/turns`);
  expect(turns.status).toBe(200);
  // The chat requests of this call (not the post-call extraction).
  const requests = llm.received.slice(from).filter((r) => r.body?.stream === true);
  return { callId, replies, turns: turns.body.data as any[], requests };
}

async function chunkOf(documentId: number, needle: string): Promise<number> {
  const { rows } = await t.service.ctx.database.pool.query<{ id: string }>(
    'SELECT id FROM knowledge_chunks WHERE document_id = $1 AND content LIKE $2 ORDER BY position LIMIT 1',
    [documentId, `%${needle}%`],
  );
  expect(rows).toHaveLength(1);
  return Number(rows[0].id);
}

describe('function_call mode', () => {
  it('the model searches, the passages reach it, its answer quotes them, /turns names them', async () => {
    const { kb, docs } = await baseWith(alice, PRICES);
    const assistant = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: kb });
    llm.answer(searchCall('teeth cleaning price'), answerFromRequest);

    const call = await typedCall(alice, assistant.id, [QUESTION]);

    expect(call.replies).toEqual(['A professional teeth cleaning costs 89 euros.']);
    const [first, second] = call.requests;
    const offered = first.body.tools.map((x: any) => x.function);
    expect(offered.map((f: any) => f.name)).toContain(KNOWLEDGE_FUNCTION);
    expect(offered.find((f: any) => f.name === KNOWLEDGE_FUNCTION).parameters.required).toEqual(['query']);
    // Before the search nothing of the base is in the request; after it the passages are the function's result.
    expect(requestText(first)).not.toContain('89 euros');
    const result = second.body.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'kb_1' });
    const passages = JSON.parse(result.content).passages;
    expect(passages[0]).toMatchObject({ document: docs[0].name, heading: expect.stringContaining('Dental hygiene') });
    expect(passages[0].text).toContain('A professional teeth cleaning costs 89 euros');

    const reply = call.turns.find((turn) => turn.caller_text === QUESTION);
    expect(reply.knowledge).toEqual([
      {
        mode: 'function_call',
        query: 'teeth cleaning price',
        passages: [
          { document_id: docs[0].id, document_name: docs[0].name, chunk_id: await chunkOf(docs[0].id, 'teeth cleaning'), heading: expect.stringContaining('Dental hygiene'), score: expect.any(Number) },
          ...passages.slice(1).map(() => expect.objectContaining({ document_id: docs[0].id })),
        ],
      },
    ]);
    expect(reply.knowledge[0].passages[0].score).toBeGreaterThan(0);
    // The greeting used nothing.
    expect(call.turns[0]).toMatchObject({ kind: 'greeting', knowledge: [] });
    // Another user cannot read the call's turns.
    expect((await bob.get(`/api/user/calls/${call.callId}/turns`)).status).toBe(404);
  });

  it("an assistant whose base is another user's gets no search and no passages", async () => {
    const { kb } = await baseWith(alice, PRICES);
    // Written around the API (which refuses it: test/api/knowledgebases/crud.test.ts): the call still never reads the base.
    const assistant = await insertAssistant(t, bob.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: kb, knowledgebaseMode: 'function_call' });
    llm.answer(answerFromRequest);
    const call = await typedCall(bob, assistant.id, [QUESTION]);
    expect(call.replies).toEqual(['I am sorry, I do not know that.']);
    expect(call.requests[0].body.tools.map((x: any) => x.function.name)).not.toContain(KNOWLEDGE_FUNCTION);
    expect(call.turns.every((turn) => turn.knowledge.length === 0)).toBe(true);

    const prompting = await insertAssistant(t, bob.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: kb, knowledgebaseMode: 'prompt' });
    llm.answer(answerFromRequest);
    const again = await typedCall(bob, prompting.id, [QUESTION]);
    expect(again.replies).toEqual(['I am sorry, I do not know that.']);
    expect(requestText(again.requests[0])).not.toContain('89 euros');
  });

  it('a deleted base detaches from its assistants: their calls offer no search', async () => {
    const { kb } = await baseWith(alice, PRICES);
    const { id } = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?' });
    expect((await alice.put(`/api/user/assistant/${id}`, { knowledgebase_id: kb })).status).toBe(200);
    expect((await alice.delete(`${KB}/${kb}`)).status).toBe(200);
    expect((await alice.get(`/api/user/assistant/${id}`)).body.data).toMatchObject({ knowledgebase_id: null, knowledgebase_mode: 'function_call' });
    llm.answer(answerFromRequest);
    const call = await typedCall(alice, id, [QUESTION]);
    expect(call.requests[0].body.tools.map((x: any) => x.function.name)).not.toContain(KNOWLEDGE_FUNCTION);
    expect(call.replies).toEqual(['I am sorry, I do not know that.']);
  });
});

describe('prompt mode', () => {
  it('a base within the budget is in the system prompt; each reply turn names its documents', async () => {
    const { kb, docs } = await baseWith(alice, PRICES);
    const assistant = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: kb, knowledgebaseMode: 'prompt' });
    llm.answer(answerFromRequest);

    const call = await typedCall(alice, assistant.id, [QUESTION]);

    expect(call.replies).toEqual(['A professional teeth cleaning costs 89 euros.']);
    const [first] = call.requests;
    expect(first.body.messages[0].role).toBe('system');
    expect(first.body.messages[0].content).toMatch(/^You are a helpful assistant\.\n\nKnowledge base: /);
    expect(first.body.messages[0].content).toContain('A professional teeth cleaning costs 89 euros');
    expect(first.body.tools.map((x: any) => x.function.name)).not.toContain(KNOWLEDGE_FUNCTION);
    const reply = call.turns.find((turn) => turn.caller_text === QUESTION);
    expect(reply.knowledge).toEqual([
      { mode: 'prompt', query: null, passages: [{ document_id: docs[0].id, document_name: docs[0].name, chunk_id: null, heading: '', score: null }] },
    ]);
  });

  it('a base over the budget is searched for each caller turn; the passages come right before the caller’s words', async () => {
    // Sixty treatments that say nothing of cleaning, and the price list: over the budget together.
    const treatments = Array.from({ length: 60 }, (_, i) =>
      `## Treatment ${i + 1}\n\nOur ${['implant', 'crown', 'bridge', 'veneer', 'inlay'][i % 5]} service number ${i + 1} is planned with a digital scan, ` +
        `a consultation about materials and aftercare, and follow-up visits in our Berlin practice on weekdays. Patients receive a written plan and an estimate before we start.`,
    ).join('\n\n');
    expect(treatments.length + PRICES.length).toBeGreaterThan(PROMPT_BUDGET_CHARS);
    const { kb, docs } = await baseWith(alice, `# Treatments\n\n${treatments}`, PRICES);
    const assistant = await insertAssistant(t, alice.id, { initialMessage: 'Hello, how can I help?', knowledgebaseId: kb, knowledgebaseMode: 'prompt' });
    llm.answer(answerFromRequest, answerFromRequest);

    const call = await typedCall(alice, assistant.id, [QUESTION, 'And how long does it take?']);

    expect(call.replies[0]).toBe('A professional teeth cleaning costs 89 euros.');
    const [first, second] = call.requests;
    // The system prompt is the assistant's own; the passages stand right before the caller's words, for this reply only.
    expect(first.body.messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    const [passages, asked] = first.body.messages.slice(-2);
    expect(asked).toEqual({ role: 'user', content: QUESTION });
    expect(passages.role).toBe('system');
    expect(passages.content).toMatch(/^Passages from the knowledge base/);
    expect(passages.content).toContain('A professional teeth cleaning costs 89 euros');
    expect(first.body.tools.map((x: any) => x.function.name)).not.toContain(KNOWLEDGE_FUNCTION);
    // The next turn's request has its own passages, not the last turn's kept in the history.
    expect(second.body.messages.filter((m: any) => m.role === 'system' && m.content.startsWith('Passages'))).toHaveLength(1);
    expect(second.body.messages.at(-2).content).toMatch(/^Passages/);

    const [, reply, followUp] = call.turns;
    expect(reply.caller_text).toBe(QUESTION);
    expect(reply.knowledge).toHaveLength(1);
    expect(reply.knowledge[0]).toMatchObject({ mode: 'prompt', query: QUESTION });
    expect(reply.knowledge[0].passages[0]).toEqual({
      document_id: docs[1].id,
      document_name: docs[1].name,
      chunk_id: await chunkOf(docs[1].id, 'teeth cleaning'),
      heading: expect.stringContaining('Dental hygiene'),
      score: expect.any(Number),
    });
    // A follow-up searches with the turn before it as context.
    expect(followUp.knowledge[0].query).toBe(`And how long does it take? ${QUESTION}`);
    expect(followUp.knowledge[0].passages[0].document_id).toBe(docs[1].id);
  });

  it('is refused for multimodal assistants', async () => {
    const { kb } = await baseWith(alice, PRICES);
    const res = await alice.post('/api/user/assistant', {
      ...minimalCreate,
      mode: 'multimodal',
      voice_id: MULTIMODAL_VOICE,
      knowledgebase_id: kb,
      knowledgebase_mode: 'prompt',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ knowledgebase_mode: ['Only function_call mode is available for multimodal assistants'] });
  });
});

describe('an assistant outside a call (the assistant test runner)', () => {
  it("gets its own base in either mode, never another user's", async () => {
    const { kb } = await baseWith(alice, PRICES);
    const log = pino({ level: 'silent' });
    const row = (mode: string, assistantMode = 'pipeline') => ({ knowledgebase_id: kb, knowledgebase_mode: mode, mode: assistantMode });
    const searching = sessionSettings({ systemPrompt: 'Be brief.' });
    const own = await knowledgeOfAssistant(t.service.ctx, alice.id, row('function_call'), searching, log);
    expect(own?.spec?.name).toBe(KNOWLEDGE_FUNCTION);
    expect(JSON.parse((await own!.run('{"query":"teeth cleaning"}')).content).passages[0].text).toContain('89 euros');
    expect(searching.systemPrompt).toBe('Be brief.');
    const prompting = sessionSettings({ systemPrompt: 'Be brief.' });
    const inPrompt = await knowledgeOfAssistant(t.service.ctx, alice.id, row('prompt'), prompting, log);
    expect(inPrompt?.spec).toBeNull();
    expect(prompting.systemPrompt).toContain('A professional teeth cleaning costs 89 euros');
    // Multimodal searches even with a stored prompt mode.
    expect((await knowledgeOfAssistant(t.service.ctx, alice.id, row('prompt', 'multimodal'), sessionSettings(), log))?.spec?.name).toBe(KNOWLEDGE_FUNCTION);
    const others = sessionSettings({ systemPrompt: 'Be brief.' });
    expect(await knowledgeOfAssistant(t.service.ctx, bob.id, row('prompt'), others, log)).toBeNull();
    expect(others.systemPrompt).toBe('Be brief.');
    expect(await knowledgeOfAssistant(t.service.ctx, alice.id, { knowledgebase_id: null, knowledgebase_mode: 'function_call', mode: 'pipeline' }, sessionSettings(), log)).toBeNull();
  });
});
