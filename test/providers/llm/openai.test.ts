import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleLlm } from '../../../src/providers/llm/openai.js';
import { LlmError } from '../../../src/providers/llm/types.js';
import { ChatDouble, json, sse, textChunks, toolCallChunks } from '../../support/doubles/chat.js';

let server: ChatDouble;
let llm: OpenAiCompatibleLlm;
/** Short timeouts, each on its own, only for the tests of that timeout (a loaded machine may take 500 ms for any request). */
let idleBound: OpenAiCompatibleLlm;
let totalBound: OpenAiCompatibleLlm;

beforeAll(async () => {
  server = await new ChatDouble().start();
  llm = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-test', timeoutMs: 30_000, idleTimeoutMs: 15_000 });
  idleBound = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-test', timeoutMs: 30_000, idleTimeoutMs: 500 });
  totalBound = new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-test', timeoutMs: 2_000, idleTimeoutMs: 15_000 });
});
afterAll(() => server.close());

const base = {
  model: 'gpt-4o-mini',
  temperature: 0.3,
  messages: [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Hi' }],
  tools: [{ name: 'check_slots', description: 'Free slots', parameters: { type: 'object', properties: { day: { type: 'string' } } } }],
};

describe('streamed completions', () => {
  it('sends model, temperature, messages, tools and the key; assembles streamed text', async () => {
    server.answer(sse(textChunks('Hel', 'lo ', 'there.'), { gapMs: 5 }));
    const deltas: string[] = [];
    const out = await llm.complete({ ...base, onText: (d) => deltas.push(d) });
    expect(out).toEqual({ text: 'Hello there.', toolCalls: [] });
    expect(deltas).toEqual(['Hel', 'lo ', 'there.']);
    const req = server.received.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body).toEqual({
      model: 'gpt-4o-mini',
      temperature: 0.3,
      messages: base.messages,
      stream: true,
      tools: [{ type: 'function', function: { name: 'check_slots', description: 'Free slots', parameters: base.tools[0].parameters } }],
      tool_choice: 'auto',
    });
  });

  it('assembles tool calls from deltas, several by index', async () => {
    server.answer(
      sse([
        ...textChunks('One moment.'),
        ...toolCallChunks([
          { id: 'call_a', name: 'check_slots', args: '{"day":"monday"}' },
          { id: 'call_b', name: 'end-call', args: '{}' },
        ]),
      ]),
    );
    const out = await llm.complete(base);
    expect(out).toEqual({
      text: 'One moment.',
      toolCalls: [
        { id: 'call_a', name: 'check_slots', arguments: '{"day":"monday"}' },
        { id: 'call_b', name: 'end-call', arguments: '{}' },
      ],
    });
  });

  it('omits tools when there are none and accepts a server that ignores streaming', async () => {
    server.answer(json(200, { choices: [{ message: { role: 'assistant', content: 'Plain answer.' } }] }));
    const out = await llm.complete({ ...base, tools: [] });
    expect(out).toEqual({ text: 'Plain answer.', toolCalls: [] });
    expect(server.received.at(-1)!.body.tools).toBeUndefined();
  });

  it('turns an error status into an LlmError with the server’s message', async () => {
    server.answer(json(401, { error: { message: 'Invalid API key' } }));
    const err = await llm.complete(base).catch((e) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err.status).toBe(401);
    expect(err.message).toBe('LLM request failed with status 401: Invalid API key');
  });

  it('reports an error sent inside the stream', async () => {
    server.answer(sse([...textChunks('Hi'), { error: { message: 'overloaded' } }]));
    await expect(llm.complete(base)).rejects.toThrow('LLM stream error: overloaded');
  });

  it('gives up on a server that does not answer in time', async () => {
    server.answer(() => undefined); // never answers
    await expect(idleBound.complete(base)).rejects.toThrow(/LLM sent nothing for 500 ms/);
  });

  it('gives up on a stream that stalls, and on one that is too slow overall', async () => {
    server.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(textChunks('Hi')[0])}\n\n`); // then nothing
    });
    await expect(idleBound.complete(base)).rejects.toThrow(/LLM sent nothing for 500 ms/);
    server.answer(sse(textChunks(...Array.from({ length: 20 }, () => 'x')), { gapMs: 200 }));
    await expect(totalBound.complete(base)).rejects.toThrow(/timed out after 2000 ms/);
  });

  it('stops when the caller aborts', async () => {
    server.answer(sse(textChunks('a', 'b', 'c', 'd'), { gapMs: 200 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(llm.complete({ ...base, signal: controller.signal })).rejects.toThrow('LLM request cancelled');
  });

  it('reports an unreachable server', async () => {
    const down = new OpenAiCompatibleLlm({ baseUrl: 'http://127.0.0.1:9/v1' });
    await expect(down.complete(base)).rejects.toThrow(/^LLM request failed: /);
  });
});

describe('bounded replies (issue 27)', () => {
  const small = () => new OpenAiCompatibleLlm({ baseUrl: server.baseUrl, maxReplyChars: 100, maxEventChars: 1000, maxReplyBytes: 20_000, maxAnswerBytes: 2_000 });

  it('a reply longer than the character cap fails, and reading stops there', async () => {
    server.answer(sse(textChunks(...Array.from({ length: 50 }, () => 'ten chars '))));
    const deltas: string[] = [];
    await expect(small().complete({ ...base, onText: (d) => deltas.push(d) })).rejects.toThrow('LLM reply exceeded 100 characters');
    expect(deltas.join('').length).toBe(100);
    // Tool-call arguments count too.
    server.answer(sse(toolCallChunks([{ id: 'c', name: 'check_slots', args: JSON.stringify({ day: 'x'.repeat(200) }) }])));
    await expect(small().complete(base)).rejects.toThrow('LLM reply exceeded 100 characters');
  });

  it('bytes without a line break fail at the event cap; framing without text at the byte cap', async () => {
    server.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${'x'.repeat(5000)}`);
    });
    await expect(small().complete(base)).rejects.toThrow('LLM sent a stream event over 1,000 characters');
    server.answer(sse(Array.from({ length: 500 }, () => ({ choices: [{ index: 0, delta: {} }] }))));
    await expect(small().complete(base)).rejects.toThrow('LLM reply exceeded 20,000 bytes');
  });

  it('a whole answer is read up to its cap', async () => {
    server.answer(json(200, { choices: [{ message: { content: 'y'.repeat(5000) } }] }));
    await expect(small().complete({ ...base, tools: [] })).rejects.toThrow('LLM answer exceeded 2,000 bytes');
    server.answer(json(200, { choices: [{ message: { content: 'y'.repeat(500) } }] }));
    await expect(small().complete({ ...base, tools: [] })).rejects.toThrow('LLM reply exceeded 100 characters');
  });

  it('an error body is read only up to 64 KiB', async () => {
    server.answer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('z'.repeat(1024 * 1024));
    });
    const err = await llm.complete(base).catch((e) => e);
    expect(err.message).toBe(`LLM request failed with status 500: ${'z'.repeat(300)}`);
  });
});

describe('structured extraction', () => {
  const schema = { type: 'object', properties: { status: { type: 'boolean' } }, required: ['status'], additionalProperties: false };

  it('asks for a JSON-schema answer and parses it (also inside a code fence)', async () => {
    server.answer(json(200, { choices: [{ message: { content: '```json\n{"status": true}\n```' } }] }));
    const out = await llm.extract({ model: 'm', temperature: 0, messages: base.messages, schema });
    expect(out).toEqual({ status: true });
    expect(server.received.at(-1)!.body).toMatchObject({
      stream: false,
      response_format: { type: 'json_schema', json_schema: { name: 'call_evaluation', strict: true, schema } },
    });
  });

  it('refuses an answer that is not a JSON object', async () => {
    server.answer(json(200, { choices: [{ message: { content: 'I think yes' } }] }));
    await expect(llm.extract({ model: 'm', temperature: 0, messages: base.messages, schema })).rejects.toThrow('not JSON');
    server.answer(json(200, { choices: [{ message: { content: '[1]' } }] }));
    await expect(llm.extract({ model: 'm', temperature: 0, messages: base.messages, schema })).rejects.toThrow('not an object');
  });
});
