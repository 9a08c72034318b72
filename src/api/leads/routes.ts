/** Leads (spec 4.4–4.6, CONTRACT §4, §5): create, list, update (and its alias), delete. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../toolkit/errors.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { createLeadBody, leadSchema, UPDATABLE_FIELDS, updateLeadBody } from './schemas.js';
import { serializeLead } from './serializer.js';
import { createLead, deleteLead, listLeads, updateLead } from './service.js';

const tags = ['leads'];

/** Spec 4.6 rule 1: any field outside the four refuses the whole update, naming them in the order sent. */
async function rejectInvalidFields(req: FastifyRequest): Promise<void> {
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const invalid = Object.keys(body).filter((k) => !(UPDATABLE_FIELDS as readonly string[]).includes(k));
  if (invalid.length > 0) throw new HttpError(422, `Invalid fields: ${invalid.join(', ')}`);
}

export async function leadRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;
  const region = app.ctx.config.DEFAULT_PHONE_REGION;

  r.post('/api/user/lead', {
    schema: {
      tags,
      summary: 'Create a lead (with its secondary contacts) in one of the caller\'s campaigns',
      body: createLeadBody(region),
      response: { 200: z.object({ message: z.string(), data: leadSchema }), 404: messageSchema, 422: validationSchema },
    },
  }, async (req) => {
    const created = await createLead(db, req.user.id, req.body);
    return { message: 'Lead created successfully', data: serializeLead(created.lead, created.campaign, created.contacts) };
  });

  r.get('/api/user/leads', {
    schema: { tags, summary: "The caller's leads by id, each with campaign and secondary contacts (not paginated)", response: { 200: z.array(leadSchema) } },
  }, async (req) => (await listLeads(db, req.user.id)).map((l) => serializeLead(l.lead, l.campaign, l.contacts)));

  const updateOptions = {
    schema: {
      tags,
      summary: 'Update a lead: campaign_id, phone_number, status, variables (merged); other fields are refused',
      params: idParam,
      body: updateLeadBody,
      response: { 200: messageSchema, 404: messageSchema, 422: validationSchema.partial({ errors: true }) },
    },
    config: { notFoundMessage: 'Lead not found' },
    preValidation: rejectInvalidFields,
  };
  for (const path of ['/api/user/leads/:id', '/api/leads/:id']) {
    r.put(path, updateOptions, async (req) => {
      await updateLead(db, req.user.id, req.params.id, req.body, region);
      return { message: 'Lead updated successfully' };
    });
  }

  r.delete('/api/user/leads/:id', {
    schema: {
      tags,
      summary: 'Delete a lead and its secondary contacts (refused with 409 while a call to it is in progress)',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema, 409: messageSchema },
    },
    config: { notFoundMessage: 'Lead not found' },
  }, async (req, reply) => {
    const result = await deleteLead(db, req.user.id, req.params.id);
    if (result === 'not-found') return reply.code(404).send({ message: 'Lead not found' });
    if (result === 'in-call') return reply.code(409).send({ message: 'The lead cannot be deleted while a call to it is in progress.' });
    return { message: 'Lead deleted successfully' };
  });
}
