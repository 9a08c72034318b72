import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { calls, webhookDeliveries } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall } from './support.js';
import { writeWav } from '../../../src/audio/wav.js';
import { FileRecordingStore, type RecordingStore } from '../../../src/recordings/store.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

const NOT_FOUND = { status: 404, body: { message: 'Call not found' } };

describe('GET /api/user/calls/{id}', () => {
  it('answers the full call record (spec 2.5)', async () => {
    const assistant = await insertAssistant(t, alice.id, { name: 'Sales' });
    const campaign = await insertCampaign(t, alice.id, assistant.id, { name: 'Spring push' });
    const row = await insertCall(t, alice.id, {
      assistantId: assistant.id,
      assistantName: 'Sales',
      campaignId: campaign.id,
      campaignName: 'Spring push',
      type: 'outbound',
      status: 'completed',
      duration: 73,
      assistantPhoneNumber: '+4930123456',
      clientPhoneNumber: '+4915123456789',
      transcript: 'AI: Hello\nCustomer: Hi',
      variables: { customer_name: 'Ada', nested: { a: [1, 2] } },
      evaluation: { status: true, summary: 'Booked', budget: 1200 },
      webhookResponse: { ok: true },
      carrierCost: '0.01703333',
      totalCost: '0.07786667',
      answeredBy: 'human',
      recordingUrl: 'http://localhost:8080/recordings/1.wav',
      createdAt: '2026-03-10 08:05:09.123456+00',
      updatedAt: '2026-03-10 08:06:22.5+00',
    });
    const res = await alice.get(`/api/user/calls/${row.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: row.id,
      assistant_name: 'Sales',
      campaign_name: 'Spring push',
      type: 'outbound',
      duration: 73,
      assistant_phone_number: '+4930123456',
      client_phone_number: '+4915123456789',
      status: 'completed',
      transcript: 'AI: Hello\nCustomer: Hi',
      variables: { customer_name: 'Ada', nested: { a: [1, 2] } },
      evaluation: { status: true, summary: 'Booked', budget: 1200 },
      webhook_response: { ok: true },
      carrier_cost: 0.01703333,
      total_cost: 0.07786667,
      answered_by: 'human',
      recording_url: 'http://localhost:8080/recordings/1.wav',
      created_at: '2026-03-10 08:05:09',
      updated_at: '2026-03-10 08:06:22',
    });
    // The list shows the same record.
    const list = await alice.get('/api/user/calls');
    expect(list.body.data.find((c: any) => c.id === row.id)).toEqual(res.body);
  });

  it('shows a fresh call with its defaults: no campaign (null), empty objects, zero costs as numbers', async () => {
    const row = await insertCall(t, alice.id, { status: 'initiated', type: 'web' });
    const res = await alice.get(`/api/user/calls/${row.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      campaign_name: null,
      duration: 0,
      transcript: '',
      variables: {},
      evaluation: {},
      webhook_response: {},
      carrier_cost: 0,
      total_cost: 0,
      answered_by: 'unknown',
      recording_url: null,
      type: 'web',
      status: 'initiated',
    });
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("keeps the assistant's name after the assistant is gone", async () => {
    const assistant = await insertAssistant(t, alice.id, { name: 'Old one' });
    const row = await insertCall(t, alice.id, { assistantId: assistant.id, assistantName: 'Old one' });
    await t.service.ctx.database.pool.query('DELETE FROM assistants WHERE id = $1', [assistant.id]);
    expect((await alice.get(`/api/user/calls/${row.id}`)).body.assistant_name).toBe('Old one');
  });

  it('answers 404 Call not found for a missing id, a non-integer id, and out-of-range ids', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5', '2147483648', '99999999999', '%20']) {
      expect(await alice.get(`/api/user/calls/${id}`)).toMatchObject(NOT_FOUND);
    }
  });

  it("answers another user's call exactly like a missing one", async () => {
    const row = await insertCall(t, alice.id);
    const theirs = await bob.get(`/api/user/calls/${row.id}`);
    const missing = await bob.get('/api/user/calls/2147483647');
    expect(theirs).toMatchObject(NOT_FOUND);
    expect(theirs.body).toEqual(missing.body);
    expect(theirs.status).toBe(missing.status);
  });

  it('needs a token', async () => {
    const row = await insertCall(t, alice.id);
    expect(await t.anonymous.get(`/api/user/calls/${row.id}`)).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(await t.anonymous.delete(`/api/user/calls/${row.id}`)).toMatchObject({ status: 401 });
  });
});

