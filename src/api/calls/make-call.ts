/** `POST /api/user/make_call` (CONTRACT §4): places an outbound call on the call engine. */
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assistants } from '../../db/schema.js';
import { HttpError, notFound } from '../toolkit/errors.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';
import { toE164 } from '../../lib/phone.js';

export const INVALID_NUMBER = 'Invalid phone number format. Please use E.164 format (e.g. +1234567890)';

const makeCallBody = z.object({
  phone_number: v.string({ max: 64 }),
  assistant_id: v.id(),
  variables: v.object().nullable().optional(),
});

const makeCallResponse = z.object({ message: z.string(), call_id: z.number().int(), status: z.literal('initiated') });

export async function makeCallRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.post('/api/user/make_call', {
    schema: {
      tags: ['calls'],
      summary: 'Place an outbound call with an assistant',
      description:
        'Dials `phone_number` (E.164) with the assistant; the call runs in the background (on the sandbox carrier when no telephony provider is configured) and can be read back with GET /api/user/calls/{call_id}. Live calls count against the account\'s max_calls_in_parallel (429 when exhausted).',
      body: makeCallBody,
      response: { 200: makeCallResponse, 404: messageSchema, 422: z.union([messageSchema, validationSchema]), 429: messageSchema, 503: messageSchema },
    },
  }, async (req) => {
    const user = req.user;
    const to = toE164(req.body.phone_number, app.ctx.config.DEFAULT_PHONE_REGION);
    if (!to) throw new HttpError(422, INVALID_NUMBER);
    const [assistant] = await db
      .select({ id: assistants.id, status: assistants.status })
      .from(assistants)
      .where(and(eq(assistants.id, req.body.assistant_id), eq(assistants.userId, user.id), isNull(assistants.deletedAt)));
    if (!assistant) throw notFound('Assistant not found');
    if (assistant.status !== 'active') throw new HttpError(422, 'Assistant is inactive.');
    const engine = app.ctx.services.calls;
    if (!engine) throw new HttpError(503, 'The call engine is not running.');
    // A used-up call limit (429) and an assistant deleted meanwhile (404) are domain errors,
    // answered by the central error handler (src/http/domain-errors.ts).
    const { callId } = await engine.placeCall({
      userId: user.id,
      assistantId: assistant.id,
      to,
      variables: req.body.variables ?? {},
      type: 'outbound',
    });
    req.callId = callId;
    return { message: 'Call initiated successfully', call_id: callId, status: 'initiated' as const };
  });
}
