/**
 * Clean shutdown on the embedded setup (issue 15): SIGINT (what Ctrl-C sends) and SIGTERM to
 * the service end with exit 0 and no error-level log line. The postmaster runs in its own
 * process group (a terminal's Ctrl-C does not reach it), so the service stops it after the job
 * queue. The signal goes to the service process only: the test's group is the test runner's.
 * Live calls during shutdown: test/reliability/shutdown-live-calls.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMain } from '../support/main-process.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-shutdown-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('shutdown on the embedded setup', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s: exit 0, no error-level line, the server stopped', async (signal) => {
    const main = await startMain({ DATA_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    const exited = new Promise<number | null>((r) => main.child.once('exit', (code) => r(code)));
    main.child.kill(signal);
    expect(await exited).toBe(0);
    const errorLines = main.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
    expect(errorLines).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'switchboard.lock'))).toBe(false);
  }, 90_000);
});
