/**
 * The CLI end to end on a database named by DATABASE_URL (the external server in the
 * `external` project, the run's embedded server reached by URL in the other): a fresh empty
 * database is migrated by the CLI, given an admin token, and a running service sees every
 * account change at once. The steps the issue names run the real binary; the rest run the
 * same program in this process.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminQuery, withDatabase } from '../support/template.js';
import { dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { json, runInProcess, runSwitchboard } from './support.js';

let databaseUrl: string;
let env: Record<string, string>;
let t: TestService | undefined;

beforeAll(async () => {
  const name = `${inject('pgPrefix')}cli_${randomBytes(4).toString('hex')}`;
  await adminQuery(inject('pgServerUrl'), `CREATE DATABASE "${name}"`);
  databaseUrl = withDatabase(inject('pgServerUrl'), name);
  env = { DATABASE_URL: databaseUrl };
});
afterAll(async () => {
  await t?.close();
  await dropTestDatabase(databaseUrl);
});

async function eventuallyStatus(request: () => Promise<{ status: number }>, status: number): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await request();
    if (res.status === status) return;
    if (Date.now() > until) throw new Error(`still ${res.status}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('switchboard CLI with DATABASE_URL', () => {
  it('refuses to work on an unmigrated database, then migrates it', async () => {
    const early = await runInProcess(['users', 'list'], env);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('npx switchboard migrate');
    const migrated = await json(runSwitchboard, ['migrate'], env);
    expect(migrated.applied.length).toBeGreaterThan(5);
    expect(await json(runInProcess, ['migrate'], env)).toEqual({ applied: [] });
  }, 60_000);

  it('creates a user, issues and revokes tokens, rotates the admin token; the running service follows at once', async () => {
    const firstAdmin = (await json(runSwitchboard, ['admin-token', 'rotate'], env)).admin_token as string;
    expect(firstAdmin).toMatch(/^sb_admin_/);
    // The service runs without ADMIN_TOKEN, so the stored token is the admin token.
    t = await startTestService({ databaseUrl, env: { ADMIN_TOKEN: '' } });
    const admin = t.client(firstAdmin);
    expect((await admin.post('/api/admin/voices', { name: 'First', mode: 'pipeline' })).status).toBe(201);

    const created = await json(runSwitchboard, ['users', 'create', '--name', 'Ada', '--email', 'ada@example.test', '--max-calls', '3'], env);
    expect(created).toMatchObject({ id: expect.any(Number), name: 'Ada', max_calls_in_parallel: 3, token: expect.stringMatching(/^sb_/) });
    const ada = t.client(created.token);
    expect(await ada.get('/api/user/me')).toMatchObject({ status: 200, body: { id: created.id, name: 'Ada', max_calls_in_parallel: 3 } });

    const dup = await runInProcess(['users', 'create', '--name', 'Ada', '--email', 'ADA@example.test'], env);
    expect(dup).toMatchObject({ code: 1, stderr: expect.stringContaining('The email has already been taken.') });

    const number = await json(runInProcess, ['numbers', 'add', 'ada@example.test', '030 1234567', '--type', 'SIP'], env);
    expect(number).toMatchObject({ user_id: created.id, phone_number: '+49301234567', type_label: 'SIP' });
    expect((await ada.get('/api/user/phone-numbers/all')).body.data.map((n: { id: number }) => n.id)).toEqual([number.id]);

    const second = await json(runSwitchboard, ['tokens', 'issue', String(created.id)], env);
    const other = t.client(second.token);
    expect((await other.get('/api/user/me')).status).toBe(200);
    const listed = await json(runInProcess, ['tokens', 'list', 'ada@example.test'], env);
    expect(listed.map((x: { id: number }) => x.id)).toContain(second.id);
    expect(JSON.stringify(listed)).not.toContain(second.token);

    await json(runSwitchboard, ['tokens', 'revoke', String(second.id)], env);
    await eventuallyStatus(() => other.get('/api/user/me'), 401);
    expect((await ada.get('/api/user/me')).status).toBe(200);

    const secondAdmin = (await json(runSwitchboard, ['admin-token', 'rotate'], env)).admin_token as string;
    await eventuallyStatus(() => admin.post('/api/admin/voices', { name: 'Old', mode: 'pipeline' }), 401);
    expect((await t.client(secondAdmin).post('/api/admin/voices', { name: 'New', mode: 'pipeline' })).status).toBe(201);

    const disabled = await json(runInProcess, ['users', 'disable', String(created.id)], env);
    expect(disabled.disabled_at).toEqual(expect.any(String));
    await eventuallyStatus(() => ada.get('/api/user/me'), 401);
    await json(runInProcess, ['users', 'enable', 'ada@example.test'], env);
    expect((await ada.get('/api/user/me')).status).toBe(200);

    const removed = await json(runInProcess, ['numbers', 'remove', String(number.id)], env);
    expect(removed).toMatchObject({ id: number.id, detached_assistants: 0 });
    expect((await ada.get('/api/user/phone-numbers/all')).body.data).toEqual([]);
  }, 120_000);

  it('refuses to rotate when ADMIN_TOKEN is set, naming where the token lives', async () => {
    const res = await runInProcess(['admin-token', 'rotate'], { ...env, ADMIN_TOKEN: 'an-admin-token-from-the-env' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('ADMIN_TOKEN is set');
  }, 30_000);

  it('answers bad input with a message and exit code, never a stack trace', async () => {
    const cases: [string[], RegExp][] = [
      [['numbers', 'add', '1', '12'], /Invalid phone number/],
      [['numbers', 'add', '1', '+14155550199', '--carrier-sid', 'PN' + 'a'.repeat(32)], /--carrier-sid is only for --carrier twilio/],
      [['numbers', 'add', '1', '+14155550199', '--carrier', 'twilio', '--carrier-sid', 'PN123'], /PN and 32 hex digits, not PN123/],
      [['users', 'disable', 'nobody@example.test'], /User not found: nobody@example.test/],
      [['tokens', 'revoke', '0'], /expected a whole number/],
      [['tokens', 'revoke', '99999'], /No active token 99999/],
      [['voices', 'add', '--name', 'V', '--mode', 'karaoke'], /Allowed choices are pipeline, multimodal/],
      [['users', 'create', '--name', 'X', '--email', 'not-an-email'], /Not an email address/],
    ];
    for (const [args, message] of cases) {
      const res = await runInProcess(args, env);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(message);
      expect(res.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('lists what it made, as tables for people', async () => {
    const users = await runInProcess(['users', 'list'], env);
    expect(users.code).toBe(0);
    expect(users.stdout.split('\n')[0]).toMatch(/^id\s+name\s+email/);
    expect(users.stdout).toContain('ada@example.test');
    const added = await json(runInProcess, ['voices', 'add', '--name', 'Eleven', '--mode', 'pipeline', '--provider', 'elevenlabs', '--provider-voice-id', 'abc123', '--user', 'ada@example.test'], env);
    expect(added).toMatchObject({ name: 'Eleven', provider: 'elevenlabs', provider_voice_id: 'abc123', user_id: expect.any(Number) });
    const voices = await json(runInProcess, ['voices', 'list'], env);
    expect(voices.find((v: { name: string }) => v.name === 'Anna')).toMatchObject({ provider: 'local' });
    expect(voices.map((v: { name: string }) => v.name)).toContain('New');
    expect(voices.map((v: { name: string }) => v.name)).not.toContain('Old');
  }, 30_000);
});
