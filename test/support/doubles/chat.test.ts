import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiCompatibleLlm } from '../../../src/providers/llm/openai.js';
import { ChatDouble, tokenize } from './chat.js';

let double: ChatDouble;

beforeAll(async () => {
  double = await new ChatDouble().start();
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { tokenDelayMs: 0, hangAfterChunks: null, dropAfterChunks: null, failWith: null, apiKey: null }));

/** The `data:` payloads of a server-sent event stream. */
async function events(res: Response): Promise<string[]> {
  const text = await res.text();
  return text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${double.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('chat-completions double', () => {
  it('streams a scripted answer the way OpenAI does: role chunk, token pieces, finish_reason, usage, [DONE]', async () => {
    double.on('What time is it?', { text: 'It is a quarter past eleven.' });
    const res = await post({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'What time is it?' }] });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = await events(res);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(content).toBe('It is a quarter past eleven.');
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(5);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number), total_tokens: expect.any(Number) } });
  });

  it('streams two parallel tool calls with split, interleaved arguments that the real client assembles', async () => {
    double.on(/book/i, {
      toolCalls: [
        { name: 'check_slots', args: { day: 'monday', hour: 10 } },
        { name: 'lookup_customer', args: { phone: '+4915123456700' } },
      ],
    }, { text: 'Monday at ten is booked.' });
    const res = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Please book me in.' }] });
    const chunks = (await events(res)).slice(0, -1).map((d) => JSON.parse(d));
    const fragments = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(fragments.filter((f: any) => f.id).map((f: any) => [f.index, f.function.name])).toEqual([[0, 'check_slots'], [1, 'lookup_customer']]);
    const order = fragments.filter((f: any) => !f.id).map((f: any) => f.index);
    expect(order.slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');

    const llm = new OpenAiCompatibleLlm({ baseUrl: double.baseUrl });
    const messages = [{ role: 'user' as const, content: 'Please book me in.' }];
    const first = await llm.complete({ model: 'm', temperature: 0, messages, tools: [] });
    expect(first.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['check_slots', { day: 'monday', hour: 10 }],
      ['lookup_customer', { phone: '+4915123456700' }],
    ]);
    // Round two: after the assistant's tool calls and their results, the next scripted answer.
    const second = await llm.complete({
      model: 'm',
      temperature: 0,
      tools: [],
      messages: [
        ...messages,
        { role: 'assistant', content: null, tool_calls: first.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) },
        { role: 'tool', tool_call_id: first.toolCalls[0].id, content: '{"free":true}' },
        { role: 'tool', tool_call_id: first.toolCalls[1].id, content: '{"name":"Sam"}' },
      ],
    });
    expect(second.text).toBe('Monday at ten is booked.');
    expect(double.received.at(-1)!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: first.toolCalls[1].id, content: '{"name":"Sam"}' });
  });

  it('answers non-streamed extraction requests with the scripted object', async () => {
    double.extract({ booked: true, status: true });
    const llm = new OpenAiCompatibleLlm({ baseUrl: double.baseUrl });
    const values = await llm.extract({ model: 'm', temperature: 0, messages: [{ role: 'user', content: 'x' }], schema: { type: 'object' } });
    expect(values).toEqual({ booked: true, status: true });
  });

  it('names the message it has no script for', async () => {
    const res = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'unknown words' }] });
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toContain('unknown words');
  });

  it('knobs: key check, error status, dropped connection, hang', async () => {
    double.on('knobs', { text: 'one two three four five six' });
    const body = { model: 'm', stream: true, messages: [{ role: 'user', content: 'knobs' }] };
    double.knobs.apiKey = 'sk-double';
    expect((await post(body)).status).toBe(401);
    expect((await post(body, { authorization: 'Bearer sk-double' })).status).toBe(200);
    double.knobs.apiKey = null;

    double.knobs.failWith = 429;
    expect((await post(body)).status).toBe(429);
    double.knobs.failWith = null;

    double.knobs.dropAfterChunks = 3;
    const llm = new OpenAiCompatibleLlm({ baseUrl: double.baseUrl, idleTimeoutMs: 300 });
    const seen: string[] = [];
    await expect(llm.complete({ model: 'm', temperature: 0, messages: body.messages as any, tools: [], onText: (t) => seen.push(t) })).rejects.toThrow();
    expect(seen.join('')).toBe('one two ');
    double.knobs.dropAfterChunks = null;

    double.knobs.hangAfterChunks = 2;
    await expect(llm.complete({ model: 'm', temperature: 0, messages: body.messages as any, tools: [] })).rejects.toThrow(/sent nothing for 300 ms/);
  });

  it("refuses a history whose tool_calls lack their results with OpenAI's 400, and one whose tool result answers no call", async () => {
    double.on('Free slots?', { text: 'At ten.' });
    const call = { id: 'call_1', type: 'function', function: { name: 'free_slots', arguments: '{}' } };
    const unanswered = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Free slots?' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: 'Free slots?' }] });
    expect(unanswered.status).toBe(400);
    expect(await unanswered.json()).toEqual({
      error: {
        message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
        type: 'invalid_request_error',
        param: 'messages.[2].role',
        code: null,
      },
    });
    const stray = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Free slots?' }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] });
    expect(stray.status).toBe(400);
    expect((await stray.json()).error.message).toContain("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'");
    const paired = await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'Free slots?' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] });
    expect(paired.status).toBe(200);
    await paired.text();
  });

  it('tokenizes at word boundaries and cuts long words', () => {
    expect(tokenize('Hello there, wonderful world.')).toEqual(['Hello ', 'ther', 'e, ', 'wond', 'erfu', 'l ', 'world.']);
  });
});
