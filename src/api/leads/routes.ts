/** Leads (spec 4.4–4.6, CONTRACT §4, §5): create, list, update (and its alias), delete. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError, notFound } from '../toolkit/errors.js';
import { paginate, pageQuery, pageSchema } from '../toolkit/pagination.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { campaignLeadSchema, createLeadBody, leadSchema, UPDATABLE_FIELDS, updateLeadBody } from './schemas.js';
import { serializeLead } from './serializer.js';
import { BULK_MAX_ROWS, bulkLeadsBody, bulkLeadsResponse, importLeads } from './bulk.js';
import { createLead, deleteLead, findLead, listCampaignLeads, listLeads, updateLead } from './service.js';
import { findOwnedCampaign } from '../campaigns/service.js';
import { sqlDateTime } from '../../db/time.js';

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

  r.get('/api/user/leads/:id', {
    schema: { tags, summary: "One of the caller's leads, with campaign and secondary contacts", params: idParam, response: { 200: z.object({ data: leadSchema }), 404: messageSchema } },
    config: { notFoundMessage: 'Lead not found' },
  }, async (req) => {
    const found = await findLead(db, req.user.id, req.params.id);
    if (!found) throw notFound('Lead not found');
    return { data: serializeLead(found.lead, found.campaign, found.contacts) };
  });

  r.post('/api/user/leads/bulk', {
    schema: {
      tags,
      summary: `Import up to ${BULK_MAX_ROWS} leads into one campaign; each row is validated on its own`,
      description:
        'Rows are lead objects as in POST /api/user/lead (phone numbers normalised to E.164). Valid rows are created ' +
        'together; every invalid row is reported by its index with the single create\'s messages, so one bad row never ' +
        'refuses the others. Without allow_duplicate a number the campaign already has, or an earlier row had, is an error ' +
        'on phone_number.',
      body: bulkLeadsBody(),
      response: { 200: bulkLeadsResponse, 404: messageSchema, 422: validationSchema },
    },
  }, async (req) => {
    const data = await importLeads(db, req.user.id, req.body, region);
    return { message: `${data.created.length} leads imported, ${data.errors.length} rows refused`, data };
  });

  r.get('/api/user/campaign/:id/leads', {
    schema: {
      tags,
      summary: "A page of one campaign's leads, by id",
      params: idParam,
      querystring: z.object(pageQuery(15)),
      response: { 200: pageSchema(campaignLeadSchema), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Campaign not found' },
  }, async (req) => {
    if (!(await findOwnedCampaign(db, req.user.id, req.params.id))) throw notFound('Campaign not found');
    const { page, per_page } = req.query;
    const { total, items } = await listCampaignLeads(db, req.user.id, req.params.id, page, per_page);
    return paginate({
      path: `${app.ctx.config.publicBaseUrl}/api/user/campaign/${req.params.id}/leads`,
      query: { page: String(page), per_page: String(per_page) },
      page,
      perPage: per_page,
      total,
      items: items.map((l) => ({
        ...serializeLead(l.lead, l.campaign, l.contacts),
        attempts: l.lead.attempts,
        next_attempt_at: l.lead.status === 'created' && l.lead.nextAttemptAt ? sqlDateTime(l.lead.nextAttemptAt) : null,
        in_call: l.lead.currentCallId !== null,
      })),
    });
  });

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
