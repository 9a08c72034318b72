/**
 * The account operations the CLI and the admin API share (src/accounts), and that their
 * effects reach every process at once: a second process with long-lived caches stands in for
 * a running service while another connection (the CLI) changes the accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminAuth, rotateAdminToken } from '../../src/accounts/admin-token.js';
import { issueToken, listTokens, revokeToken } from '../../src/accounts/api-tokens.js';
import { listenForAccountChanges } from '../../src/accounts/changes.js';
import { AccountError } from '../../src/accounts/errors.js';
import { addPhoneNumber, listPhoneNumbers, removePhoneNumber } from '../../src/accounts/phone-numbers.js';
import { TokenCache } from '../../src/accounts/token-cache.js';
import { createUser, disableUser, enableUser, findUser, listUsers } from '../../src/accounts/users.js';
import { addVoice, listVoices } from '../../src/accounts/voices.js';
import { connect, type Database } from '../../src/db/pool.js';
import { createLogger } from '../../src/logger.js';
import { insertAssistant, insertCampaign } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
let cli: Database;

beforeAll(async () => {
  t = await startTestService();
  cli = connect(t.databaseUrl, { max: 2 });
});
afterAll(async () => {
  await cli.close();
  await t.close();
});

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('users', () => {
  it('are created once per email (any case), listed with their active tokens, found by id or email', async () => {
    const { user } = await createUser(cli.db, { name: 'Ann', email: 'Ann@Example.test', maxCallsInParallel: 3 });
    await expect(createUser(cli.db, { name: 'Ann 2', email: 'ann@example.TEST' })).rejects.toMatchObject({ kind: 'email-taken' });
    const listed = await listUsers(cli.db);
    expect(listed.total).toBe(listed.users.length);
    expect(listed.users.find((u) => u.id === user.id)).toMatchObject({ name: 'Ann', maxCallsInParallel: 3, disabledAt: null, activeTokens: 1 });
    expect((await findUser(cli.db, 'ann@example.test'))?.id).toBe(user.id);
    expect((await findUser(cli.db, String(user.id)))?.email).toBe('Ann@Example.test');
    expect(await findUser(cli.db, 'nobody@example.test')).toBeNull();
  });

  it('disabled: every token refused at once, also one cached by another process; campaigns stopped; enable restores the tokens', async () => {
    const { user, token } = await createUser(cli.db, { name: 'Dee', email: 'dee@example.test' });
    const assistant = await insertAssistant(t, user.id);
    const running = await insertCampaign(t, user.id, assistant.id, { status: 'in-progress' });
    const draft = await insertCampaign(t, user.id, assistant.id, { status: 'draft' });

    // A "running service": its cache would keep the user for a minute without the notification.
    const service = connect(t.databaseUrl, { max: 1 });
    const cache = new TokenCache(service.db, 60_000);
    const listener = listenForAccountChanges({ connectionString: t.databaseUrl, log: createLogger('silent'), tokens: cache, admin: new AdminAuth(service.db) });
    await listener.start();
    try {
      expect(await cache.resolve(token)).toMatchObject({ id: user.id });
      const client = t.client(token);
      expect((await client.get('/api/user/me')).status).toBe(200);

      const { user: disabled, stoppedCampaigns } = await disableUser(cli.db, user.id);
      expect(disabled.disabledAt).toEqual(expect.any(String));
      expect(stoppedCampaigns).toBe(1);
      await eventually(async () => (await cache.resolve(token)) === null);
      await eventually(async () => (await client.get('/api/user/me')).status === 401);
      const { rows } = await cli.pool.query('SELECT id, status FROM campaigns WHERE user_id = $1 ORDER BY id', [user.id]);
      expect(rows).toEqual([{ id: running.id, status: 'stopped' }, { id: draft.id, status: 'draft' }]);
      await expect(issueToken(cli.db, user.id)).rejects.toMatchObject({ kind: 'user-disabled' });
      // Disabling again keeps the first time.
      expect((await disableUser(cli.db, user.id)).user.disabledAt).toBe(disabled.disabledAt);

      await enableUser(cli.db, user.id);
      expect(await cache.resolve(token)).toMatchObject({ id: user.id });
      expect((await client.get('/api/user/me')).status).toBe(200);
    } finally {
      await listener.stop();
      await service.close();
    }
  });

  it('unknown ids are an AccountError, never a crash', async () => {
    await expect(disableUser(cli.db, 999_999)).rejects.toBeInstanceOf(AccountError);
    await expect(enableUser(cli.db, 999_999)).rejects.toMatchObject({ kind: 'user-not-found' });
    await expect(issueToken(cli.db, 999_999)).rejects.toMatchObject({ kind: 'user-not-found' });
    await expect(listTokens(cli.db, 999_999)).rejects.toMatchObject({ kind: 'user-not-found' });
  });
});

describe('tokens', () => {
  it('are issued, listed without their secret, and revoked for every process at once', async () => {
    const { user } = await createUser(cli.db, { name: 'Tom', email: 'tom@example.test' });
    const issued = await issueToken(cli.db, user.id);
    const service = connect(t.databaseUrl, { max: 1 });
    const cache = new TokenCache(service.db, 60_000);
    const listener = listenForAccountChanges({ connectionString: t.databaseUrl, log: createLogger('silent'), tokens: cache, admin: new AdminAuth(service.db) });
    await listener.start();
    try {
      expect(await cache.resolve(issued.token)).toMatchObject({ id: user.id });
      const tokens = await listTokens(cli.db, user.id);
      expect(tokens.map((x) => x.id)).toContain(issued.id);
      expect(JSON.stringify(tokens)).not.toContain(issued.token);

      expect(await revokeToken(cli.db, issued.id)).toMatch(/^[0-9a-f]{64}$/);
      expect(await revokeToken(cli.db, issued.id)).toBeNull();
      await eventually(async () => (await cache.resolve(issued.token)) === null);
      expect((await listTokens(cli.db, user.id)).find((x) => x.id === issued.id)?.revokedAt).toEqual(expect.any(String));
    } finally {
      await listener.stop();
      await service.close();
    }
  });

  it("are revoked only as the given user's when a user is named", async () => {
    const a = await createUser(cli.db, { name: 'A', email: 'tok-a@example.test' });
    const b = await createUser(cli.db, { name: 'B', email: 'tok-b@example.test' });
    const issued = await issueToken(cli.db, a.user.id);
    expect(await revokeToken(cli.db, issued.id, b.user.id)).toBeNull();
    expect(await revokeToken(cli.db, issued.id, a.user.id)).not.toBeNull();
  });
});

describe('the admin token', () => {
  it('rotates: the new one works and the old one stops at once on a process that reads the stored token', async () => {
    const service = connect(t.databaseUrl, { max: 1 });
    const auth = new AdminAuth(service.db, undefined, 60_000);
    const listener = listenForAccountChanges({ connectionString: t.databaseUrl, log: createLogger('silent'), tokens: new TokenCache(service.db), admin: auth });
    await listener.start();
    try {
      const first = await rotateAdminToken(cli.db);
      await eventually(() => auth.verify(first));
      const second = await rotateAdminToken(cli.db);
      expect(second).toMatch(/^sb_admin_/);
      await eventually(async () => !(await auth.verify(first)));
      expect(await auth.verify(second)).toBe(true);
      // ADMIN_TOKEN, when set, is the only admin token.
      const fromEnv = new AdminAuth(service.db, 'env-admin-token-0123456789');
      expect(await fromEnv.verify(second)).toBe(false);
      expect(await fromEnv.configured()).toBe(true);
    } finally {
      await listener.stop();
      await service.close();
    }
  });
});

describe('phone numbers', () => {
  it('are added in E.164, listed per user, and removed without touching calls; holders lose the number', async () => {
    const { user } = await createUser(cli.db, { name: 'Nia', email: 'nia@example.test' });
    const other = await createUser(cli.db, { name: 'Oz', email: 'oz@example.test' });
    await expect(addPhoneNumber(cli.db, { userId: user.id, phoneNumber: '12', typeLabel: 'Normal' }, 'DE')).rejects.toMatchObject({ kind: 'invalid-phone' });
    const number = await addPhoneNumber(cli.db, { userId: user.id, phoneNumber: '030 1234 5678', typeLabel: 'Normal' }, 'DE');
    expect(number).toMatchObject({ phoneNumber: '+493012345678', countryCode: 'DE', assigned: false });
    await addPhoneNumber(cli.db, { userId: other.user.id, phoneNumber: '+4930999999', typeLabel: 'SIP' }, 'DE');
    expect((await listPhoneNumbers(cli.db, { userId: user.id })).map((n) => n.id)).toEqual([number.id]);

    const assistant = await insertAssistant(t, user.id, { phoneNumberId: number.id });
    expect((await listPhoneNumbers(cli.db, { userId: user.id }))[0].assigned).toBe(true);
    await cli.pool.query(
      `INSERT INTO calls (user_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number)
       VALUES ($1, $2, 'A', 'outbound', 'completed', $3, '+4915100000000')`,
      [user.id, assistant.id, number.phoneNumber],
    );

    await expect(removePhoneNumber(cli.db, number.id, { userId: other.user.id })).rejects.toMatchObject({ kind: 'number-not-found' });
    const removed = await removePhoneNumber(cli.db, number.id);
    expect(removed.detachedAssistants).toBe(1);
    const calls = await cli.pool.query('SELECT assistant_phone_number FROM calls WHERE user_id = $1', [user.id]);
    expect(calls.rows).toEqual([{ assistant_phone_number: '+493012345678' }]);
    const held = await cli.pool.query('SELECT phone_number_id FROM assistants WHERE id = $1', [assistant.id]);
    expect(held.rows[0].phone_number_id).toBeNull();
    await expect(removePhoneNumber(cli.db, number.id)).rejects.toMatchObject({ kind: 'number-not-found' });
  });
});

describe('voices', () => {
  it('are public or private to one user; a user sees public ones and their own', async () => {
    const { user } = await createUser(cli.db, { name: 'Vi', email: 'vi@example.test' });
    const other = await createUser(cli.db, { name: 'Wu', email: 'wu@example.test' });
    const shared = await addVoice(cli.db, { name: 'Shared', mode: 'pipeline' });
    const own = await addVoice(cli.db, { name: 'Own', mode: 'multimodal', userId: user.id });
    const foreign = await addVoice(cli.db, { name: 'Foreign', mode: 'pipeline', userId: other.user.id });
    const mine = (await listVoices(cli.db, { userId: user.id })).map((v) => v.id);
    expect(mine).toContain(shared.id);
    expect(mine).toContain(own.id);
    expect(mine).not.toContain(foreign.id);
    expect((await listVoices(cli.db)).map((v) => v.id)).toContain(foreign.id);
    await expect(addVoice(cli.db, { name: 'X', mode: 'pipeline', userId: 999_999 })).rejects.toMatchObject({ kind: 'user-not-found' });
  });
});
