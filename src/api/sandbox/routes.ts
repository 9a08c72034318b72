/** `POST /api/user/sandbox/inbound-call` (CONTRACT §9.1): simulates a customer calling an inbound assistant. */
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assistants, phoneNumbers } from '../../db/schema.js';
import { fieldError, HttpError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';
import { toE164 } from '../../lib/phone.js';

export const NO_INBOUND_ASSISTANT = 'No inbound assistant on this number';

const inboundBody = z.object({
  to: v.string({ max: 64 }),
  from: v.string({ max: 64 }),
  variables: v.object().nullable().optional(),
});

export async function sandboxRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.post('/api/user/sandbox/inbound-call', {
    schema: {
      tags: ['sandbox'],
      summary: 'Simulate an inbound call on the sandbox carrier',
      description:
        '`to` is one of your numbers held by an active inbound assistant; the last two digits of `from` choose the caller\'s behaviour (91 busy, 92 no-answer, 93 failed, 94 voicemail, 95 hangs up mid-conversation, otherwise a conversing person).',
      body: inboundBody,
      response: {
        200: z.object({ message: z.string(), call_id: z.number().int() }),
        404: messageSchema,
        422: validationSchema,
        429: messageSchema,
        503: messageSchema,
      },
    },
  }, async (req) => {
    const user = req.user;
    const region = app.ctx.config.DEFAULT_PHONE_REGION;
    const from = toE164(req.body.from, region);
    if (!from) throw fieldError('from', 'The from field must be a valid phone number in E.164 format.');
    const engine = app.ctx.services.callEngine;
    if (!engine) throw new HttpError(503, 'The call engine is not running.');
    if (engine.carrier.name !== 'sandbox') throw notFound('Not found.');
    const to = toE164(req.body.to, region);
    if (!to) throw notFound(NO_INBOUND_ASSISTANT);
    const [assistant] = await db
      .select({ id: assistants.id })
      .from(assistants)
      .innerJoin(phoneNumbers, eq(phoneNumbers.id, assistants.phoneNumberId))
      .where(
        and(
          eq(phoneNumbers.userId, user.id),
          eq(phoneNumbers.phoneNumber, to),
          eq(assistants.userId, user.id),
          eq(assistants.type, 'inbound'),
          eq(assistants.status, 'active'),
          isNull(assistants.deletedAt),
        ),
      )
      .limit(1);
    if (!assistant) throw notFound(NO_INBOUND_ASSISTANT);
    // A used-up call limit is answered 429 by the central error handler (src/http/domain-errors.ts).
    const { callId } = await engine.placeCall({ userId: user.id, assistantId: assistant.id, to: from, variables: req.body.variables ?? {}, type: 'inbound' });
    return { message: 'Inbound call simulated', call_id: callId };
  });
}
