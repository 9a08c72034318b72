import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { callCosts, extractionSchema, runPostCall, type PostCallInput } from '../../src/calls/post-call.js';
import type { SessionResult } from '../../src/calls/session.js';
import { fillTemplate } from '../../src/calls/variables.js';
import type { LlmProvider } from '../../src/providers/llm/types.js';

const log = pino({ level: 'silent' });
const rates = { carrierPerMinute: 0.014, platformPerMinute: 0.05 };

function result(overrides: Partial<SessionResult> = {}): SessionResult {
  return { connected: true, status: 'completed', answeredBy: 'human', talkMs: 90_400, transcript: 'AI: hi', messages: [], toolCalls: [], customerUtterances: 1, ...overrides };
}

function input(overrides: Partial<PostCallInput> = {}, llm?: LlmProvider): PostCallInput {
  return {
    callId: 7,
    postCallSchema: [
      { name: 'interested', type: 'bool', description: 'Interested?' },
      { name: 'budget', type: 'number', description: 'Budget' },
      { name: 'city', type: 'string', description: 'City' },
    ],
    postCallEvaluation: true,
    record: false,
    model: 'm',
    temperature: 0.1,
    variables: {},
    result: result(),
    llm: llm ?? { label: 'x', standIn: false, complete: async () => ({ text: '', toolCalls: [] }), extract: async () => ({}) },
    rates,
    log,
    ...overrides,
  };
}

describe('costs', () => {
  it('bills per second from the per-minute rates, with 8 decimals', () => {
    expect(callCosts(90, rates)).toEqual({ carrierCost: '0.02100000', totalCost: '0.09600000' });
    expect(callCosts(0, rates)).toEqual({ carrierCost: '0.00000000', totalCost: '0.00000000' });
    expect(callCosts(7, { carrierPerMinute: 0.0123456789, platformPerMinute: 0 })).toEqual({ carrierCost: '0.00144033', totalCost: '0.00144033' });
  });
});

describe('runPostCall', () => {
  it('takes the duration in whole seconds, costs, and the carrier\'s recording only when recording', async () => {
    const out = await runPostCall(input({ record: true }));
    expect(out).toMatchObject({ durationSec: 90, carrierCost: '0.02100000', totalCost: '0.09600000', recordingUrl: null });
    const base = input({ record: true });
    const recorded = await runPostCall({ ...base, result: { ...base.result, recordingUrl: 'https://carrier.example/rec/7.wav' } });
    expect(recorded.recordingUrl).toBe('https://carrier.example/rec/7.wav');
    const notRecording = await runPostCall({ ...input({ record: false }), result: { ...base.result, recordingUrl: 'https://carrier.example/rec/7.wav' } });
    expect(notRecording.recordingUrl).toBeNull();
  });

  it('keeps extracted values of the right type and nulls the rest', async () => {
    const llm: LlmProvider = {
      label: 'x',
      standIn: false,
      complete: async () => ({ text: '', toolCalls: [] }),
      extract: async () => ({ interested: 'true', budget: 'lots', city: 12, status: true, summary: 'ok', extra: 1 }),
    };
    const out = await runPostCall(input({}, llm));
    expect(out.evaluation).toEqual({ interested: true, budget: null, city: '12', status: true, summary: 'ok' });
  });

  it('asks for exactly the schema fields plus status and summary', () => {
    expect(extractionSchema(input().postCallSchema, true)).toEqual({
      type: 'object',
      properties: {
        interested: { type: 'boolean', description: 'Interested?' },
        budget: { type: 'number', description: 'Budget' },
        city: { type: 'string', description: 'City' },
        status: { type: 'boolean', description: 'Whether the goal of the call was met.' },
        summary: { type: 'string', description: 'A short summary of the call.' },
      },
      required: ['interested', 'budget', 'city', 'status', 'summary'],
      additionalProperties: false,
    });
    expect(extractionSchema([], false)).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
  });

  it('leaves evaluation {} for a call that never connected, or with nothing to extract', async () => {
    let asked = 0;
    const llm: LlmProvider = { label: 'x', standIn: false, complete: async () => ({ text: '', toolCalls: [] }), extract: async () => (asked++, { status: true }) };
    const unanswered = await runPostCall(input({ result: result({ connected: false, status: 'busy', talkMs: 0 }), record: true }, llm));
    expect(unanswered).toEqual({ evaluation: {}, durationSec: 0, carrierCost: '0.00000000', totalCost: '0.00000000', recordingUrl: null });
    const nothing = await runPostCall(input({ postCallSchema: [], postCallEvaluation: false }, llm));
    expect(nothing.evaluation).toEqual({});
    expect(asked).toBe(0);
  });

  it('survives a failing extraction with an empty evaluation', async () => {
    const llm: LlmProvider = { label: 'x', standIn: false, complete: async () => ({ text: '', toolCalls: [] }), extract: async () => Promise.reject(new Error('boom')) };
    expect((await runPostCall(input({}, llm))).evaluation).toEqual({});
  });
});

describe('{{variable}} filling', () => {
  it('fills known variables and leaves unknown ones as written', () => {
    expect(fillTemplate('Hi {{ name }}, order {{order}} ({{missing}}) {{flag}} {{obj}}', { name: 'Ada', order: 42, flag: false, obj: { a: 1 } })).toBe(
      'Hi Ada, order 42 ({{missing}}) false {"a":1}',
    );
    expect(fillTemplate('{{name}}', { name: null })).toBe('{{name}}');
  });
});
