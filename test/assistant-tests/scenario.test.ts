import { describe, expect, it } from 'vitest';
import { validateAgainstAssistant } from '../../src/assistant-tests/assistant-checks.js';
import { compilePattern, formatErrors, parseScenarioDocument, parseScenarioValue, type Scenario } from '../../src/assistant-tests/scenario.js';

const ISSUE_EXAMPLE = `name: books a Tuesday appointment
mode: text
variables: {customer_name: Ada}
repeat: 3
pass_rate: 1.0
caller:
  script:
    - say: "Hi, I'd like an appointment on Tuesday."
    - say: "Ten o'clock, please."
    - keys: "1"
mocks:
  check_calendar: {status: 200, body: {free: ["10:00", "11:00"]}, delay_ms: 0}
expect:
  - tool_called: {name: check_calendar, arguments: {day: Tuesday}}
  - tool_not_called: cancel_booking
  - builtin_called: {type: call_transfer}
  - status: completed
  - variables: {appointment_day: Tuesday}
  - transcript_contains: "Tuesday"
  - transcript_absent: "/sorry|error/i"
  - max_turns: 8
  - turn_latency_ms: {p95: 1500}
  - judge: "The assistant confirmed date and time before ending the call"
`;

function scenarios(text: string, file = 'a.yaml'): Scenario[] {
  const r = parseScenarioDocument(text, file);
  if ('errors' in r) throw new Error(formatErrors(file, r.errors));
  return r.scenarios;
}

function errors(text: string) {
  const r = parseScenarioDocument(text, 'bad.yaml');
  if (!('errors' in r)) throw new Error('expected errors');
  return r.errors;
}

describe('parseScenarioDocument', () => {
  it("reads the issue's example with every assertion kind, each with its line", () => {
    const [s] = scenarios(ISSUE_EXAMPLE);
    expect(s).toMatchObject({ name: 'books a Tuesday appointment', mode: 'text', repeat: 3, pass_rate: 1, variables: { customer_name: 'Ada' }, file: 'a.yaml', line: 1 });
    expect(s!.caller).toEqual({ kind: 'script', script: [{ say: "Hi, I'd like an appointment on Tuesday." }, { say: "Ten o'clock, please." }, { keys: '1' }] });
    expect(s!.mocks).toEqual({ check_calendar: { status: 200, body: { free: ['10:00', '11:00'] }, delay_ms: 0 } });
    expect(s!.mockLines).toEqual({ check_calendar: 12 });
    expect(s!.expect.map((e) => [e.kind, e.line])).toEqual([
      ['tool_called', 14], ['tool_not_called', 15], ['builtin_called', 16], ['status', 17], ['variables', 18],
      ['transcript_contains', 19], ['transcript_absent', 20], ['max_turns', 21], ['turn_latency_ms', 22], ['judge', 23],
    ]);
    expect(s!.expect[0]).toEqual({ kind: 'tool_called', name: 'check_calendar', arguments: { day: 'Tuesday' }, line: 14 });
    expect(s!.expect[8]).toEqual({ kind: 'turn_latency_ms', p95: 1500, line: 22 });
  });

  it('reads a simulated caller with its defaults, JSON documents, lists and several YAML documents', () => {
    const sim = scenarios('name: sim\ncaller: {persona: busy parent, goal: book Tuesday}\nexpect: [{status: completed}]\n')[0]!;
    expect(sim.caller).toEqual({ kind: 'simulated', persona: 'busy parent', goal: 'book Tuesday', facts: {}, maxTurns: 10, model: null });
    expect(sim).toMatchObject({ repeat: 1, pass_rate: 1, mode: 'text', mocks: {} });
    const json = scenarios(JSON.stringify({ name: 'j', caller: { script: [{ say: 'hi' }] }, expect: [{ max_turns: 3 }] }, null, 2), 'j.json');
    expect(json[0]).toMatchObject({ name: 'j', file: 'j.json' });
    expect(scenarios('- name: one\n  caller: {script: [{say: hi}]}\n  expect: [{status: completed}]\n- name: two\n  caller: {script: [{say: hi}]}\n  expect: [{status: ended}]\n').map((s) => [s.name, s.line])).toEqual([['one', 1], ['two', 4]]);
    expect(scenarios('name: one\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n---\nname: two\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n').map((s) => [s.name, s.line])).toEqual([['one', 1], ['two', 5]]);
  });

  it('refuses unknown keys with the line of the key', () => {
    expect(errors('name: x\ncaller:\n  script:\n    - say: hi\n      wait: 3\nexpect:\n  - status: completed\ncolour: red\n')).toEqual([
      { line: 5, message: 'unknown key "wait"' },
      { line: 8, message: 'unknown key "colour"' },
    ]);
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nexpect:\n  - status: completed\n  - tool_caled: x\n')).toEqual([
      { line: 5, message: expect.stringMatching(/^unknown assertion "tool_caled" \(one of tool_called, tool_not_called, builtin_called, status/) },
    ]);
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nmocks:\n  t: {status: 200, bdy: 1}\nexpect: [{status: completed}]\n')).toEqual([{ line: 4, message: 'unknown key "bdy"' }]);
  });

  it('refuses malformed regular expressions, naming the line and the reason', () => {
    const [e] = errors('name: x\ncaller: {script: [{say: hi}]}\nexpect:\n  - status: completed\n  - transcript_absent: "/sorry(/i"\n');
    expect(e!.line).toBe(5);
    expect(e!.message).toMatch(/^malformed regex \/sorry\(\/i: .*(unterminated|group)/i);
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nexpect:\n  - transcript_contains: "/a/q"\n')[0]).toEqual({ line: 4, message: expect.stringContaining('unknown flag') });
  });

  it('refuses wrong types, missing fields, mixed callers, bad YAML and empty files with lines', () => {
    expect(errors('name: x\nrepeat: zero\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n')).toEqual([{ line: 2, message: expect.stringMatching(/^repeat: .*number/i) }]);
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nexpect: [{status: finished}]\n')[0]).toMatchObject({ line: 3, message: expect.stringMatching(/^expect\[0\]\.status: .*completed/) });
    expect(errors('name: x\ncaller:\n  persona: p\nexpect: [{status: completed}]\n')).toEqual([{ line: 3, message: 'caller needs a script, or persona and goal for a simulated caller' }]);
    expect(errors('name: x\ncaller:\n  script: [{say: hi}]\n  persona: p\nexpect: [{status: completed}]\n')[0]).toMatchObject({ line: 4, message: expect.stringContaining('either a script or a simulated caller') });
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nexpect:\n  - {status: completed, max_turns: 3}\n')[0]).toMatchObject({ line: 4, message: expect.stringContaining('exactly one assertion') });
    expect(errors('name: x\ncaller: {script: [{say: hi}]}\nexpect: []\n')[0]).toMatchObject({ line: 3, message: expect.stringContaining('at least one assertion') });
    expect(errors('name: x\ncaller: {script: [{keys: "12a"}]}\nexpect: [{status: completed}]\n')[0]).toMatchObject({ line: 2, message: expect.stringContaining('keys must be') });
    expect(errors('name: x\n  bad: indent\n: y\n')[0]!.line).toBeGreaterThan(0);
    expect(errors('name: a\nname: b\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n')[0]).toMatchObject({ line: 2, message: expect.stringMatching(/unique/i) });
    expect(errors('# only a comment\n')).toEqual([{ line: 0, message: 'the file holds no scenario' }]);
    expect(errors('caller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n')[0]).toMatchObject({ line: 1, message: expect.stringMatching(/^name: /) });
  });

  it('checks JSON values from a request body with paths', () => {
    expect(parseScenarioValue({ name: 'x', caller: { script: [{ say: 'hi' }] }, expect: [{ judge: '' }] })).toEqual({ errors: [{ path: 'expect.0.judge', message: expect.stringMatching(/^expect\[0\]\.judge: /) }] });
    const ok = parseScenarioValue({ name: 'x', caller: { script: [{ say: 'hi' }] }, expect: [{ status: 'completed' }] });
    expect(ok).toMatchObject({ scenario: { name: 'x', line: 0 } });
  });
});

