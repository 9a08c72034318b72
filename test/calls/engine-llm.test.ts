/**
 * The engine end to end with an OpenAI-protocol server and a customer's tool endpoint, both
 * local: the LLM asks for the mid-call tool, the endpoint receives the right request, its
 * answer reaches the LLM's next request, the LLM ends the call, extraction fills evaluation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { assistantTools, tools } from '../../src/db/schema.js';
import { insertAssistant } from '../support/fixtures.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestService, type TestService } from '../support/service.js';
import { extraction, ChatDouble, json, sse, textChunks, toolCallChunks } from '../support/doubles/chat.js';

let t: TestService;
let llm: ChatDouble;
let toolServer: Receiver;
let toolBase: string;

beforeAll(async () => {
  llm = await new ChatDouble().start();
  toolServer = await startReceiver(() => ({ body: JSON.stringify({ slots: ['10:00'] }) }));
  toolBase = toolServer.url;
  t = await startTestService({
    parts: [callEnginePart],
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local', ALLOW_PRIVATE_TARGETS: 'true' },
  });
});
afterAll(async () => {
  await t.close();
  await llm.close();
  await toolServer.close();
});

describe('a call driven by an OpenAI-compatible LLM', () => {
  it('runs the tool, feeds its answer back, ends on the end-call tool and extracts the evaluation', async () => {
    const user = await t.createUser();
    const { db } = t.service.ctx.database;
    const [tool] = await db
      .insert(tools)
      .values({
        userId: user.id,
        name: 'check_slots',
        description: 'Looks up free appointment slots for a day',
        endpoint: `${toolBase}/slots`,
        method: 'GET',
        timeout: 5,
        headers: [{ name: 'X-Api-Key', value: 'tool-secret' }],
        schema: [{ name: 'day', type: 'string', description: 'Day of the appointment' }],
      })
      .returning();
    const assistant = await insertAssistant(t, user.id, {
      systemPrompt: 'You book appointments for {{customer_name}}.',
      endCallToolDescription: 'End the call after booking.',
      llmTemperature: '0.40',
      postCallSchema: [
        { name: 'booked', type: 'bool', description: 'Was a slot booked?' },
        { name: 'slot', type: 'string', description: 'The booked slot' },
      ],
    });
    await db.insert(assistantTools).values({ assistantId: assistant.id, toolId: tool.id });

    llm.answer(
      sse([...toolCallChunks([{ id: 'call_1', name: 'check_slots', args: '{"day":"monday"}' }])]),
      sse(textChunks('We have ', '10:00 free.')),
      sse([...textChunks('Booked. Goodbye!'), ...toolCallChunks([{ id: 'call_2', name: END_CALL_TOOL, args: '{}' }])]),
      extraction({ booked: true, slot: '10:00', status: true, summary: 'Booked Monday 10:00.' }),
    );

    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: String(assistant.id), variables: { customer_name: 'Ada' } });
    expect(res.status).toBe(200);
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);

    // The tool endpoint got the tool's method, headers and the LLM's arguments.
    expect(toolServer.received).toHaveLength(1);
    expect(toolServer.received[0]).toMatchObject({ method: 'GET', path: '/slots?day=monday' });
    expect(toolServer.received[0].headers['x-api-key']).toBe('tool-secret');

    const [first, second, third, extract] = llm.received;
    expect(first.headers.authorization).toBe('Bearer sk-local');
    expect(first.body.model).toBe('gpt-4o-mini'); // llm_model_id 1 of the seeded list
    expect(first.body.temperature).toBe(0.4);
    expect(first.body.messages).toEqual([
      { role: 'system', content: 'You book appointments for Ada.' },
      { role: 'assistant', content: 'Hello Ada, this is Switchboard.' },
      { role: 'user', content: 'Hello, yes, speaking.' },
    ]);
    expect(first.body.tools.map((x: any) => x.function.name)).toEqual(['check_slots', END_CALL_TOOL]);
    expect(first.body.tools[1].function.description).toBe('End the call after booking.');
    // The tool's answer reaches the LLM's next request.
    expect(second.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'check_slots', arguments: '{"day":"monday"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ status: 200, body: { slots: ['10:00'] } }) },
    ]);
    expect(third.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'We have 10:00 free.' },
      { role: 'user', content: 'Yes, that works for me.' },
    ]);
    expect(extract.body.response_format.type).toBe('json_schema');
    expect(extract.body.response_format.json_schema.schema.required).toEqual(['booked', 'slot', 'status', 'summary']);

    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record).toMatchObject({
      status: 'completed',
      answered_by: 'human',
      transcript: [
        'AI: Hello Ada, this is Switchboard.',
        'Customer: Hello, yes, speaking.',
        'AI: We have 10:00 free.',
        'Customer: Yes, that works for me.',
        'AI: Booked. Goodbye!',
      ].join('\n'),
      evaluation: { booked: true, slot: '10:00', status: true, summary: 'Booked Monday 10:00.' },
      variables: { customer_name: 'Ada' },
    });
  });

  it('an LLM outage ends the call as `ended` with an apology; a failed extraction leaves evaluation empty', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    llm.answer(json(503, { error: { message: 'upstream down' } }), json(503, { error: { message: 'still down' } }));
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistant.id });
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record.status).toBe('ended');
    expect(record.transcript.split('\n').at(-1)).toBe('AI: I am sorry, I am having technical difficulties. Goodbye.');
    // The record says why (issue 18), on the line before the apology.
    expect(record.transcript.split('\n').at(-2)).toMatch(/^\[the language model failed: .*503.*\]$/);
    // …and so does the turn it broke.
    const turns = (await user.get(`/api/user/calls/${res.body.call_id}/turns`)).body.data;
    expect(turns.at(-1).error).toMatchObject({ stage: 'llm', message: expect.stringContaining('503') });
    expect(record.evaluation).toEqual({});
  });
});
