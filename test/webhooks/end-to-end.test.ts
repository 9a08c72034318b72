/**
 * A real sandbox call (call engine + offline stand-in) placed through make_call ends with
 * its post-call webhook: the engine's call-finished event drives the delivery.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { deliveryLog, sleep, startReceiver, waitUntil, type Receiver } from './support.js';

let t: TestService;
let user: TestUser;
let receiver: Receiver;
let phoneNumberId: number;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart, webhookDeliveryPart], env: { ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2' } });
  user = await t.createUser({ max_calls_in_parallel: 10 });
  phoneNumberId = (await t.addPhoneNumber(user.id, '+4930555111')).id;
  receiver = await startReceiver(() => ({ status: 200, body: '{"crm_id":"abc"}' }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function place(assistantId: number, phone: string): Promise<number> {
  const res = await user.post('/api/user/make_call', { phone_number: phone, assistant_id: assistantId, variables: { customer_name: 'Ada' } });
  expect(res.status).toBe(200);
  await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  return res.body.call_id;
}

describe('webhooks of real sandbox calls', () => {
  it('delivers the finished call, signed, and shows the answer in the call record', async () => {
    const a = await insertAssistant(t, user.id, {
      phoneNumberId,
      isWebhookActive: true,
      webhookUrl: `${receiver.url}/hook`,
      record: true,
      includeRecordingInWebhook: true,
      endCallToolDescription: 'End the call when the customer is done.',
    });
    const callId = await place(a.id, '+4915123400001');
    const [req] = await receiver.waitFor(1, 15_000);
    const secret = (await user.get('/api/user/webhook-secret')).body.secret;
    const body = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as Record<string, any>;
    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(body.id).toBe(callId);
    expect(body.status).toBe(record.status);
    expect(body.customer_phone).toBe('+4915123400001');
    expect(body.assistant_phone).toBe('+4930555111');
    expect(body.transcript).toBe(record.transcript);
    expect(body.duration).toBe(record.duration);
    expect(body.extracted_variables).toEqual(record.evaluation);
    expect(body.input_variables).toMatchObject({ customer_name: 'Ada' });
    expect(body.recording_url).toBe(record.recording_url);
    expect(body.lead).toBeNull();
    expect(body.campaign).toBeNull();
    await waitUntil(async () => (await user.get(`/api/user/calls/${callId}`)).body.webhook_response?.crm_id === 'abc', 5000, 'webhook_response');
    expect((await deliveryLog(user, callId)).map((l) => l.status_code)).toEqual([200]);
  });

  it('sends nothing for a busy sandbox call while send_webhook_only_on_completed is on', async () => {
    receiver.received.length = 0;
    const a = await insertAssistant(t, user.id, { phoneNumberId, isWebhookActive: true, webhookUrl: `${receiver.url}/hook`, sendWebhookOnlyOnCompleted: true });
    const callId = await place(a.id, '+4915123400091'); // ends in 91: busy
    expect((await user.get(`/api/user/calls/${callId}`)).body.status).toBe('busy');
    await sleep(1500);
    expect(receiver.received).toHaveLength(0);
    expect(await deliveryLog(user, callId)).toEqual([]);
  });
});
