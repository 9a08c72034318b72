import { afterAll, describe, expect, it } from 'vitest';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { deliveryLog, emitFinished, insertCall, sleep, startReceiver, waitUntil, type Receiver } from './support.js';

const env = { WEBHOOK_RETRY_SCHEDULE: '2', ALLOW_PRIVATE_TARGETS: 'true' };
let databaseUrl: string;
let receiver: Receiver;
const services: TestService[] = [];

afterAll(async () => {
  await receiver?.close();
  for (const s of services) await s.close().catch(() => undefined);
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

describe('restart safety', () => {
  it('completes a delivery that was waiting for its retry when the service stopped', async () => {
    databaseUrl = await createTestDatabase();
    receiver = await startReceiver(() => ({ status: 500, body: '{"down":true}' }));
    const first = await startTestService({ parts: [webhookDeliveryPart], env, databaseUrl });
    services.push(first);
    const alice = await first.createUser();
    const a = await insertAssistant(first, alice.id, { isWebhookActive: true, webhookUrl: `${receiver.url}/hook` });
    const call = await insertCall(first, alice.id, a.id);
    await emitFinished(first, call.id, alice.id);
    await receiver.waitFor(1);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 1, 5000, 'the first attempt logged');

    // Stop while the retry (due 2 s after the first attempt) waits; nothing runs meanwhile.
    await first.close();
    services.pop();
    await sleep(2500);
    expect(receiver.received).toHaveLength(1);

    receiver.answer = () => ({ status: 200, body: '{"ok":true}' });
    const second = await startTestService({ parts: [webhookDeliveryPart], env, databaseUrl });
    services.push(second);
    const got = await receiver.waitFor(2, 15_000);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(2000);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    expect(got[1].body).toBe(got[0].body);

    const client = second.client(alice.token);
    await waitUntil(async () => (await deliveryLog(client, call.id)).length === 2, 5000, 'the second attempt logged');
    const log = await deliveryLog(client, call.id);
    expect(log.map((l) => [l.attempt, l.status_code])).toEqual([[1, 500], [2, 200]]);
    await sleep(1000);
    expect(receiver.received).toHaveLength(2);
  });
});
