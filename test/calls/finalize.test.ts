/**
 * The final record of a call keeps what the language model said even when PostgreSQL could not
 * store it as said: a NUL or a lone surrogate in the transcript or the extracted evaluation
 * failed the statement writing the final record, so the call was ended as `ended` with an empty
 * transcript and no evaluation — the whole conversation lost for one character.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';
import { extraction, ChatDouble, sse, textChunks, toolCallChunks } from '../support/doubles/chat.js';

let t: TestService;
let llm: ChatDouble;

beforeAll(async () => {
  llm = await new ChatDouble().start();
  t = await startTestService({ parts: [callEnginePart], env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local' } });
});
afterAll(async () => {
  await t.close();
  await llm.close();
});

describe('the final record of a call', () => {
  it('stores a transcript, turns and evaluation holding NUL characters and lone surrogates, with U+FFFD in their place', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    llm.answer(
      sse([...textChunks('Booked\u0000 for ', 'you. Goodbye\ud800!'), ...toolCallChunks([{ id: 'call_1', name: END_CALL_TOOL, args: '{}' }])]),
      extraction({ status: true, summary: 'Booked\u0000 Monday \udc00.' }),
    );
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistant.id });
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record.status).toBe('completed');
    expect(record.transcript.split('\n').at(-1)).toBe('AI: Booked\uFFFD for you. Goodbye\uFFFD!');
    expect(record.evaluation).toEqual({ status: true, summary: 'Booked\uFFFD Monday \uFFFD.' });
    const turns = (await user.get(`/api/user/calls/${res.body.call_id}/turns`)).body.data;
    expect(turns.at(-1).assistant_text).toBe('Booked\uFFFD for you. Goodbye\uFFFD!');
  });
});
