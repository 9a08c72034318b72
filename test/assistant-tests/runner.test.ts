/** The runner on the text path: the offline stand-in, the chat double, a local tool endpoint that must stay untouched. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce, runScenarios } from '../../src/assistant-tests/runner.js';
import { NOT_MOCKED } from '../../src/assistant-tests/mocks.js';
import { AUDIO_NEEDS_LINE } from '../../src/assistant-tests/audio.js';
import { OfflineStandInLlm } from '../../src/providers/llm/stand-in.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { END_CALL_TOOL } from '../../src/calls/session-types.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { scenario, silent, tourAssistant } from './support.js';

const standIn = new OfflineStandInLlm(END_CALL_TOOL);
let endpoint: http.Server;
let endpointUrl: string;
let endpointRequests = 0;
let chat: ChatDouble;

beforeAll(async () => {
  endpoint = http.createServer((_req, res) => {
    endpointRequests++;
    res.setHeader('content-type', 'application/json');
    res.end('{"real": true}');
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  chat = await new ChatDouble().start();
});
afterAll(async () => {
  await new Promise((resolve) => endpoint.close(resolve));
  await chat.close();
});

/** The tour assistant with its tools pointing at the counting endpoint. */
const withEndpoint = () => {
  const a = tourAssistant();
  return { ...a, tools: a.tools.map((t) => ({ ...t, endpoint: `${endpointUrl}/${t.name}` })) };
};

