/**
 * Webhook endpoints (CONTRACT §8): the per-user signing secret and its rotation, a call's
 * delivery log, and sending a call's webhooks again by hand.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError, notFound } from '../toolkit/errors.js';
import { idParam, messageSchema, typed } from '../toolkit/route.js';
import { loadCallContexts } from '../../webhooks/calls.js';
import { isLive } from '../../calls/state-machine.js';
import { targetsFor } from '../../webhooks/payload.js';
import { deliverySchema, serializeDelivery } from './serializer.js';
import { callBelongsTo, getWebhookSecret, listDeliveries, rotateWebhookSecret } from './service.js';

const tags = ['webhooks'];
const CALL_NOT_FOUND = 'Call not found';
export const NO_WEBHOOK_MESSAGE = 'No webhook is configured for this call.';
export const CALL_LIVE_MESSAGE = 'The call has not finished yet.';

const secretSchema = z.object({ secret: z.string().describe('Standard Webhooks signing secret, `whsec_` + base64') });

export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/webhook-secret', {
    schema: {
      tags,
      summary: 'The secret that signs your webhooks (Standard Webhooks, `whsec_...`)',
      response: { 200: secretSchema },
    },
  }, async (req) => ({ secret: await getWebhookSecret(db, req.user.id) }));

  r.post('/api/user/webhook-secret/rotate', {
    schema: {
      tags,
      summary: 'Replace the signing secret; every later attempt (retries included) is signed with the new one',
      response: { 200: secretSchema },
    },
  }, async (req) => ({ secret: await rotateWebhookSecret(db, req.user.id) }));

  r.get('/api/user/calls/:id/webhook-deliveries', {
    schema: {
      tags,
      summary: "The webhook delivery attempts of one of the caller's calls, oldest first",
      params: idParam,
      response: { 200: z.object({ data: z.array(deliverySchema) }), 404: messageSchema },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req) => {
    if (!(await callBelongsTo(db, req.params.id, req.user.id))) throw notFound(CALL_NOT_FOUND);
    return { data: (await listDeliveries(db, req.params.id, req.user.id)).map(serializeDelivery) };
  });

  r.post('/api/user/calls/:id/webhook-deliveries/resend', {
    schema: {
      tags,
      summary: "Send a finished call's webhooks again, as new messages with the usual retries",
      description:
        'Queues one new message per webhook configured now (the post-call webhook when active, and the inbound webhook for ' +
        'inbound calls), ignoring send_webhook_only_on_completed because you ask for this call explicitly. ' +
        `422 "${NO_WEBHOOK_MESSAGE}" when none is configured; 422 "${CALL_LIVE_MESSAGE}" while the call is still live.`,
      params: idParam,
      response: {
        200: z.object({
          message: z.string(),
          data: z.array(z.object({ message_id: z.string(), kind: z.enum(['post_call', 'inbound']), url: z.string() })),
        }),
        404: messageSchema,
        422: messageSchema,
        503: messageSchema,
      },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req) => {
    const call = (await loadCallContexts(db, [req.params.id])).get(req.params.id);
    if (!call || call.userId !== req.user.id) throw notFound(CALL_NOT_FOUND);
    if (isLive(call.status)) throw new HttpError(422, CALL_LIVE_MESSAGE);
    if (targetsFor(call, { manual: true }).length === 0) throw new HttpError(422, NO_WEBHOOK_MESSAGE);
    const delivery = app.ctx.services.webhooks;
    if (!delivery) throw new HttpError(503, 'Webhook delivery is not running in this process.');
    const queued = await delivery.resend(call);
    return { message: 'Webhook delivery queued', data: queued };
  });
}
