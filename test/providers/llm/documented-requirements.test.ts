/**
 * What docs/providers.md tells an operator an LLM server must support, checked against the
 * local OpenAI-compatible double the way the recipes configure a server: the base URL with
 * `/v1`; the assistant's model name as `model`; streamed replies with tool calls; the
 * evaluation as one non-streamed request asking for a JSON-schema answer. And the error the
 * troubleshooting page names for a base written without `/v1`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createLlmProvider } from '../../../src/providers/llm/index.js';
import { ChatDouble } from '../../support/doubles/chat.js';

const docs = (page: string) => fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs', page), 'utf8');
const double = new ChatDouble();
beforeAll(async () => {
  await double.start();
});
afterAll(() => double.close());

const tools = [{ name: 'book_slot', description: 'Books a slot', parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] } }];

describe('the LLM requirements docs/providers.md states', () => {
  it('a base URL with /v1, as the recipes write it: streamed text and tool calls, with the assistant model name', async () => {
    expect(docs('providers.md')).toContain('export LLM_BASE_URL=http://localhost:8000/v1');
    double.on('Can I come on Monday?', { toolCalls: [{ name: 'book_slot', args: { day: 'Monday' } }] }, { text: 'You are booked for Monday.' });
    const config = loadConfig({ LLM_BASE_URL: double.baseUrl, LLM_API_KEY: 'sk-local' });
    const llm = createLlmProvider(config, 'end_call');
    const streamed: string[] = [];
    const first = await llm.complete({ model: 'gpt-4o-mini', temperature: 0.2, tools, messages: [{ role: 'user', content: 'Can I come on Monday?' }] });
    expect(first.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['book_slot', { day: 'Monday' }]]);
    const request = double.received.at(-1)!;
    expect(request.body).toMatchObject({ model: 'gpt-4o-mini', stream: true, tool_choice: 'auto', tools: [{ type: 'function', function: { name: 'book_slot' } }] });
    expect(request.headers.authorization).toBe('Bearer sk-local');
    const second = await llm.complete({
      model: 'gpt-4o-mini',
      temperature: 0.2,
      tools,
      onText: (t) => streamed.push(t),
      messages: [
        { role: 'user', content: 'Can I come on Monday?' },
        { role: 'assistant', content: null, tool_calls: [{ id: first.toolCalls[0]!.id, type: 'function', function: { name: 'book_slot', arguments: first.toolCalls[0]!.arguments } }] },
        { role: 'tool', tool_call_id: first.toolCalls[0]!.id, content: '{"ok":true}' },
      ] as never,
    });
    expect(second.text).toBe('You are booked for Monday.');
    expect(streamed.length).toBeGreaterThan(1); // it arrived in pieces
  });

  it('the evaluation: one non-streamed request with a JSON-schema response format, answered with an object', async () => {
    double.extract({ status: true, summary: 'Booked for Monday.' });
    const llm = createLlmProvider(loadConfig({ LLM_BASE_URL: double.baseUrl }), 'end_call');
    const schema = { type: 'object', properties: { status: { type: 'boolean' }, summary: { type: 'string' } }, required: ['status', 'summary'], additionalProperties: false };
    const values = await llm.extract({ model: 'gpt-4o-mini', temperature: 0, schema, messages: [{ role: 'user', content: 'Transcript: …' }] });
    expect(values).toEqual({ status: true, summary: 'Booked for Monday.' });
    expect(double.received.at(-1)!.body).toMatchObject({ stream: false, response_format: { type: 'json_schema', json_schema: { strict: true, schema } } });
  });

  it('a base without /v1 fails with the 404 the troubleshooting page names', async () => {
    const withoutVersion = double.baseUrl.replace(/\/v1$/, '');
    const llm = createLlmProvider(loadConfig({ LLM_BASE_URL: withoutVersion }), 'end_call');
    const failure = await llm.complete({ model: 'gpt-4o-mini', temperature: 0, tools: [], messages: [{ role: 'user', content: 'Hello' }] }).catch((err: Error) => err);
    expect(String(failure)).toContain('LLM request failed with status 404');
    expect(docs('troubleshooting.md')).toContain('**`LLM request failed with status 404`.**');
  });
});
