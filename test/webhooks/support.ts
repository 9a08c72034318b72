/** Shared helpers of the webhook tests: a local receiver, call rows, the finished event. */
import { executorOf } from '../../src/calls/events.js';
import { calls } from '../../src/db/schema.js';
import type { TestService } from '../support/service.js';

export { sleep, startReceiver, waitUntil, type Answer, type Received, type Receiver } from '../support/receiver.js';

type CallInsert = typeof calls.$inferInsert;

/** A finished call row (status completed unless overridden). */
export async function insertCall(t: TestService, userId: number, assistantId: number | null, overrides: Partial<CallInsert> = {}) {
  const [row] = await t.service.ctx.database.db
    .insert(calls)
    .values({
      userId,
      assistantId,
      assistantName: 'Test assistant',
      type: 'outbound',
      status: 'completed',
      duration: 42,
      assistantPhoneNumber: '+4930123456',
      clientPhoneNumber: '+4915123456789',
      transcript: 'AI: Hello\nCustomer: Hi',
      variables: { customer_name: 'Ada' },
      evaluation: { status: true, summary: 'Booked a demo' },
      answeredBy: 'human',
      endedAt: '2026-11-22 10:31:02.5+00',
      createdAt: '2026-11-22 10:30:00.123456+00',
      ...overrides,
    })
    .returning();
  return row;
}

/** Emits the engine's "call finished" event, as the engine does at the end of a call. */
export async function emitFinished(t: TestService, callId: number, userId: number): Promise<void> {
  const events = t.service.ctx.services.callEvents;
  if (!events) throw new Error('no call event bus installed');
  await events.emit(executorOf(t.service.ctx.database.pool), { callId, userId });
}

/** The rows of a call's delivery log, through the API. */
export async function deliveryLog(client: { get(url: string): Promise<{ status: number; body: any }> }, callId: number) {
  const res = await client.get(`/api/user/calls/${callId}/webhook-deliveries`);
  if (res.status !== 200) throw new Error(`delivery log: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: number; message_id: string; kind: string; attempt: number; url: string; status_code: number | null; duration_ms: number | null; error: string | null; created_at: string }[];
}
