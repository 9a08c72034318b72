/** Assertion kinds the runner tests do not drive to both outcomes: built-ins, judges (on the chat double), value matching. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExpectation, llmJudge, matches, percentile, type RunFacts } from '../../src/assistant-tests/assertions.js';
import { OfflineStandInLlm } from '../../src/providers/llm/stand-in.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ChatDouble } from '../support/doubles/chat.js';

let chat: ChatDouble;
beforeAll(async () => (chat = await new ChatDouble().start()));
afterAll(() => chat.close());

const facts: RunFacts = {
  status: 'completed',
  transcript: 'AI: Hello.\nCustomer: Put me through to a person.\nTransfer: the call was transferred to +4930123456.',
  toolRequests: [{ name: 'transfer-call', builtin: 'call_transfer', arguments: {}, mocked: false, ok: true, status: null, response: { ok: true }, durationMs: 1 }],
  turns: [],
  variables: null,
};
const noJudge = async () => null;

describe('builtin_called', () => {
  it('passes when a function of the type was called and fails naming what was called', async () => {
    expect(await checkExpectation({ kind: 'builtin_called', type: 'call_transfer', line: 3 }, facts, noJudge)).toMatchObject({ outcome: 'passed', message: 'the built-in call_transfer was called (transfer-call)' });
    expect(await checkExpectation({ kind: 'builtin_called', type: 'dtmf_input', line: 4 }, facts, noJudge)).toEqual({
      kind: 'builtin_called',
      line: 4,
      outcome: 'failed',
      expected: { type: 'dtmf_input' },
      actual: [],
      message: 'expected the built-in dtmf_input (press-digits) to be called; it was not (the calls were transfer-call({}))',
    });
    expect(await checkExpectation({ kind: 'builtin_called', type: 'call_transfer', arguments: { to: 'x' }, line: 5 }, facts, noJudge)).toMatchObject({ outcome: 'failed', message: 'expected the built-in call_transfer to be called with {"to":"x"}; it was called with {}' });
  });

  it('fails variables when the assistant extracts none, and reply latency when no caller turn was answered', async () => {
    expect(await checkExpectation({ kind: 'variables', values: { day: 'x' }, line: 1 }, facts, noJudge)).toMatchObject({ outcome: 'failed', message: 'expected post-call variables; the assistant extracts none' });
    expect(await checkExpectation({ kind: 'turn_latency_ms', p95: 100, line: 1 }, facts, noJudge)).toMatchObject({ outcome: 'failed', message: 'expected reply latencies; the assistant answered no caller turn' });
  });
});

describe('judge', () => {
  it('is decided by the LLM with its one-sentence reason, passing and failing', async () => {
    const judge = llmJudge(new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl }), 'judge-model');
    chat.extract({ passed: true, reason: 'The assistant transferred the caller as asked.' });
    expect(await checkExpectation({ kind: 'judge', criterion: 'Transfers on request', line: 7 }, facts, judge)).toMatchObject({ outcome: 'passed', message: 'The assistant transferred the caller as asked.', actual: { passed: true } });
    chat.extract({ passed: false, reason: 'The assistant never confirmed a time.' });
    expect(await checkExpectation({ kind: 'judge', criterion: 'Confirms the time', line: 8 }, facts, judge)).toMatchObject({ outcome: 'failed', expected: 'Confirms the time', message: 'The assistant never confirmed a time.' });
    const asked = chat.received.at(-1)!.body;
    expect(asked.model).toBe('judge-model');
    expect(asked.messages[1].content).toContain('Criterion: Confirms the time');
    expect(asked.messages[1].content).toContain('transfer-call({})');
  });

  it('is skipped, never passed, on the offline stand-in, and fails when the LLM cannot answer', async () => {
    const skipped = await checkExpectation({ kind: 'judge', criterion: 'x', line: 1 }, facts, llmJudge(new OfflineStandInLlm('end-call'), 'm'));
    expect(skipped).toMatchObject({ outcome: 'skipped', message: 'skipped: no LLM is configured to judge (set LLM_BASE_URL)' });
    chat.knobs.failWith = 500;
    try {
      const broken = await checkExpectation({ kind: 'judge', criterion: 'x', line: 1 }, facts, llmJudge(new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl }), 'm'));
      expect(broken.outcome).toBe('failed');
      expect(broken.message).toMatch(/^the judge could not decide: /);
    } finally {
      chat.knobs.failWith = null;
    }
  });
});

describe('matching values', () => {
  it('compares text without case, numbers with their text, objects as subsets and lists in order', () => {
    expect(matches('Tuesday', ' tuesday ')).toBe(true);
    expect(matches(10, '10')).toBe(true);
    expect(matches(true, 'true')).toBe(true);
    expect(matches({ day: 'Tuesday' }, { day: 'Tuesday', time: '10:00' })).toBe(true);
    expect(matches({ day: 'Tuesday', time: '11:00' }, { day: 'Tuesday', time: '10:00' })).toBe(false);
    expect(matches(['10:00'], ['10:00', '11:00'])).toBe(false);
    expect(matches(null, undefined)).toBe(true);
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 95)).toBe(5);
    expect(percentile([], 95)).toBeNull();
  });
});
