/**
 * The real entry point (`src/main.ts`) as a child process: first start on an empty embedded
 * database prints the tokens once, a restart keeps the data and prints nothing, SIGTERM
 * shuts down cleanly. Runs on the embedded server only (that is what `npm start` uses).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startMain, stopMain } from './support/main-process.js';
import { waitFor } from './support/wait.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-main-'));
fs.chmodSync(dataDir, 0o755);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const start = () => startMain({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
const stop = stopMain;

describe.runIf(inject('pgPrefix') === 'sbt_')('npm start', () => {
  it('bootstraps once, keeps data across a restart, and stops on SIGTERM', async () => {
    const first = await start();
    const token = /Demo user token:\s+(\S+)/.exec(first.output())?.[1];
    const adminToken = /Admin token \(ADMIN API\):\s+(\S+)/.exec(first.output())?.[1];
    expect(token).toMatch(/^sb_/);
    expect(adminToken).toMatch(/^sb_admin_/);
    // The banner is apart from the log: stdout (not a terminal here) is JSON lines only,
    // and no token reaches it.
    // Log lines reach stdout in chunks, at the latest STDOUT_FLUSH_MS (200 ms) after they were written.
    await waitFor('the "listening" log line', () => first.stdout().includes('Switchboard listening'), 5_000, 50);
    const logLines = first.stdout().split('\n').filter((l) => l.trim() !== '');
    expect(logLines.map((l) => JSON.parse(l).msg)).toContain('Switchboard listening');
    expect(first.stdout()).not.toContain(token!);
    expect(first.stdout()).not.toContain(adminToken!);
    const me = await fetch(`${first.url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: 'Demo' });
    const created = await fetch(`${first.url}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept', email: 'kept@example.test' }),
    });
    expect(created.status).toBe(201);
    expect(await stop(first.child)).toBe(0);

    const second = await start();
    expect(second.output()).not.toContain('Demo user token');
    const again = await fetch(`${second.url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(200);
    const dup = await fetch(`${second.url}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept', email: 'kept@example.test' }),
    });
    expect(dup.status).toBe(422); // the first start's user is still there
    expect(await stop(second.child)).toBe(0);
  }, 90_000);

  it('refuses a bad configuration with a clear message', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'eighty', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr!.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(2);
    expect(out).toContain('Invalid configuration');
    expect(out).toContain('PORT');
  }, 30_000);
});
