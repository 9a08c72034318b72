/** `switchboard test`: the example suite offline, exit codes, bad files with line and reason, JUnit XML read back. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, runSwitchboard } from './support.js';
import { AUDIO_NEEDS_STT } from '../../src/assistant-tests/audio.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-cmd-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const env = { LLM_BASE_URL: '' };
const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/tests');

/** A suite folder: the examples' assistant and the given scenario files. */
function suite(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(EXAMPLES, 'assistant.yaml'), path.join(dir, 'assistant.yaml'));
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) });

describe('switchboard test', () => {
  it('passes the example suite offline (a real process, as CI runs it) and writes JUnit XML', async () => {
    const junit = path.join(tmp, 'examples.xml');
    const res = await runSwitchboard(['test', EXAMPLES, '--junit', junit], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^PASS {2}books a Tuesday appointment/m);
    expect(res.stdout).toContain('3 passed, 0 failed, 0 could not run');
    expect(res.stdout).toContain('skipped (not passed): 2 judge assertion(s)');
    const xml = parser.parse(fs.readFileSync(junit, 'utf8'));
    expect(xml.testsuites).toMatchObject({ tests: '3', failures: '0', errors: '0' });
    expect(xml.testsuites.testsuite.map((s: any) => s.testcase[0].name).sort()).toEqual(['a simulated caller books Friday', 'books a Tuesday appointment', 'books nothing when the caller hangs up at once']);
  }, 60_000);

  it('exits 1 when a scenario fails, with the failing assertion, and JUnit failures carry the messages', async () => {
    const dir = suite('failing', {
      'ok.yaml': 'name: greets\ncaller: {script: []}\nexpect:\n  - transcript_contains: "Switchboard tour"\n',
      'bad.yaml': 'name: wants Monday\nvariables: {day: Tuesday, time: "10:00"}\ncaller: {script: [{say: Monday?}]}\nmocks: {check_calendar: {body: {}}, book_appointment: {body: {}}}\nexpect:\n  - tool_called: {name: check_calendar, arguments: {day: Monday}}\n  - status: completed\n',
    });
    const junit = path.join(tmp, 'failing.xml');
    const res = await runInProcess(['test', dir, '--junit', junit], env);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('FAIL  wants Monday');
    expect(res.stdout).toContain('x bad.yaml:6 tool_called: expected check_calendar to be called with {"day":"Monday"}; it was called with {"day":"Tuesday"}'.replace('bad.yaml', path.relative(process.cwd(), path.join(dir, 'bad.yaml'))));
    const xml = parser.parse(fs.readFileSync(junit, 'utf8'));
    expect(xml.testsuites).toMatchObject({ tests: '2', failures: '1', errors: '0' });
    const cases = xml.testsuites.testsuite.flatMap((s: any) => s.testcase);
    const failed = cases.find((c: any) => c.name === 'wants Monday');
    expect(failed.failure.message).toBe('0 of 1 run(s) passed (pass_rate 1); line 6: expected check_calendar to be called with {"day":"Monday"}; it was called with {"day":"Tuesday"}');
    expect(failed.failure['#text']).toContain('tool_called: expected check_calendar');
    expect(failed['system-out']).toContain('Caller: Monday?');
    expect(cases.find((c: any) => c.name === 'greets').failure).toBeUndefined();
  });

  it('prints the results as JSON with --json', async () => {
    const res = await runInProcess(['--json', 'test', path.join(EXAMPLES, 'hangs-up-early.yaml')], env);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ status: 'passed', total: 1, assistant: { name: 'Tour' } });
    expect(out.scenarios[0].runs[0].assertions.map((a: any) => a.outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
  });

  it('exits 2 on unusable input: bad files with line and reason, a tool the assistant lacks, no assistant, no files', async () => {
    const bad = suite('bad', { 'a.yaml': 'name: x\ncaller: {script: [{say: hi}]}\nexpect:\n  - transcript_absent: "/sorry(/"\n  - colour: red\n' });
    const res = await runInProcess(['test', bad], env);
    expect(res.code).toBe(2);
    const shown = path.relative(process.cwd(), path.join(bad, 'a.yaml'));
    expect(res.stderr).toContain(`${shown}:4: malformed regex /sorry(/:`);
    expect(res.stderr).toContain(`${shown}:5: unknown assertion "colour"`);

    const lacking = suite('lacking', { 'a.yaml': 'name: x\ncaller: {script: [{say: hi}]}\nmocks:\n  cancel_booking: {status: 200}\nexpect: [{status: completed}]\n' });
    const res2 = await runInProcess(['test', lacking], env);
    expect(res2.code).toBe(2);
    expect(res2.stderr).toContain(':4: mock for "cancel_booking": the assistant has no tool of that name (its tools: check_calendar, book_appointment)');

    // Audio mode without a speech-to-text provider (none configured here): refused before anything runs, at the mode line.
    const audio = suite('audio', { 'a.yaml': 'name: by voice\nmode: audio\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n' });
    const res5 = await runInProcess(['test', audio], env);
    expect(res5.code).toBe(2);
    expect(res5.stderr).toContain(`:2: ${AUDIO_NEEDS_STT}`);

    const alone = path.join(tmp, 'alone');
    fs.mkdirSync(alone);
    fs.writeFileSync(path.join(alone, 'a.yaml'), 'name: x\ncaller: {script: [{say: hi}]}\nexpect: [{status: completed}]\n');
    const res3 = await runInProcess(['test', alone], env);
    expect(res3).toMatchObject({ code: 2, stderr: expect.stringContaining('no assistant to test: pass --assistant ID, or put an assistant.yaml beside the scenarios') });
    expect((await runInProcess(['test', path.join(tmp, 'missing')], env)).code).toBe(2);
    fs.writeFileSync(path.join(alone, 'assistant.yaml'), 'name: x\ntools: [{name: t, description: d}]\n');
    const res4 = await runInProcess(['test', alone], env);
    expect(res4.code).toBe(2);
    expect(res4.stderr).toMatch(/assistant\.yaml:2: /);
  });
});
