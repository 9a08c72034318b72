/**
 * The embedded database is never harmed (issue 15), on real processes of `src/main.ts`, each
 * on a DATA_DIR of its own: a second start on the same DATA_DIR exits with one line and the
 * first keeps serving; a lost credentials file keeps the data; a SIGKILLed postmaster comes
 * back under the running service; start-up mistakes are one line and exit code 2.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';

const dirs: string[] = [];
const running: MainProcess[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-reliability-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const p of running) await stopMain(p.child);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Runs `src/main.ts` to its end (it must not start), returning its exit code and output. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', ADMIN_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function me(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

function demoToken(p: MainProcess): string {
  const token = /Demo user token:\s+(\S+)/.exec(p.output())?.[1];
  if (!token) throw new Error(`no demo token in: ${p.output()}`);
  return token;
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

const isRoot = process.getuid?.() === 0;

describe('embedded database on one DATA_DIR', () => {
  const dataDir = tempDir(); // mode 0700 from mkdtemp: as root, the postgres user is let through
  let token: string;

  it('a second start exits 2 with one line naming the running process; the first keeps serving', async () => {
    const first = await startMain({ DATA_DIR: dataDir });
    running.push(first);
    token = demoToken(first);
    expect(await me(first.url, token)).toBe(200);

    const second = await runToExit({ DATA_DIR: dataDir });
    expect(second.code).toBe(2);
    expect(second.stderr.trim()).toBe(
      `switchboard: DATA_DIR ${dataDir} is in use by another Switchboard process (pid ${first.child.pid}); stop it first or set another DATA_DIR`,
    );
    // The running copy's server was not touched.
    expect(await me(first.url, token)).toBe(200);
    expect((await fetch(`${first.url}/ready`)).status).toBe(200);
    expect(await stopMain(first.child)).toBe(0);
    running.pop();
  }, 90_000);

  it('a missing credentials file keeps the data: the password is reset and the same users are served', async () => {
    fs.rmSync(path.join(dataDir, 'embedded-postgres.json'));
    const again = await startMain({ DATA_DIR: dataDir });
    running.push(again);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(await me(again.url, token)).toBe(200);
    expect(again.output()).toContain('resetting the database password (the data is kept)');
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')).user).toBe('switchboard');
  }, 90_000);

  it('a SIGKILLed postmaster is restarted: /ready is 503, then 200 within seconds, and nothing is lost', async () => {
    const service = running[running.length - 1];
    const before = await (await fetch(`${service.url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } })).json();
    const killed = postmasterPid(dataDir);
    process.kill(killed, 'SIGKILL');
    let saw503 = false;
    const started = Date.now();
    let readyAfterMs = -1;
    while (Date.now() - started < 30_000) {
      const status = (await fetch(`${service.url}/ready`)).status;
      if (status === 503) saw503 = true;
      if (status === 200 && saw503) {
        readyAfterMs = Date.now() - started;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(saw503).toBe(true);
    expect(readyAfterMs).toBeGreaterThan(0);
    expect(readyAfterMs).toBeLessThan(10_000);
    expect(postmasterPid(dataDir)).not.toBe(killed);
    // The pool recovers: requests succeed again and read the same data.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = await me(service.url, token);
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    const after = await (await fetch(`${service.url}/api/user/me`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(after).toEqual(before);
    expect(await stopMain(service.child)).toBe(0);
    running.pop();
  }, 90_000);
});

describe('start-up mistakes: one line, exit code 2', () => {
  it('a DATABASE_URL nobody answers on', async () => {
    const res = await runToExit({ DATABASE_URL: 'postgres://someone:planted-secret-pw@127.0.0.1:1/nothing' });
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe('switchboard: Cannot connect to the database at 127.0.0.1:1/nothing: connection refused');
  }, 60_000);

  it.runIf(isRoot)('as root, a DATA_DIR below a folder only root can enter', async () => {
    const locked = tempDir(); // 0700, owned by root
    const dataDir = path.join(locked, 'data');
    const res = await runToExit({ DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([
      `switchboard: The embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${locked} (above DATA_DIR ${dataDir}): choose a DATA_DIR it can reach, or run chmod o+x ${locked}`,
    ]);
  }, 60_000);
});