describe('text mode on the offline stand-in', () => {
  it('runs a scripted caller with mocks and checks every kind of assertion; the real endpoint gets no request', async () => {
    const before = endpointRequests;
    const s = scenario(`name: books Tuesday
variables: {day: Tuesday}
caller:
  script:
    - say: "Hi, I'd like an appointment on Tuesday."
    - say: "Ten o'clock, please."
mocks:
  check_calendar: {status: 200, body: {free: ["10:00", "11:00"]}, delay_ms: 20}
expect:
  - tool_called: {name: check_calendar, arguments: {day: tuesday}}
  - builtin_called: end_call
  - status: completed
  - variables: {day: Tuesday, status: true}
  - transcript_contains: "this is the Switchboard tour"
  - transcript_absent: "/sorry|error/i"
  - max_turns: 2
  - turn_latency_ms: {p50: 5000, p95: 5000}
  - judge: "The assistant said goodbye"
`);
    const run = await runOnce(s, withEndpoint(), { llm: standIn, log: silent });
    expect(endpointRequests).toBe(before);
    expect(run.status).toBe('passed');
    expect(run.endStatus).toBe('completed');
    expect(run.transcript).toEqual([
      { role: 'note', text: '[offline stand-in: no LLM configured]' },
      { role: 'assistant', text: 'Hi Sam, this is the Switchboard tour.' },
      { role: 'caller', text: "Hi, I'd like an appointment on Tuesday." },
      { role: 'assistant', text: 'Thank you for your time. Goodbye!' },
    ]);
    // The stand-in calls every tool: the mocked one answered by its mock (after its delay), the other one not at all.
    expect(run.toolRequests.map((r) => [r.name, r.mocked, r.ok])).toEqual([['check_calendar', true, true], ['cancel_booking', false, false], [END_CALL_TOOL, false, true]]);
    expect(run.toolRequests[0]).toMatchObject({ arguments: { day: 'Tuesday' }, status: 200, response: { status: 200, body: { free: ['10:00', '11:00'] } } });
    expect(run.toolRequests[0]!.durationMs).toBeGreaterThanOrEqual(15);
    expect(run.toolRequests[1]!.response).toEqual({ error: NOT_MOCKED });
    expect(run.turns.map((t) => t.kind)).toEqual(['greeting', 'reply']);
    expect(run.turns[1]!.latencyMs).toBeGreaterThanOrEqual(20);
    expect(run.assertions.map((a) => [a.kind, a.outcome])).toEqual([
      ['tool_called', 'passed'], ['builtin_called', 'passed'], ['status', 'passed'], ['variables', 'passed'], ['transcript_contains', 'passed'],
      ['transcript_absent', 'passed'], ['max_turns', 'passed'], ['turn_latency_ms', 'passed'], ['judge', 'skipped'],
    ]);
    expect(run.assertions.at(-1)!.message).toBe('skipped: no LLM is configured to judge (set LLM_BASE_URL)');
    expect(run.variables).toMatchObject({ day: 'Tuesday', status: true });
  });

  it('reports failures with expected and actual', async () => {
    const s = scenario(`name: fails
variables: {day: Monday}
caller: {script: [{say: "Tuesday?"}]}
mocks: {check_calendar: {body: {}, delay_ms: 30}, cancel_booking: {status: 500, body: {error: no}}}
expect:
  - tool_called: {name: check_calendar, arguments: {day: Tuesday}}
  - tool_not_called: cancel_booking
  - status: ended_by_customer
  - variables: {day: Tuesday}
  - transcript_contains: "/appointment at \\\\d+/"
  - transcript_absent: "Goodbye"
  - max_turns: 1
  - turn_latency_ms: {p95: 1}
`);
    const run = await runOnce(s, withEndpoint(), { llm: standIn, log: silent });
    expect(run.status).toBe('failed');
    const byKind = Object.fromEntries(run.assertions.map((a) => [a.kind, a]));
    expect(byKind.tool_called).toMatchObject({ outcome: 'failed', actual: [{ day: 'Monday' }], message: 'expected check_calendar to be called with {"day":"Tuesday"}; it was called with {"day":"Monday"}' });
    expect(byKind.tool_not_called).toMatchObject({ outcome: 'failed', message: 'expected cancel_booking not to be called; it was called 1 time(s), with {}' });
    expect(byKind.status).toMatchObject({ outcome: 'failed', expected: 'ended_by_customer', actual: 'completed', message: 'expected the call to end ended_by_customer; it ended completed' });
    expect(byKind.variables).toMatchObject({ outcome: 'failed', message: 'expected day = "Tuesday"; extracted "Monday"' });
    expect(byKind.transcript_contains).toMatchObject({ outcome: 'failed', message: 'expected the transcript to contain /appointment at \\d+/; no line does' });
    expect(byKind.transcript_absent).toMatchObject({ outcome: 'failed', actual: 'Goodbye', message: 'expected the transcript not to contain "Goodbye"; found "Goodbye" in "AI: Thank you for your time. Goodbye!"' });
    expect(byKind.max_turns).toMatchObject({ outcome: 'failed', actual: 2, message: 'expected at most 1 turn(s); the call took 2' });
    expect(byKind.turn_latency_ms!.outcome).toBe('failed');
    expect(byKind.turn_latency_ms!.message).toMatch(/^expected p95 ≤ 1 ms; it was \d+ ms \(1 reply turn\(s\)\)$/);
  });

  it('hangs up when the script is done (an empty script: right after the greeting), and presses keys as a turn', async () => {
    const quiet = await runOnce(scenario('name: hangs up\ncaller: {script: []}\nexpect:\n  - tool_not_called: check_calendar\n  - status: ended_by_customer\n'), withEndpoint(), { llm: standIn, log: silent });
    expect(quiet).toMatchObject({ status: 'passed', endStatus: 'ended_by_customer', toolRequests: [] });
    const keys = await runOnce(scenario('name: keys\ncaller: {script: [{keys: "12#"}]}\nexpect:\n  - transcript_contains: "[keypad: 12#]"\n'), withEndpoint(), { llm: standIn, log: silent });
    expect(keys.status).toBe('passed');
  });

  it('repeats a scenario and holds its runs to pass_rate; runs go in parallel within the limit', async () => {
    const s = scenario('name: r\nrepeat: 4\npass_rate: 0.5\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n');
    const never = scenario('name: never\nrepeat: 2\ncaller: {script: [{say: hi}]}\nexpect: [{status: ended}]\n');
    const seen: number[] = [];
    const suite = await runScenarios([s, never], tourAssistant(), { llm: standIn, log: silent }, { concurrency: 3, onRun: (r) => seen.push(r.scenario) });
    expect(seen.sort()).toEqual([0, 0, 0, 0, 1, 1]);
    expect(suite).toMatchObject({ status: 'failed', total: 2, passed: 1, failed: 1, errored: 0 });
    expect(suite.scenarios[0]).toMatchObject({ status: 'passed', passedRuns: 4, passRate: 1, requiredPassRate: 0.5, summary: '4 of 4 run(s) passed (pass_rate 0.5)' });
    expect(suite.scenarios[1]).toMatchObject({ status: 'failed', passedRuns: 0, passRate: 0 });
    expect(suite.scenarios[1]!.summary).toBe('0 of 2 run(s) passed (pass_rate 1); line 4: expected the call to end ended; it ended completed');
    expect(suite.scenarios[0]!.runs.map((r) => r.repeat)).toEqual([0, 1, 2, 3]);
  });

  it('refuses to run audio mode, and a scenario naming a tool the assistant lacks, as errors', async () => {
    const audio = await runOnce(scenario('name: a\nmode: audio\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n'), tourAssistant(), { llm: standIn, log: silent });
    // Without audio deps (no sandbox line, no speech providers) audio mode refuses; audio.test.ts runs it.
    expect(audio).toMatchObject({ status: 'error', error: AUDIO_NEEDS_LINE });
    const lacking = await runOnce(scenario('name: b\ncaller: {script: [{say: hi}]}\nmocks: {book_room: {}}\nexpect: [{status: completed}]\n'), tourAssistant(), { llm: standIn, log: silent });
    expect(lacking).toMatchObject({ status: 'error', error: expect.stringMatching(/^line 3: mock for "book_room"/) });
  });

  it('a simulated caller on the stand-in greets and the call runs to its end', async () => {
    const run = await runOnce(scenario('name: sim\nvariables: {day: Friday}\ncaller: {persona: a parent, goal: book Friday}\nexpect: [{status: completed}, {tool_called: {name: check_calendar, arguments: {day: Friday}}}]\n'), tourAssistant(), { llm: standIn, log: silent });
    expect(run.status).toBe('passed');
    expect(run.transcript.filter((l) => l.role === 'caller')).toEqual([{ role: 'caller', text: 'Hello, this is an automated assistant.' }]);
  });
});

