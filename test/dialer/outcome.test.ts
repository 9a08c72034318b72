import { describe, expect, it } from 'vitest';
import { classify, isFalsy, type FinishedCall } from '../../src/dialer/outcome.js';

const rules = { retryOnVoicemail: false, retryOnGoalIncomplete: false, goalCompletionVariable: null };
const call = (over: Partial<FinishedCall>): FinishedCall => ({
  status: 'completed',
  answeredBy: 'human',
  answeredAt: '2026-03-06 10:00:00+00',
  transcript: 'AI: Hello.\nCustomer: Hi.',
  evaluation: {},
  ...over,
});

describe('call outcome → lead', () => {
  it('retries busy, no-answer and failed', () => {
    for (const status of ['busy', 'no-answer', 'failed']) {
      expect(classify(call({ status, answeredBy: 'unknown', answeredAt: null, transcript: '' }), rules)).toEqual({ kind: 'retry', reason: status });
    }
  });

  it('completes a connected conversation, whoever hung up', () => {
    for (const status of ['completed', 'ended_by_customer', 'ended_by_assistant']) {
      expect(classify(call({ status }), rules).kind).toBe('completed');
    }
  });

  it('voicemail: retried with retry_on_voicemail, else completed', () => {
    const vm = call({ status: 'ended_by_assistant', answeredBy: 'machine', transcript: 'AI: Hello.' });
    expect(classify(vm, { ...rules, retryOnVoicemail: true })).toEqual({ kind: 'retry', reason: 'voicemail' });
    expect(classify(vm, rules)).toEqual({ kind: 'completed', reason: 'voicemail' });
  });

  it('ended by the service without a conversation is an attempt to retry, never a completion', () => {
    expect(classify(call({ status: 'ended', answeredAt: null, transcript: '' }), rules).kind).toBe('retry');
    expect(classify(call({ status: 'ended', transcript: 'AI: Hello.' }), rules).kind).toBe('retry');
    expect(classify(call({ status: 'ended' }), rules).kind).toBe('completed');
    // The customer spoke: a conversation, even when its answer never reached the record.
    expect(classify(call({ status: 'ended', answeredAt: null }), rules).kind).toBe('completed');
  });

  it('goal incomplete is retried only with retry_on_goal_incomplete and an extracted false', () => {
    const on = { ...rules, retryOnGoalIncomplete: true, goalCompletionVariable: 'booked' };
    expect(classify(call({ evaluation: { booked: false } }), on)).toEqual({ kind: 'retry', reason: 'goal incomplete' });
    expect(classify(call({ evaluation: { booked: 'false' } }), on).kind).toBe('retry');
    expect(classify(call({ evaluation: { booked: true } }), on).kind).toBe('completed');
    expect(classify(call({ evaluation: {} }), on).kind).toBe('completed'); // not extracted
    expect(classify(call({ evaluation: { booked: false } }), { ...on, retryOnGoalIncomplete: false }).kind).toBe('completed');
    expect(classify(call({ evaluation: { booked: false } }), { ...on, goalCompletionVariable: null }).kind).toBe('completed');
  });

  it('recognises false-like extracted values only', () => {
    for (const v of [false, 0, 'false', 'FALSE', ' no ', '0']) expect(isFalsy(v)).toBe(true);
    for (const v of [true, 1, 'true', 'yes', null, undefined, '', 'maybe']) expect(isFalsy(v)).toBe(false);
  });

  it('never settles a call that is still live as a completion', () => {
    expect(classify(call({ status: 'in-progress' }), rules).kind).toBe('retry');
  });
});
