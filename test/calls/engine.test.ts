/** The CallService interface as the dialer uses it: createCallRecords in its transaction, then startCall. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/pool.js';
import { callEnginePart } from '../../src/calls/index.js';
import { AssistantMissingError } from '../../src/calls/engine.js';
import { END_CALL_TOOL } from '../../src/calls/session.js';
import { OfflineStandInLlm, STAND_IN_NOTE } from '../../src/providers/llm/index.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { CarrierRegistry } from '../../src/telephony/registry.js';
import { SandboxCarrier } from '../../src/telephony/sandbox/carrier.js';
import { insertAssistant, insertCampaign, insertLead } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
});
afterAll(() => t.close());

describe('createCallRecords + startCall', () => {
  it('inserts an initiated call with the campaign and lead inside the caller’s transaction, then runs it', async () => {
    const user = await t.createUser();
    const number = await t.addPhoneNumber(user.id, '+493055501234');
    const assistant = await insertAssistant(t, user.id, { name: 'Dialer assistant', phoneNumberId: number.id });
    const campaign = await insertCampaign(t, user.id, assistant.id, { name: 'Spring' });
    const lead = await insertLead(t, user.id, campaign.id, { phoneNumber: '+4915123456700' });
    const engine = t.service.ctx.services.calls!;
    const { db, pool } = t.service.ctx.database;
    const [callId] = await db.transaction((tx) =>
      engine.createCallRecords(tx, [{ userId: user.id, assistantId: assistant.id, to: lead.phoneNumber, variables: { customer_name: 'Lee' }, campaignId: campaign.id, leadId: lead.id }]),
    );
    const { rows } = await pool.query('SELECT * FROM calls WHERE id = $1', [callId]);
    expect(rows[0]).toMatchObject({
      status: 'initiated',
      type: 'outbound',
      assistant_name: 'Dialer assistant',
      assistant_phone_number: '+493055501234',
      campaign_id: campaign.id,
      campaign_name: 'Spring',
      lead_id: lead.id,
      client_phone_number: '+4915123456700',
      variables: { customer_name: 'Lee' },
      owner_instance: t.service.ctx.instanceId,
    });
    await engine.startCall(callId);
    expect(engine.activeCalls()).toBe(1);
    await t.service.ctx.services.callEngine!.whenFinished(callId);
    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record).toMatchObject({ status: 'completed', campaign_name: 'Spring', transcript: expect.stringContaining('AI: Hello Lee, this is Switchboard.') });
    // Starting it again does nothing: it is no longer waiting to be dialed.
    await engine.startCall(callId);
    expect(engine.activeCalls()).toBe(0);
  });

  it('inserts many calls in one statement, ids ascending in input order, each stamped after the transaction began', async () => {
    const user = await t.createUser();
    const number = await t.addPhoneNumber(user.id, '+493055501299');
    const assistant = await insertAssistant(t, user.id, { phoneNumberId: number.id });
    const campaign = await insertCampaign(t, user.id, assistant.id, { name: 'Batch' });
    const first = await insertLead(t, user.id, campaign.id, { phoneNumber: '+4915123456701' });
    const second = await insertLead(t, user.id, campaign.id, { phoneNumber: '+4915123456702' });
    const engine = t.service.ctx.services.calls!;
    const { db, pool } = t.service.ctx.database;
    const input = (lead: typeof first, name: string) => ({ userId: user.id, assistantId: assistant.id, to: lead.phoneNumber, variables: { customer_name: name }, campaignId: campaign.id, leadId: lead.id });
    let began = '';
    const ids = await db.transaction(async (tx) => {
      began = (rowsOf<{ began: string }>(await tx.execute(sql`select now()::text as began, pg_sleep(0.02)`)))[0].began;
      return engine.createCallRecords(tx, [input(second, 'Sam'), input(first, 'Fay')]);
    });
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBeLessThan(ids[1]);
    const { rows } = await pool.query(
      `SELECT lead_id, client_phone_number, variables, campaign_name, assistant_phone_number,
              created_at >= $2::timestamptz + interval '20 milliseconds' AS stamped_after_start
         FROM calls WHERE id = ANY($1) ORDER BY id`,
      [ids, began],
    );
    expect(rows).toEqual([
      { lead_id: second.id, client_phone_number: '+4915123456702', variables: { customer_name: 'Sam' }, campaign_name: 'Batch', assistant_phone_number: '+493055501299', stamped_after_start: true },
      { lead_id: first.id, client_phone_number: '+4915123456701', variables: { customer_name: 'Fay' }, campaign_name: 'Batch', assistant_phone_number: '+493055501299', stamped_after_start: true },
    ]);
    expect(await engine.createCallRecords(db, [])).toEqual([]);
  });

  it('refuses an assistant of another user and rolls back nothing else', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const assistant = await insertAssistant(t, owner.id);
    const { db } = t.service.ctx.database;
    await expect(
      db.transaction((tx) => t.service.ctx.services.calls!.createCallRecords(tx, [{ userId: other.id, assistantId: assistant.id, to: '+4915123456700' }])),
    ).rejects.toBeInstanceOf(AssistantMissingError);
  });
});

describe('carriers and providers from the composition root', () => {
  it('runs calls on the registries it is given, not on ones built from the configuration', async () => {
    // The configuration names an LLM server nobody listens on; the registry holds the stand-in.
    const own = await startTestService({
      parts: [callEnginePart],
      env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1' },
      carriers: new CarrierRegistry([new SandboxCarrier({ timeScale: 0 })]),
      providers: new ProviderRegistry(new OfflineStandInLlm(END_CALL_TOOL)),
    });
    try {
      const user = await own.createUser();
      const assistant = await insertAssistant(own, user.id);
      const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistant.id });
      expect(res.status).toBe(200);
      await own.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
      const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
      expect(record.status).toBe('completed');
      expect(record.transcript.split('\n')[0]).toBe(STAND_IN_NOTE);
    } finally {
      await own.close();
    }
  });
});
