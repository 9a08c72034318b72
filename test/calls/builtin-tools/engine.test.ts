/**
 * Built-in tools in sandbox calls (issue 20), end to end: the assistant is configured through
 * the API, the LLM double calls the tool, and the effect is observed — the calendar double
 * (a local server on Cal.com's v2 paths) receives the availability and booking requests with
 * the right fields and the user's key, its answers reach the LLM; a cold transfer ends the call
 * with the target in the record; keys pressed on the line are recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { END_CALL_TOOL } from '../../../src/calls/session.js';
import { BOOKINGS_API_VERSION, SLOTS_API_VERSION } from '../../../src/calls/builtin-tools/calcom.js';
import { ChatDouble, extraction, sse, textChunks, toolCallChunks } from '../../support/doubles/chat.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let llm: ChatDouble;
let calendar: Receiver;
let user: TestUser;

const CAL_KEY = 'cal_live_test_key_0123456789';

beforeAll(async () => {
  llm = await new ChatDouble().start();
  calendar = await startReceiver((req) =>
    req.path.startsWith('/v2/slots')
      ? { status: 200, body: JSON.stringify({ status: 'success', data: { '2026-12-01': [{ start: '2026-12-01T09:00:00.000Z' }] } }) }
      : { status: 201, body: JSON.stringify({ status: 'success', data: { uid: 'bk_1', start: '2026-12-01T09:00:00.000Z', status: 'accepted' } }) },
  );
  t = await startTestService({
    parts: [callEnginePart],
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-local', ALLOW_PRIVATE_TARGETS: 'true', SECRET_KEY: 'b'.repeat(40) },
  });
  user = await t.createUser();
});
afterAll(async () => {
  await t.close();
  await llm.close();
  await calendar.close();
});

async function assistantWith(tools: unknown[]) {
  const res = await user.post('/api/user/assistant', {
    assistant_name: 'Builtins',
    voice_id: 1,
    calls_direction: 'make',
    initial_message: 'Hello, this is Switchboard.',
    timezone: 'Europe/Berlin',
    post_call_evaluation: false,
    tools,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as number;
}

async function call(assistantId: number) {
  const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistantId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  return (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
}

describe('calendar_integration', () => {
  it('looks up slots and books through the Cal.com v2 API with the right fields; the answers reach the LLM', async () => {
    const id = await assistantWith([
      { type: 'calendar_integration', data: { calcom_api_key: CAL_KEY, calcom_event_slug: 'intro-call', calcom_team_slug: 'sales', calcom_endpoint: 'custom', calcom_custom_endpoint: calendar.url, calcom_booking_fields: ['company'] } },
    ]);
    llm.answer(
      sse(toolCallChunks([{ id: 'c1', name: 'check-availability', args: '{"start_date":"2026-12-01","end_date":"2026-12-02"}' }])),
      sse(textChunks('Tuesday at ten works.')),
      sse(toolCallChunks([{ id: 'c2', name: 'book-appointment', args: JSON.stringify({ start: '2026-12-01T09:00:00.000Z', name: 'Ada Lovelace', email: 'ada@example.com', company: 'Analytical Engines' }) }])),
      sse([...textChunks('Booked. Goodbye!'), ...toolCallChunks([{ id: 'c3', name: END_CALL_TOOL, args: '{}' }])]),
      extraction({ status: true, summary: 'Booked.' }),
    );
    const startIndex = llm.received.length;
    const record = await call(id);

    const [slots, booking] = calendar.received.slice(-2);
    expect(slots.method).toBe('GET');
    const url = new URL(slots.path, 'http://x');
    expect(url.pathname).toBe('/v2/slots');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      eventTypeSlug: 'intro-call',
      teamSlug: 'sales',
      start: '2026-12-01',
      end: '2026-12-02',
      timeZone: 'Europe/Berlin',
    });
    expect(slots.headers.authorization).toBe(`Bearer ${CAL_KEY}`);
    expect(slots.headers['cal-api-version']).toBe(SLOTS_API_VERSION);

    expect(booking.method).toBe('POST');
    expect(booking.path).toBe('/v2/bookings');
    expect(booking.headers.authorization).toBe(`Bearer ${CAL_KEY}`);
    expect(booking.headers['cal-api-version']).toBe(BOOKINGS_API_VERSION);
    expect(JSON.parse(booking.body)).toEqual({
      start: '2026-12-01T09:00:00.000Z',
      eventTypeSlug: 'intro-call',
      teamSlug: 'sales',
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timeZone: 'Europe/Berlin' },
      bookingFieldsResponses: { company: 'Analytical Engines' },
    });

    const requests = llm.received.slice(startIndex);
    const names = requests[0].body.tools.map((x: any) => x.function.name);
    expect(names).toEqual(['check-availability', 'book-appointment', END_CALL_TOOL]);
    expect(requests[0].body.tools[1].function.parameters.required).toEqual(['start', 'name', 'email', 'company']);
    expect(requests[1].body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: JSON.stringify({ status: 200, body: { status: 'success', data: { '2026-12-01': [{ start: '2026-12-01T09:00:00.000Z' }] } } }),
    });
    expect(JSON.parse(requests[3].body.messages.at(-1).content)).toEqual({ status: 201, body: { status: 'success', data: { uid: 'bk_1', start: '2026-12-01T09:00:00.000Z', status: 'accepted' } } });
    expect(record.status).toBe('completed');
  });
});

describe('call_transfer', () => {
  it('on the sandbox: the caller hears the transfer message, the call ends completed with the target in its transcript', async () => {
    const id = await assistantWith([{ type: 'call_transfer', phone_number: '+4930123456', warm_transfer: true, warm_transfer_message: 'Connecting you to a colleague now.' }]);
    llm.answer(sse(toolCallChunks([{ id: 't1', name: 'transfer-call', args: '{}' }])));
    const record = await call(id);
    expect(record.status).toBe('completed');
    expect(record.transcript.split('\n').slice(-2)).toEqual([
      'AI: Connecting you to a colleague now.',
      'Transfer: the call was transferred to +4930123456 (simulated: this line cannot transfer).',
    ]);
  });
});

describe('dtmf_input and end_call', () => {
  it('presses the keys on the line (the sandbox records them) and a built-in end_call gives end-call its description', async () => {
    const id = await assistantWith([{ type: 'dtmf_input' }, { type: 'end_call', description: 'End when the menu is done.' }]);
    llm.answer(
      sse(toolCallChunks([{ id: 'd1', name: 'press-digits', args: '{"digits":"1#"}' }])),
      sse([...textChunks('Done.'), ...toolCallChunks([{ id: 'd2', name: END_CALL_TOOL, args: '{}' }])]),
    );
    const startIndex = llm.received.length;
    const record = await call(id);
    const first = llm.received[startIndex].body;
    expect(first.tools.map((x: any) => x.function.name)).toEqual(['press-digits', END_CALL_TOOL]);
    expect(first.tools[1].function.description).toBe('End when the menu is done.');
    expect(llm.received[startIndex + 1].body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'd1', content: JSON.stringify({ ok: true, pressed: '1#' }) });
    expect(record.transcript).toContain('DTMF: the assistant pressed 1#.');
    expect(record.status).toBe('completed');
  });
});

describe('assistant_transfer', () => {
  it("the call continues with the other assistant: its message, its greeting, then its prompt and model reach the LLM; the record names both", async () => {
    const billing = await user.post('/api/user/assistant', {
      assistant_name: 'Billing Bea',
      voice_id: 1,
      calls_direction: 'make',
      initial_message: 'Billing here, how can I help?',
      system_prompt: 'You are Bea from billing. Caller variable: {{plan}}.',
      timezone: 'Europe/Berlin',
      post_call_evaluation: false,
    });
    expect(billing.status, JSON.stringify(billing.body)).toBe(201);
    const billingId = billing.body.data.id as number;
    const id = await assistantWith([{ type: 'assistant_transfer', assistant_id: billingId, message_before_transfer: 'Let me hand you to billing.' }]);
    llm.answer(
      sse(toolCallChunks([{ id: 'a1', name: 'transfer-to-assistant', args: '{}' }])),
      sse([...textChunks('Your invoice is on its way. Goodbye!'), ...toolCallChunks([{ id: 'a2', name: END_CALL_TOOL, args: '{}' }])]),
    );
    const startIndex = llm.received.length;
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456701', assistant_id: id, variables: { plan: 'gold' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;

    const [first, second] = llm.received.slice(startIndex).map((r) => r.body);
    expect(first.tools.map((x: any) => x.function.name)).toEqual(['transfer-to-assistant', END_CALL_TOOL]);
    // The assistant that took over: its prompt (with the call's variables) leads the history, its tools are offered.
    expect(second.messages[0]).toEqual({ role: 'system', content: 'You are Bea from billing. Caller variable: gold.' });
    expect(second.tools.map((x: any) => x.function.name)).toEqual([END_CALL_TOOL]);
    expect(second.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'a1')).toEqual({ role: 'tool', tool_call_id: 'a1', content: JSON.stringify({ ok: true, transferred_to_assistant: 'Billing Bea' }) });
    const lines = record.transcript.split('\n');
    const at = lines.indexOf('AI: Let me hand you to billing.');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at, at + 3)).toEqual([
      'AI: Let me hand you to billing.',
      `Assistant transfer: the call continues with assistant ${billingId} (Billing Bea).`,
      'AI: Billing here, how can I help?',
    ]);
    expect(lines.at(-1)).toBe('AI: Your invoice is on its way. Goodbye!');
    expect(record.assistant_name).toBe('Builtins');
    expect(record.status).toBe('completed');
  });

  it.each([
    ['deleted', (u: typeof user, id: number) => u.delete(`/api/user/assistant/${id}`)],
    ['made inactive', (u: typeof user, id: number) => u.put(`/api/user/assistant/${id}`, { status: 'inactive' })],
  ])('a target assistant %s after the tool was saved does not take the call: the LLM hears it is not available', async (_what, change) => {
    const target = await user.post('/api/user/assistant', { assistant_name: 'Gone Gus', voice_id: 1, calls_direction: 'make', post_call_evaluation: false });
    expect(target.status).toBe(201);
    const id = await assistantWith([{ type: 'assistant_transfer', assistant_id: target.body.data.id }]);
    expect((await change(user, target.body.data.id)).status).toBe(200);
    llm.answer(
      sse(toolCallChunks([{ id: 'g1', name: 'transfer-to-assistant', args: '{}' }])),
      sse([...textChunks('I cannot hand you over, sorry. Goodbye.'), ...toolCallChunks([{ id: 'g2', name: END_CALL_TOOL, args: '{}' }])]),
    );
    const startIndex = llm.received.length;
    const record = await call(id);
    const [, back] = llm.received.slice(startIndex).map((r) => r.body);
    expect(back.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'g1', content: JSON.stringify({ error: 'the assistant to transfer to is not available' }) });
    expect(record.transcript).not.toContain('Assistant transfer:');
    expect(record.status).toBe('completed');
  });
});

describe('warm_call_transfer', () => {
  async function outboundNumber(phone: string) {
    const res = await t.admin.post(`/api/admin/users/${user.id}/phone-numbers`, { phone_number: phone, type_label: 'Normal' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.id as number;
  }

  const warm = (supervisor: string, phoneId: number) => ({
    type: 'warm_call_transfer',
    supervisor_phone: supervisor,
    outbound_phone_id: phoneId,
    description: 'Transfer to a supervisor when the caller asks for one.',
    hold_message: 'Please hold, I am fetching my supervisor.',
    summary_instructions: 'Summarise in one sentence for the supervisor.',
    briefing_initial_message: 'Hi, I have a caller for you.',
    connected_message: 'You are now connected with my supervisor.',
  });

  it('holds the caller, calls the supervisor from the outbound number, briefs them with the LLM summary, then connects', async () => {
    const phoneId = await outboundNumber('+4989100200300');
    const id = await assistantWith([warm('+4930555000', phoneId)]);
    llm.answer(sse(toolCallChunks([{ id: 'w1', name: 'warm-transfer', args: '{}' }])), sse(textChunks('Ada wants a refund for order 42.')));
    const startIndex = llm.received.length;
    const record = await call(id);

    const [first, summary] = llm.received.slice(startIndex).map((r) => r.body);
    expect(first.tools.map((x: any) => [x.function.name, x.function.description])[0]).toEqual(['warm-transfer', 'Transfer to a supervisor when the caller asks for one.']);
    // The summary is written after the tool's instructions, from the conversation so far.
    expect(summary.messages[0]).toEqual({ role: 'system', content: 'Summarise in one sentence for the supervisor.' });
    expect(summary.messages[1].content).toContain('AI: Hello, this is Switchboard.');
    expect(summary.tools ?? []).toEqual([]);
    // The simulated caller answers every line it hears (the hold message too): its lines are left out here.
    const assistantSide = (transcript: string) => transcript.split('\n').filter((l) => !l.startsWith('Customer:'));
    expect(assistantSide(record.transcript).slice(-5)).toEqual([
      'AI: Please hold, I am fetching my supervisor.',
      'Warm transfer: calling the supervisor +4930555000 from +4989100200300.',
      'Briefing (to the supervisor): Hi, I have a caller for you. Ada wants a refund for order 42.',
      'AI: You are now connected with my supervisor.',
      'Warm transfer: the caller was connected to the supervisor +4930555000 (simulated: this line cannot bridge calls).',
    ]);
    expect(record.status).toBe('completed');
  });

  it.each([
    ['no-answer', '+4930555092'],
    ['busy', '+4930555091'],
  ])('a supervisor who does not answer (%s): the assistant is back with the caller and says so', async (outcome, supervisor) => {
    const phoneId = await outboundNumber(`+49891002003${outcome === 'busy' ? '11' : '12'}`);
    const id = await assistantWith([warm(supervisor, phoneId)]);
    llm.answer(
      sse(toolCallChunks([{ id: 'w2', name: 'warm-transfer', args: '{}' }])),
      // The summary is written while the phone rings; unanswered, it is never said.
      sse(textChunks('Ada wants a refund.')),
      sse([...textChunks('I am sorry, nobody could be reached. Goodbye.'), ...toolCallChunks([{ id: 'w3', name: END_CALL_TOOL, args: '{}' }])]),
    );
    const startIndex = llm.received.length;
    const record = await call(id);
    const [, summary, back] = llm.received.slice(startIndex).map((r) => r.body);
    expect(summary.tools ?? []).toEqual([]);
    expect(record.transcript).not.toContain('Briefing');
    // The result follows its call at once (the hold message, said meanwhile, comes after it: OpenAI's pairing rule).
    const w2 = back.messages.findIndex((m: any) => m.tool_calls?.[0]?.id === 'w2');
    expect(back.messages[w2 + 1].tool_call_id).toBe('w2');
    expect(JSON.parse(back.messages[w2 + 1].content)).toMatchObject({ error: `the supervisor did not answer (${outcome})`, transferred: false });
    expect(back.messages[w2 + 2]).toEqual({ role: 'assistant', content: 'Please hold, I am fetching my supervisor.' });
    expect(record.transcript.split('\n').filter((l: string) => !l.startsWith('Customer:')).slice(-4)).toEqual([
      'AI: Please hold, I am fetching my supervisor.',
      `Warm transfer: calling the supervisor ${supervisor} from +49891002003${outcome === 'busy' ? '11' : '12'}.`,
      `Warm transfer: the supervisor did not answer (${outcome}); back to the caller.`,
      'AI: I am sorry, nobody could be reached. Goodbye.',
    ]);
    expect(record.status).toBe('completed');
  });

  it("another user's number as outbound_phone_id is not dialled from", async () => {
    const other = await t.createUser();
    const theirs = await t.admin.post(`/api/admin/users/${other.id}/phone-numbers`, { phone_number: '+4989100200399', type_label: 'Normal' });
    expect(theirs.status).toBe(201);
    const res = await user.post('/api/user/assistant', {
      assistant_name: 'Builtins',
      voice_id: 1,
      calls_direction: 'make',
      post_call_evaluation: false,
      tools: [warm('+4930555000', theirs.body.data.id)],
    });
    expect(res.status).toBe(422);
  });
});

