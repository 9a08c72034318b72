/** Reference lists (spec 4.14–4.17) and the caller's phone numbers. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { typed } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';
import { languageSchema, modelSchema, phoneNumberSchema, serializePhoneNumber, voiceSchema } from './serializers.js';
import { listLanguages, listModels, listPhoneNumbers, listVoices } from './service.js';

const tags = ['reference'];

export async function referenceRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/assistants/phone-numbers', {
    schema: {
      tags,
      summary: "The caller's phone numbers; type=inbound leaves out Caller ID and assigned numbers",
      querystring: z.object({ type: v.enum(['inbound', 'outbound']).optional() }),
      response: { 200: z.array(phoneNumberSchema) },
    },
  }, async (req) => (await listPhoneNumbers(db, req.user.id, req.query.type)).map(serializePhoneNumber));

  r.get('/api/user/phone-numbers/all', {
    schema: { tags, summary: "All of the caller's phone numbers", response: { 200: z.object({ data: z.array(phoneNumberSchema) }) } },
  }, async (req) => ({ data: (await listPhoneNumbers(db, req.user.id)).map(serializePhoneNumber) }));

  r.get('/api/user/assistants/voices', {
    schema: {
      tags,
      summary: 'Public voices and the caller\'s own, optionally of one mode',
      querystring: z.object({ mode: v.enum(['pipeline', 'multimodal']).optional() }),
      response: { 200: z.array(voiceSchema) },
    },
  }, async (req) => listVoices(db, req.user.id, req.query.mode));

  r.get('/api/user/assistants/models', {
    schema: { tags, summary: 'LLM models; the name is the value of llm_model', response: { 200: z.array(modelSchema) } },
  }, async () => listModels(db));

  r.get('/api/user/assistants/languages', {
    schema: { tags, summary: 'Languages; the name is the value of language', response: { 200: z.array(languageSchema) } },
  }, async () => listLanguages(db));
}