describe('validateAgainstAssistant', () => {
  const assistant = {
    tools: [{ name: 'check_calendar' }, { name: 'cancel_booking' }],
    builtinTools: [{ type: 'call_transfer' }],
    postCallSchema: [{ name: 'appointment_day' }],
  };

  it("accepts the issue's example against an assistant that has its tools", () => {
    expect(validateAgainstAssistant(scenarios(ISSUE_EXAMPLE)[0]!, assistant)).toEqual([]);
  });

  it('refuses a mock or an expectation for a tool the assistant does not have, with its line', () => {
    const [s] = scenarios(
      'name: x\ncaller: {script: [{say: hi}]}\nmocks:\n  check_calendar: {body: {}}\n  book_room: {status: 500}\nexpect:\n  - tool_called: book_room\n  - builtin_called: collect_keypad\n  - variables: {mood: happy}\n  - builtin_called: end_call\n',
    );
    expect(validateAgainstAssistant(s!, assistant)).toEqual([
      { line: 5, message: 'mock for "book_room": the assistant has no tool of that name (its tools: check_calendar, cancel_booking)' },
      { line: 7, message: 'tool_called "book_room": the assistant has no tool of that name (its tools: check_calendar, cancel_booking)' },
      { line: 8, message: 'builtin_called "collect_keypad": the assistant has no built-in tool of that type' },
      { line: 9, message: `variables "mood": the assistant's post-call extraction has no such field (appointment_day)` },
    ]);
  });

  it('lets a mock answer a built-in function the assistant has (a calendar lookup)', () => {
    const [s] = scenarios('name: x\ncaller: {script: [{say: hi}]}\nmocks:\n  check-availability: {body: {slots: []}}\nexpect: [{status: completed}]\n');
    expect(validateAgainstAssistant(s!, { ...assistant, builtinTools: [{ type: 'calendar_integration' }] })).toEqual([]);
    expect(validateAgainstAssistant(s!, assistant)).toHaveLength(1);
  });
});

describe('compilePattern', () => {
  it('takes /source/flags as a regular expression and other text literally, ignoring case', () => {
    expect(compilePattern('/sorry|error/i').regex.test('An ERROR')).toBe(true);
    expect(compilePattern('a.b (c)').regex.test('A.B (C)')).toBe(true);
    expect(compilePattern('a.b').regex.test('axb')).toBe(false);
    expect(compilePattern('/t/g').regex.flags).toBe('');
  });
});