describe('DELETE /api/user/calls/{id}', () => {
  const exists = async (id: number) =>
    (await t.service.ctx.database.db.select({ id: calls.id }).from(calls).where(eq(calls.id, id))).length === 1;

  const store = () => t.service.ctx.recordings;
  let kept: RecordingStore | null = null;
  afterEach(() => {
    if (kept) t.service.ctx.recordings = kept;
    kept = null;
  });

  it('deletes a finished call, its webhook log and its recording', async () => {
    const row = await insertCall(t, alice.id, { status: 'ended_by_customer', recordingUrl: 'http://x/rec.wav' });
    await store().save(row.id, writeWav(8000, new Int16Array(800)));
    // Another call's recording stays.
    const other = await insertCall(t, alice.id, { status: 'completed', recordingUrl: 'http://x/other.wav' });
    await store().save(other.id, writeWav(8000, new Int16Array(800)));
    await t.service.ctx.database.db.insert(webhookDeliveries).values({
      callId: row.id, userId: alice.id, messageId: 'msg_1', kind: 'post_call', url: 'http://example.test/hook', attempt: 1,
    });
    const res = await alice.delete(`/api/user/calls/${row.id}`);
    expect(res).toMatchObject({ status: 200, body: { message: 'Call deleted successfully' } });
    expect(res.body).toEqual({ message: 'Call deleted successfully' });
    expect(await exists(row.id)).toBe(false);
    expect(await store().open(row.id)).toBeNull();
    const stays = await store().open(other.id);
    expect(stays?.size).toBeGreaterThan(0);
    stays?.body.destroy();
    const log = await t.service.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.callId, row.id));
    expect(log).toEqual([]);
    expect(await alice.get(`/api/user/calls/${row.id}`)).toMatchObject(NOT_FOUND);
    expect(await alice.delete(`/api/user/calls/${row.id}`)).toMatchObject(NOT_FOUND);
  });

  it('still deletes the record when removing the recording fails (logged)', async () => {
    // A recordings folder that cannot be reached: the path runs through a file.
    kept = t.service.ctx.recordings;
    t.service.ctx.recordings = new FileRecordingStore('/dev/null/recordings');
    const row = await insertCall(t, alice.id, { recordingUrl: 'http://x/rec.wav' });
    expect(await alice.delete(`/api/user/calls/${row.id}`)).toMatchObject({ status: 200, body: { message: 'Call deleted successfully' } });
    expect(await exists(row.id)).toBe(false);
  });

  it('deletes every end state', async () => {
    for (const status of ['busy', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed']) {
      const row = await insertCall(t, alice.id, { status });
      expect((await alice.delete(`/api/user/calls/${row.id}`)).status).toBe(200);
      expect(await exists(row.id)).toBe(false);
    }
  });

  it('refuses a call that is still running (409) and keeps it', async () => {
    for (const status of ['initiated', 'ringing', 'in-progress']) {
      const row = await insertCall(t, alice.id, { status });
      const res = await alice.delete(`/api/user/calls/${row.id}`);
      expect(res).toEqual(expect.objectContaining({ status: 409, body: { message: 'The call is still in progress and cannot be deleted.' } }));
      expect(await exists(row.id)).toBe(true);
    }
  });

  it("answers another user's call like a missing one and leaves it alone (also while live)", async () => {
    for (const status of ['completed', 'in-progress']) {
      const row = await insertCall(t, alice.id, { status });
      expect(await bob.delete(`/api/user/calls/${row.id}`)).toMatchObject(NOT_FOUND);
      expect(await exists(row.id)).toBe(true);
    }
  });

  it('answers 404 Call not found for missing and non-integer ids', async () => {
    for (const id of ['2147483647', 'abc', '0', '2147483648', '1e3']) {
      expect(await alice.delete(`/api/user/calls/${id}`)).toMatchObject(NOT_FOUND);
    }
  });
});
