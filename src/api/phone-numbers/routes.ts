/**
 * The caller's phone numbers as their owner manages them: listed with the names the owner gave
 * them, and named. The spec's lists (GET /api/user/assistants/phone-numbers, /phone-numbers/all)
 * keep the spec's record; adding, moving and removing numbers is the admin's (src/api/admin).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { listPhoneNumbers, renamePhoneNumber } from '../../accounts/phone-numbers.js';
import { messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { numberParam, ownPhoneNumberSchema, renamePhoneNumberBody, serializeOwnPhoneNumber } from './schemas.js';

const tags = ['phone numbers'];

export async function phoneNumberRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/phone-numbers', {
    schema: { tags, summary: "The caller's phone numbers with their names, by id", response: { 200: z.object({ data: z.array(ownPhoneNumberSchema) }) } },
  }, async (req) => ({ data: (await listPhoneNumbers(db, { userId: req.user.id })).map(serializeOwnPhoneNumber) }));

  r.patch('/api/user/phone-numbers/:id', {
    schema: {
      tags,
      summary: 'Name one of the caller\'s phone numbers (null or "" clears the name)',
      params: numberParam,
      body: renamePhoneNumberBody,
      response: { 200: z.object({ message: z.string(), data: ownPhoneNumberSchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Phone number not found.' },
  }, async (req) => {
    const number = await renamePhoneNumber(db, req.params.id, req.user.id, req.body.label);
    return { message: 'Phone number updated', data: serializeOwnPhoneNumber(number) };
  });
}
