import { z } from 'zod';
import { isoMicro } from '../../db/time.js';
import type { DeliveryRow } from './service.js';

export const deliverySchema = z.object({
  id: z.number().int(),
  message_id: z.string().describe('Standard Webhooks message id (the webhook-id header); the same for every attempt of one message'),
  kind: z.enum(['post_call', 'inbound']),
  attempt: z.number().int().describe('1 for the first attempt of a message, 2 for its first retry, ...'),
  url: z.string(),
  status_code: z.number().int().nullable().describe('HTTP status of the answer; null when no answer came (timeout, refused address, network error, webhook disabled)'),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable().describe('null for a 2xx answer'),
  created_at: z.string().describe('when the attempt started, ISO 8601 (UTC)'),
});

export function serializeDelivery(r: DeliveryRow): z.infer<typeof deliverySchema> {
  return {
    id: r.id,
    message_id: r.messageId,
    kind: r.kind as 'post_call' | 'inbound',
    attempt: r.attempt,
    url: r.url,
    status_code: r.statusCode,
    duration_ms: r.durationMs,
    error: r.error,
    created_at: isoMicro(r.createdAt)!,
  };
}
