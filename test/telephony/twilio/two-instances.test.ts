/**
 * Two instances on one PostgreSQL behind Twilio (issue 16 "Must show"): instance A (this
 * process) takes the API and Twilio's callbacks, instance B (a child process) receives the
 * media sockets. A call placed by A runs on B and completes; a campaign runs across both,
 * B is SIGKILLed mid-call, its calls end with a reason (recovery: `ended`), no lead is dialled
 * twice and the campaign finishes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../../src/compose.js';
import { freePort } from '../../../src/db/embedded.js';
import { leads } from '../../../src/db/schema.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService, type TestUser } from '../../support/service.js';
import { leadsWithOverlappingCalls, readCampaign, waitFor } from '../../dialer/checks.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const PUBLIC = 'https://sb.example';
const SECRET_KEY = 'k'.repeat(40);

let url: string;
let double: TwilioDouble;
let a: TestService;
let b: { child: ChildProcess; instanceId: string; url: string } | null = null;
let user: TestUser;
let assistantId: number;
/** Where media sockets go: B while it lives. */
let mediaTarget = '';

function startInstanceB(): Promise<{ child: ChildProcess; instanceId: string; url: string }> {
  return freePort().then(
    (port) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'instance-child.ts')], {
          cwd: root,
          env: {
            ...process.env,
            INSTANCE_DATABASE_URL: url,
            INSTANCE_PORT: String(port),
            PUBLIC_BASE_URL: PUBLIC,
            TWILIO_ACCOUNT_SID: double.accountSid,
            TWILIO_AUTH_TOKEN: double.authToken,
            TWILIO_API_URL: double.url,
            SECRET_KEY,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout!.on('data', (c) => {
          out += c;
          const m = /READY (\S+) (\S+)/.exec(out);
          if (m) resolve({ child, instanceId: m[1], url: m[2] });
        });
        child.stderr!.on('data', (c) => (out += c));
        child.stdout!.on('data', (c) => process.env.CHILD_LOG_LEVEL && process.stderr.write(c));
        child.once('exit', (code) => reject(new Error(`instance B exited (${code}) before it was ready:\n${out}`)));
      }),
  );
}

beforeAll(async () => {
  url = await createTestDatabase();
  double = await TwilioDouble.start({
    route: (u, kind) => {
      const base = kind === 'media' ? mediaTarget : a.service.url!;
      return u.replace(PUBLIC.replace('https', 'wss'), base.replace('http', 'ws')).replace(PUBLIC, base);
    },
  });
  const env = {
    PUBLIC_BASE_URL: PUBLIC,
    TWILIO_ACCOUNT_SID: double.accountSid,
    TWILIO_AUTH_TOKEN: double.authToken,
    TWILIO_API_URL: double.url,
    SECRET_KEY,
  };
  a = await startTestService({ databaseUrl: url, listen: true, parts: fullProcess, env });
  b = await startInstanceB();
  mediaTarget = b.url;
  user = await a.createUser({ name: 'Two instances', max_calls_in_parallel: 10 });
  const number = await a.admin.post(`/api/admin/users/${user.id}/phone-numbers`, { phone_number: '+14155550400', type_label: 'Normal', carrier: 'twilio' });
  assistantId = (await insertAssistant(a, user.id, { phoneNumberId: number.body.data.id, maxDuration: 60 })).id;
}, 90_000);

afterAll(async () => {
  if (b && b.child.exitCode === null && b.child.signalCode === null) b.child.kill('SIGKILL');
  await a?.close();
  await double?.close();
  await dropTestDatabase(url);
});

async function callRows(where: string, params: unknown[]) {
  return (await a.service.ctx.database.pool.query(`SELECT * FROM calls WHERE ${where} ORDER BY id`, params)).rows;
}

describe('Twilio on two instances', () => {
  it('runs a call on the instance its media socket reached, not the one that placed it, to completion', async () => {
    double.script('+14155550411', { ringMs: 200, steps: [{ pause: 1500 }, { hangUp: true }] });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550411', assistant_id: assistantId });
    expect(res.status).toBe(200);
    const call = await double.callTo('+14155550411');
    await call.done;
    const [row] = await waitFor('the call to end', async () => {
      const rows = await callRows('id = $1', [res.body.call_id]);
      return rows[0] && !['initiated', 'ringing', 'in-progress'].includes(rows[0].status) ? rows : null;
    }, 20_000, 100);
    expect(row.status).toBe('ended_by_customer');
    expect(row.owner_instance).toBe(b!.instanceId);
    expect(row.owner_instance).not.toBe(a.service.ctx.instanceId);
    // The placing instance made the REST request; every status callback reached A and verified.
    expect(call.callbacks.every((c) => c.status === 204 && c.target.startsWith(a.service.url!))).toBe(true);
  }, 30_000);

  it('ends the calls of a SIGKILLed instance with a reason; no lead is dialled twice; the campaign finishes', async () => {
    const campaign = await insertCampaign(a, user.id, assistantId, { maxCallsInParallel: 3, maxRetries: 1, retryInterval: 0 });
    const numbers = Array.from({ length: 6 }, (_, i) => `+1415555050${i}`);
    for (const n of numbers) double.script(n, { ringMs: 100, steps: [{ pause: 4000 }, { hangUp: true }] });
    await a.service.ctx.database.db.insert(leads).values(numbers.map((phoneNumber) => ({ userId: user.id, campaignId: campaign.id, phoneNumber })));
    expect((await user.post('/api/user/campaigns/update-status', { campaign_id: campaign.id, action: 'start' })).status).toBe(200);

    // Kill B while it runs calls.
    const onB = await waitFor(
      'calls running on instance B',
      async () => {
        const rows = await callRows(`campaign_id = $1 AND status = 'in-progress' AND owner_instance = $2`, [campaign.id, b!.instanceId]);
        return rows.length > 0 ? rows : null;
      },
      30_000,
      20,
    );
    mediaTarget = a.service.url!;
    b!.child.kill('SIGKILL');
    await new Promise((r) => b!.child.once('exit', r));

    await waitFor(
      'the campaign to complete',
      async () => (await a.service.ctx.database.pool.query('SELECT status FROM campaigns WHERE id = $1', [campaign.id])).rows[0].status === 'completed',
      90_000,
      250,
    );
    // B's calls were ended by the surviving instance's recovery: status `ended`, never left live.
    for (const killed of onB) {
      const [row] = await callRows('id = $1', [killed.id]);
      expect(row.status).toBe('ended');
      expect(row.ended_at).not.toBeNull();
    }
    const report = await readCampaign(url, campaign.id);
    expect(report.leads.filter((l) => l.status === 'created')).toEqual([]);
    expect(report.calls.every((c) => c.end !== null)).toBe(true);
    expect(leadsWithOverlappingCalls(report.calls)).toEqual([]);
    // Each lead's number was dialled once at Twilio (max_retries 1: one attempt each).
    for (const n of numbers) expect([...double.calls.values()].filter((c) => c.to === n), n).toHaveLength(1);
    expect(report.calls).toHaveLength(numbers.length);
  }, 150_000);
});
