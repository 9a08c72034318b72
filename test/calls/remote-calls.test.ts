/**
 * Calls on a carrier whose network calls back (src/calls/remote-calls.ts and the engine's side
 * of them), through the whole service and the Twilio double:
 * - the database lets a call down at the worst moment: after Twilio accepted it, when its call
 *   id is written onto the record. The failures are real ones of PostgreSQL, provoked by a
 *   trigger on that one write: the connection doing it is terminated (as a server restart or
 *   failover does), or the statement fails outright;
 * - a call whose assistant was deleted while it rang, reached by its media stream;
 * - a call of an account whose own provider keys cannot be read;
 * - how often one call reads its row (statements observed on the pool, none replaced).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_KEYS_NOTE } from '../../src/calls/engine.js';
import { callEnginePart } from '../../src/calls/index.js';
import { providerCredentials } from '../../src/db/schema.js';
import { twilioSignature } from '../../src/telephony/twilio/signature.js';
import type { DoubleCall, TwilioDouble } from '../support/doubles/twilio.js';
import { insertAssistant } from '../support/fixtures.js';
import { waitUntil } from '../support/receiver.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { addTwilioNumber, PUBLIC, startRoutedTwilioDouble, twilioEnv } from '../support/twilio-service.js';

let double: TwilioDouble;
let t: TestService;
let alice: TestUser;
let assistantId: number;

/** Customers whose call-id write fails: once by a lost connection, or every time by a failing statement. */
const CONNECTION_LOST_ONCE = '+14155550201';
const WRITE_ALWAYS_FAILS = '+14155550202';

