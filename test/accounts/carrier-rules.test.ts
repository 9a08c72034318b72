/**
 * Issue 27 item 8: a voice names a provider Switchboard has, a Twilio number belongs to an
 * account whose calls have usable credentials, and `doctor` checks both — the admin API (422)
 * and the CLI (a message, exit 1) apply the same rules. Twilio is the local double speaking
 * its REST API, so `doctor` really asks it whether it accepts the credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioCredentialsProblem } from '../../src/accounts/carrier-accounts.js';
import { runChecks } from '../../src/cli/doctor.js';
import { twilioCheck, voicesCheck } from '../../src/cli/doctor-carriers.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { runInProcess } from '../cli/support.js';
import { TwilioDouble } from '../support/doubles/twilio.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

const SECRET_KEY = 's'.repeat(40);
let t: TestService;
let twilio: TwilioDouble;
let alice: TestUser;
let bob: TestUser;
/** What the CLI needs to work on the test service's database. */
let cliEnv: Record<string, string>;

beforeAll(async () => {
  twilio = await TwilioDouble.start();
  // No deployment credentials: a Twilio number needs its account's own.
  t = await startTestService({ env: { SECRET_KEY, TWILIO_API_URL: twilio.url } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  cliEnv = { DATABASE_URL: t.databaseUrl, SECRET_KEY, TWILIO_API_URL: twilio.url };
}, 60_000);
afterAll(async () => {
  await t?.close();
  await twilio?.close();
});

const addNumber = (userId: number, phone: string, carrier = 'twilio') =>
  t.admin.post(`/api/admin/users/${userId}/phone-numbers`, { phone_number: phone, type_label: 'Normal', carrier });

describe('a Twilio number needs credentials its calls can use', () => {
  it('admin API: refused (422 on carrier) without any, accepted with the account\'s own; another account\'s do not count', async () => {
    const refused = await addNumber(alice.id, '+14155550301');
    expect(refused.status).toBe(422);
    expect(refused.body.errors.carrier[0]).toMatch(/^User \d+ has no Twilio credentials, so calls on this number could not be placed or verified: store the account's \(PUT \/api\/admin\/users\/\d+\/carriers\/twilio\) or set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN\.$/);
    // A sandbox number needs none.
    expect((await addNumber(alice.id, '+14155550302', 'sandbox')).status).toBe(201);

    const put = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: twilio.accountSid, auth_token: twilio.authToken });
    expect(put.status).toBe(200);
    const accepted = await addNumber(alice.id, '+14155550301');
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toMatchObject({ carrier: 'twilio', phone_number: '+14155550301' });
    // Second user: Alice's credentials are not Bob's.
    expect((await addNumber(bob.id, '+14155550303')).status).toBe(422);
    expect((await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data).toEqual([]);
  });

  it('counts the deployment\'s credentials, and not stored ones that no longer open', async () => {
    const db = t.service.ctx.database.db;
    expect(await twilioCredentialsProblem(db, { key: null, deployment: true }, bob.id)).toBeNull();
    expect(await twilioCredentialsProblem(db, { key: null, deployment: false }, bob.id)).toMatch(/has no Twilio credentials/);
    // Alice's are sealed with SECRET_KEY: another key cannot open them, and the deployment's would not be used instead.
    expect(await twilioCredentialsProblem(db, { key: Buffer.alloc(32, 7), deployment: true }, alice.id)).toMatch(/cannot be opened \(SECRET_KEY missing or changed\)/);
  });

  it('CLI: refused with the same message, accepted with the deployment\'s credentials', async () => {
    const refused = await runInProcess(['numbers', 'add', String(bob.id), '+14155550304', '--carrier', 'twilio'], cliEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/has no Twilio credentials.*TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const accepted = await runInProcess(['--json', 'numbers', 'add', String(bob.id), '+14155550304', '--carrier', 'twilio'], {
      ...cliEnv,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
    });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ user_id: bob.id, carrier: 'twilio' });
  });
});

describe('a voice names a provider Switchboard has', () => {
  it('CLI: refuses nope (and a near miss), accepts each known provider', async () => {
    for (const provider of ['nope', 'OpenAI', 'eleven-labs']) {
      const res = await runInProcess(['voices', 'add', '--name', 'V', '--mode', 'pipeline', '--provider', provider], cliEnv);
      expect(res.code, provider).toBe(1);
      expect(res.stderr).toContain(`--provider: Unknown voice provider "${provider}": use one of local, elevenlabs, openai.`);
    }
    for (const provider of ['local', 'elevenlabs', 'openai']) {
      const res = await runInProcess(['--json', 'voices', 'add', '--name', `V-${provider}`, '--mode', 'pipeline', '--provider', provider], cliEnv);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ provider });
    }
    const { rows } = await t.service.ctx.database.pool.query("SELECT count(*)::int AS n FROM voices WHERE name = 'V'");
    expect(rows[0].n).toBe(0);
  });
});

describe('doctor checks what it claims to', () => {
  const log = createLogger('silent');
  const check = async (which: typeof twilioCheck, env: Record<string, string> = {}) => {
    const [result] = await runChecks(loadConfig({ ...cliEnv, PUBLIC_BASE_URL: 'http://127.0.0.1:1', ...env }), log, [which], 3_000);
    return result.result;
  };

  it('passes Twilio when every account with a number has credentials Twilio accepts', async () => {
    // Bob's number was added with the deployment's credentials: doctor is run with them.
    const deployment = { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: twilio.authToken };
    const ok = await check(twilioCheck, deployment);
    expect(ok).toMatchObject({ status: 'ok', detail: expect.stringContaining('Twilio accepts the credentials of the deployment, user') });
    const asked = twilio.requests.filter((r) => r.method === 'GET' && r.path === `/2010-04-01/Accounts/${twilio.accountSid}.json`);
    expect(asked.length).toBeGreaterThanOrEqual(2);
  });

  it('fails Twilio for a number without credentials, and for credentials Twilio refuses', async () => {
    // Without the deployment's credentials Bob's number has none.
    const missing = await check(twilioCheck);
    expect(missing).toMatchObject({ status: 'fail', detail: expect.stringContaining(`User ${bob.id} has no Twilio credentials`) });
    const wrongToken = await check(twilioCheck, { TWILIO_ACCOUNT_SID: twilio.accountSid, TWILIO_AUTH_TOKEN: 'not-the-token' });
    expect(wrongToken).toMatchObject({ status: 'fail', detail: expect.stringContaining(`the deployment: Twilio refused the credentials of ${twilio.accountSid} (401)`) });
  });

  it('fails voices whose provider is unknown (rows written before the rule), passes known ones', async () => {
    expect((await check(voicesCheck)).status).toBe('ok');
    const { rows } = await t.service.ctx.database.pool.query("INSERT INTO voices (name, mode, provider) VALUES ('Legacy', 'pipeline', 'nope') RETURNING id");
    try {
      expect(await check(voicesCheck)).toMatchObject({ status: 'fail', detail: expect.stringContaining(`${rows[0].id} "Legacy" (nope)`) });
    } finally {
      await t.service.ctx.database.pool.query('DELETE FROM voices WHERE id = $1', [rows[0].id]);
    }
  });
});