describe('text mode on a real model (the chat double)', () => {
  it('plays a simulated caller with the LLM and judges with it', async () => {
    chat.forgetScripts();
    // The caller's model reads the assistant's lines as the other side.
    chat.on('Hi Sam, this is the Switchboard tour.', { text: "Hello, I'd like an appointment on Tuesday." });
    chat.on('Tuesday at ten is free, you are booked. Goodbye!', { text: 'Great, bye!', toolCalls: [{ name: 'hang_up', args: {} }] });
    // The assistant's model reads the caller's.
    chat.on("Hello, I'd like an appointment on Tuesday.", { toolCalls: [{ name: 'check_calendar', args: { day: 'Tuesday' } }] }, { text: 'Tuesday at ten is free, you are booked. Goodbye!' });
    chat.on('Great, bye!', { text: 'Bye!' });
    chat.extract({ day: 'Tuesday', status: true, summary: 'Booked Tuesday.', passed: true, reason: 'The assistant confirmed Tuesday at ten before the caller hung up.' });
    const llm = new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl });
    const s = scenario(`name: simulated
caller:
  persona: A busy parent
  goal: Book Tuesday 10:00
  facts: {name: Ada Lovelace}
  model: caller-model
mocks: {check_calendar: {body: {free: ["10:00"]}}}
expect:
  - tool_called: {name: check_calendar, arguments: {day: Tuesday}}
  - tool_not_called: cancel_booking
  - variables: {day: tuesday}
  - status: ended_by_customer
  - judge: The assistant confirmed the time
`);
    const before = chat.received.length;
    const run = await runOnce(s, tourAssistant(), { llm, log: silent });
    expect(run.transcript).toEqual([
      { role: 'assistant', text: 'Hi Sam, this is the Switchboard tour.' },
      { role: 'caller', text: "Hello, I'd like an appointment on Tuesday." },
      { role: 'assistant', text: 'Tuesday at ten is free, you are booked. Goodbye!' },
      { role: 'caller', text: 'Great, bye!' },
    ]);
    expect(run.assertions.map((a) => [a.kind, a.outcome])).toEqual([['tool_called', 'passed'], ['tool_not_called', 'passed'], ['variables', 'passed'], ['status', 'passed'], ['judge', 'passed']]);
    expect(run.assertions.at(-1)!.message).toBe('The assistant confirmed Tuesday at ten before the caller hung up.');
    const requests = chat.received.slice(before).map((r) => r.body);
    const callerRequests = requests.filter((b) => b.model === 'caller-model');
    expect(callerRequests).toHaveLength(2);
    expect(callerRequests[0].messages[0].content).toContain('A busy parent');
    expect(callerRequests[0].messages[0].content).toContain('name: Ada Lovelace');
    expect(callerRequests[0].tools.map((t: any) => t.function.name)).toEqual(['hang_up']);
    expect(requests.some((b) => b.model === 'gpt-4o-mini' && b.stream === true)).toBe(true);
  });
});
