import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { deliveryLog, emitFinished, insertCall, sleep, startReceiver, waitUntil, type Receiver } from './support.js';

// ALLOW_PRIVATE_TARGETS is off (the default): loopback and private addresses are refused.
let t: TestService;
let alice: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestService({ parts: [webhookDeliveryPart], env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' } });
  alice = await t.createUser();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('target guard without ALLOW_PRIVATE_TARGETS', () => {
  it.each([
    ['loopback', () => `${receiver.url}/hook`, 'loopback'],
    ['localhost by name', () => `${receiver.url.replace('127.0.0.1', 'localhost')}/hook`, 'loopback'],
    ['private', () => 'http://10.1.2.3/hook', 'private'],
    ['link-local', () => 'http://169.254.169.254/latest/meta-data', 'linkLocal'],
  ])('refuses a %s target once, without retries, and sends nothing', async (_name, url, reason) => {
    const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: url() });
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length > 0, 5000, 'a log row');
    await sleep(800);
    const log = await deliveryLog(alice, call.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ attempt: 1, status_code: null, url: url() });
    expect(log[0].error).toContain('not allowed');
    expect(log[0].error).toContain(reason);
    expect(receiver.received).toHaveLength(0);
  });
});
