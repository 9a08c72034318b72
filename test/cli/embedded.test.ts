/**
 * The CLI end to end on the embedded database (DATA_DIR), as an operator of `npm start` uses
 * it: while the service runs, the CLI works through the service's own PostgreSQL server (its
 * postmaster.pid and stored credentials) and the service follows every change at once; while
 * the service is stopped, the CLI starts the server itself and stops it again, so the service
 * starts normally afterwards. Embedded project only (that is what `npm start` uses).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from '../support/main-process.js';
import { json, runSwitchboard } from './support.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cli-'));
fs.chmodSync(dataDir, 0o755);
const env = { DATA_DIR: dataDir };
let service: MainProcess | undefined;
afterAll(async () => {
  if (service) await stopMain(service.child);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function get(url: string, token: string, method = 'GET'): Promise<number> {
  return (await fetch(url, { method, headers: { authorization: `Bearer ${token}` } })).status;
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.runIf(inject('pgPrefix') === 'sbt_')('switchboard CLI on the embedded database', () => {
  it('works beside the running service: user, token, revoke, rotate', async () => {
    service = await startMain(env);
    const s = service;
    const bannerAdmin = /Admin token \(ADMIN API\):\s+(\S+)/.exec(s.output())?.[1];
    expect(bannerAdmin).toMatch(/^sb_admin_/);

    const created = await json(runSwitchboard, ['users', 'create', '--name', 'Eve', '--email', 'eve@example.test'], env);
    expect(await get(`${s.url}/api/user/me`, created.token)).toBe(200);

    const issued = await json(runSwitchboard, ['tokens', 'issue', 'eve@example.test'], env);
    expect(await get(`${s.url}/api/user/me`, issued.token)).toBe(200);
    await json(runSwitchboard, ['tokens', 'revoke', String(issued.id), '--user', 'eve@example.test'], env);
    await eventually(async () => (await get(`${s.url}/api/user/me`, issued.token)) === 401);
    expect(await get(`${s.url}/api/user/me`, created.token)).toBe(200);

    // The banner's admin token is lost: rotate, and only the new one works.
    const adminProbe = `${s.url}/api/admin/users/${created.id}/tokens/999999`; // 404 with the admin token, 401 without
    expect(await get(adminProbe, bannerAdmin!, 'DELETE')).toBe(404);
    const rotated = (await json(runSwitchboard, ['admin-token', 'rotate'], env)).admin_token as string;
    await eventually(async () => (await get(adminProbe, bannerAdmin!, 'DELETE')) === 401);
    expect(await get(adminProbe, rotated, 'DELETE')).toBe(404);
    const viaNewAdmin = await fetch(`${s.url}/api/admin/users/${created.id}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${rotated}` } });
    expect(viaNewAdmin.status).toBe(201);
  }, 180_000);

  it('starts the embedded server itself while the service is stopped, and leaves the folder to it', async () => {
    expect(await stopMain(service!.child)).toBe(0);
    service = undefined;
    const users = await json(runSwitchboard, ['users', 'list'], env);
    expect(users.map((u: { email: string }) => u.email)).toEqual(['demo@switchboard.local', 'eve@example.test']);
    const added = await json(runSwitchboard, ['numbers', 'add', 'eve@example.test', '+4930555000'], env);
    expect(added.phone_number).toBe('+4930555000');

    service = await startMain(env);
    const numbers = await json(runSwitchboard, ['numbers', 'list', '--user', 'eve@example.test'], env);
    expect(numbers.map((n: { id: number }) => n.id)).toEqual([added.id]);
  }, 180_000);
});