beforeAll(async () => {
  let local = '';
  double = await startRoutedTwilioDouble(() => local);
  t = await startTestService({ listen: true, parts: [callEnginePart], env: twilioEnv(double) });
  local = t.service.url!;
  alice = await t.createUser({ name: 'Alice' });
  const number = await addTwilioNumber(t, alice.id, '+14155550100', 'c');
  assistantId = (await insertAssistant(t, alice.id, { phoneNumberId: number.id, maxDuration: 30, initialMessage: 'Hello, this is Switchboard.' })).id;
  // Only the statement that stores the carrier's call id (UPDATE OF carrier_call_sid) meets it.
  // A sequence counts the attempts: it is not rolled back with the failed statement.
  await t.service.ctx.database.pool.query(`
    CREATE SEQUENCE test_lost_sid_writes;
    CREATE FUNCTION test_fail_sid_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.client_phone_number = '${CONNECTION_LOST_ONCE}' AND nextval('test_lost_sid_writes') = 1 THEN
        -- This backend ends its own connection (57P01, as at a server shutdown); the sleep
        -- lets the termination interrupt the statement before it could commit.
        PERFORM pg_terminate_backend(pg_backend_pid());
        PERFORM pg_sleep(5);
      END IF;
      IF NEW.client_phone_number = '${WRITE_ALWAYS_FAILS}' THEN
        RAISE EXCEPTION 'calls.carrier_call_sid cannot be written';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_fail_sid_write BEFORE UPDATE OF carrier_call_sid ON calls
      FOR EACH ROW EXECUTE FUNCTION test_fail_sid_write();`);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function callRow(id: number): Promise<Record<string, any>> {
  const { rows } = await t.service.ctx.database.pool.query('SELECT * FROM calls WHERE id = $1', [id]);
  return rows[0];
}

async function endedRow(id: number): Promise<Record<string, any>> {
  let row: Record<string, any> = {};
  await waitUntil(async () => !['initiated', 'ringing', 'in-progress'].includes((row = await callRow(id)).status), 15_000, `call ${id} to end`);
  return row;
}

async function makeCall(to: string): Promise<{ callId: number; call: DoubleCall }> {
  const res = await alice.post('/api/user/make_call', { phone_number: to, assistant_id: assistantId });
  expect(res.status).toBe(200);
  return { callId: Number(res.body.call_id), call: await double.callTo(to) };
}

describe("storing the carrier's call id after the carrier took the call", () => {
  it('is tried again when the connection was lost: the call goes on and the customer is answered', async () => {
    double.script(CONNECTION_LOST_ONCE, { ringMs: 500, steps: [{ pause: 1000 }, { hangUp: true }] });
    const { callId, call } = await makeCall(CONNECTION_LOST_ONCE);
    const lost = await t.service.ctx.database.pool.query(`SELECT last_value FROM test_lost_sid_writes`);
    expect(Number(lost.rows[0].last_value)).toBeGreaterThanOrEqual(2); // it did fail once, and was written the next time
    await call.done;
    const row = await endedRow(callId);
    expect(row).toMatchObject({ status: 'ended_by_customer', carrier_call_sid: call.sid });
    expect(call.endedBy).toBe('person');
    expect(call.callbacks.filter((c) => c.kind === 'status').every((c) => c.status === 204)).toBe(true);
  }, 30_000);

  it('hangs the call up at the carrier when the id cannot be stored, and ends the record as failed saying why', async () => {
    double.script(WRITE_ALWAYS_FAILS, { ringMs: 2000, steps: [{ pause: 1000 }, { hangUp: true }] });
    const { callId, call } = await makeCall(WRITE_ALWAYS_FAILS);
    await call.done;
    // Hung up over REST before anyone answered: nobody picks up to a refused stream.
    expect(call).toMatchObject({ status: 'canceled', endedBy: 'rest', answeredAt: null });
    const row = await endedRow(callId);
    expect(row.status).toBe('failed');
    expect(row.carrier_call_sid).toBeNull();
    expect(row.evaluation).toEqual({ failed: "the carrier's call id could not be stored; the call was hung up at the carrier" });
  }, 30_000);
});

describe('a call whose assistant is gone when its media stream arrives', () => {
  it('is ended as failed and its caller hung up, not left on a silent stream', async () => {
    const number = await t.service.ctx.database.pool.query(`SELECT id FROM phone_numbers WHERE phone_number = '+14155550100'`);
    const doomed = await insertAssistant(t, alice.id, { phoneNumberId: number.rows[0].id, maxDuration: 30 });
    double.script('+14155550203', { ringMs: 1000, steps: [{ pause: 20_000 }] });
    const res = await alice.post('/api/user/make_call', { phone_number: '+14155550203', assistant_id: doomed.id });
    expect(res.status).toBe(200);
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550203');
    await waitUntil(async () => (await callRow(callId)).status === 'ringing', 5_000, 'ringing');
    // Deleted for good while it rings (the call keeps its record, without the assistant).
    await t.service.ctx.database.pool.query('DELETE FROM assistants WHERE id = $1', [doomed.id]);
    await call.done;
    expect(call.answeredAt).not.toBeNull(); // the stream came, and was taken
    expect(['service', 'rest']).toContain(call.endedBy);
    const row = await endedRow(callId);
    expect(row).toMatchObject({ status: 'failed', assistant_id: null });
  }, 30_000);
});

describe("a call of an account whose own provider keys cannot be read", () => {
  it("is ended as failed with a note saying why, and the caller hung up: not run on the deployment's keys", async () => {
    const bob = await t.createUser({ name: 'Bob' });
    const number = await addTwilioNumber(t, bob.id, '+14155550110', 'd');
    const assistant = await insertAssistant(t, bob.id, { phoneNumberId: number.id, maxDuration: 30 });
    // Sealed under another SECRET_KEY (the deployment's was changed since).
    await t.service.ctx.database.db.insert(providerCredentials).values({ userId: bob.id, provider: 'deepgram', sealedKey: 'v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', keyHint: '••••AAAA' });
    double.script('+14155550204', { ringMs: 300, steps: [{ pause: 20_000 }] });
    const res = await bob.post('/api/user/make_call', { phone_number: '+14155550204', assistant_id: assistant.id });
    expect(res.status).toBe(200);
    const call = await double.callTo('+14155550204');
    await call.done;
    expect(call.answeredAt).not.toBeNull();
    expect(['service', 'rest']).toContain(call.endedBy);
    expect(call.person!.heard).toEqual([]); // not a word on the deployment's voice
    const row = await endedRow(Number(res.body.call_id));
    expect(row).toMatchObject({ status: 'failed', transcript: ACCOUNT_KEYS_NOTE });
  }, 30_000);
});

/**
 * The statements of our pool that read call `callId`'s row while `during` runs (observed on the
 * pool, not replaced: every statement still runs). Background loops read other rows, or many.
 */
async function readsOfCall(callId: () => number, during: () => Promise<void>): Promise<string[]> {
  const pool = t.service.ctx.database.pool;
  const query = pool.query;
  const reads: { text: string; id: number }[] = [];
  pool.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text: string; values?: unknown[] };
    const text = typeof first === 'string' ? first : first.text;
    const values = (typeof first === 'string' ? args[1] : first.values) as unknown[] | undefined;
    if (/^\s*SELECT\b[\s\S]*\bFROM calls\b/i.test(text)) reads.push({ text, id: Number(values?.[0]) });
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  try {
    await during();
  } finally {
    pool.query = query;
  }
  // Filtered once `during` is over: the call's id may be known only then (make_call answers after placing).
  return reads.filter((r) => r.id === callId()).map((r) => r.text);
}

describe('what one call costs the database', () => {
  it("a status callback reads the call's row once, and ends a call whose stream never came", async () => {
    double.script('+14155550205', { ringMs: 60_000 });
    const { callId, call } = await makeCall('+14155550205');
    await waitUntil(async () => (await callRow(callId)).status === 'ringing', 5_000, 'ringing');
    // Twilio's `completed` for a call whose stream never came (answered, then the caller was gone).
    const url = `${PUBLIC}/carriers/twilio/status?call=${callId}`;
    const params = { AccountSid: double.accountSid, CallSid: call.sid, CallStatus: 'completed' };
    const reads = await readsOfCall(() => callId, async () => {
      const res = await fetch(`${t.service.url}/carriers/twilio/status?call=${callId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(double.authToken, url, params) },
        body: new URLSearchParams(params).toString(),
      });
      expect(res.status).toBe(204);
    });
    expect(reads).toHaveLength(1);
    expect((await callRow(callId)).status).toBe('ended');
    await fetch(`${double.url}/2010-04-01/Accounts/${double.accountSid}/Calls/${call.sid}.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${double.accountSid}:${double.authToken}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Status=canceled',
    });
  }, 30_000);

  it("a whole call reads its row once per callback: its price and recording are asked for with the call id it has", async () => {
    const number = await t.service.ctx.database.pool.query(`SELECT id FROM phone_numbers WHERE phone_number = '+14155550100'`);
    const recorded = await insertAssistant(t, alice.id, { phoneNumberId: number.rows[0].id, maxDuration: 30, record: true });
    double.script('+14155550206', { ringMs: 200, steps: [{ pause: 800 }, { hangUp: true }] });
    let callId = 0;
    let call: DoubleCall | undefined;
    const reads = await readsOfCall(() => callId, async () => {
      const res = await alice.post('/api/user/make_call', { phone_number: '+14155550206', assistant_id: recorded.id });
      callId = Number(res.body.call_id);
      call = await double.callTo('+14155550206');
      await call.done;
      await t.service.ctx.services.callEngine!.drain(); // the final record, after the price and the recording
    });
    // Each callback reads the row once, to verify it with the call's account; nothing else does.
    expect(call!.callbacks.map((c) => [c.kind, c.status])).toEqual([
      ['status', 204],
      ['status', 204],
      ['status', 204],
      ['status', 204],
    ]);
    expect(reads).toHaveLength(call!.callbacks.length);
    const row = await callRow(callId);
    expect(Number(row.carrier_cost)).toBeCloseTo(0.014, 6);
    expect(row.recording_url).toMatch(/recordings/);
  }, 30_000);
});
