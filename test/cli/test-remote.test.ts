/** `switchboard test --url --token`: the scenarios run on a running service through its API, reported as a local run. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRunsPart } from '../../src/assistant-tests/run-queue.js';
import { callEnginePart } from '../../src/calls/index.js';
import { minimalCreate } from '../api/assistants/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { runInProcess } from './support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let base: string;
let assistantId: number;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-remote-'));

beforeAll(async () => {
  t = await startTestService({ listen: true, parts: [callEnginePart, testRunsPart] });
  base = t.service.url!;
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  assistantId = (await alice.post('/api/user/assistant', { ...minimalCreate, initial_message: 'Hello from the service.' })).body.data.id;
  fs.writeFileSync(path.join(tmp, 'greets.yaml'), 'name: greets\ncaller: {script: []}\nexpect:\n  - transcript_contains: "Hello from the service."\n');
  fs.writeFileSync(path.join(tmp, 'wrong.yaml'), 'name: wrong greeting\nrepeat: 2\ncaller: {script: []}\nexpect:\n  - status: ended_by_customer\n  - transcript_contains: "Good morning"\n');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('switchboard test --url', () => {
  it('runs the files on the service and reports them like a local run: exit 1 on a failure, JUnit XML', async () => {
    const junit = path.join(tmp, 'remote.xml');
    const res = await runInProcess(['test', tmp, '--url', base, '--token', alice.token, '--assistant', String(assistantId), '--junit', junit], { LLM_BASE_URL: '' });
    expect(res.code, res.stderr).toBe(1);
    expect(res.stdout).toMatch(/^PASS {2}greets/m);
    expect(res.stdout).toMatch(/^FAIL {2}wrong greeting .*0 of 2 run\(s\) passed.*line 6: expected the transcript to contain "Good morning"; no line does/m);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(fs.readFileSync(junit, 'utf8'));
    expect(xml.testsuites).toMatchObject({ tests: '2', failures: '1' });
    const runs = await alice.get(`/api/user/assistants/${assistantId}/test-runs`);
    expect(runs.body.data.length).toBeGreaterThanOrEqual(1);
  });

  it("exits 2 for another user's assistant, a missing --token, and bad files (checked before anything is sent)", async () => {
    const other = await runInProcess(['test', path.join(tmp, 'greets.yaml'), '--url', base, '--token', bob.token, '--assistant', String(assistantId)], {});
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/the service refused the run: 404/);
    expect((await runInProcess(['test', tmp, '--url', base, '--assistant', '1'], {})).code).toBe(2);
    fs.writeFileSync(path.join(tmp, 'broken.yml'), 'name: x\ncaller: {script: []}\nexpect: [{max_turns: many}]\n');
    const broken = await runInProcess(['test', tmp, '--url', base, '--token', alice.token, '--assistant', String(assistantId)], {});
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yml:3: expect\[0\]\.max_turns: /);
  });
});
