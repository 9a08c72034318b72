/** Campaigns (CONTRACT §4, §5; spec 3.4, 4.7): create, list, delete, start and stop. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound, ValidationError } from '../toolkit/errors.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { laravelErrors } from '../toolkit/validation.js';
import { campaignProgress, progressSchema } from './progress.js';
import { campaignSchema, createCampaignBody, updateCampaignBody, updateStatusBody, updateStatusResponse } from './schemas.js';
import { serializeCampaign } from './serializer.js';
import { changeCampaignStatus, createCampaign, deleteCampaign, findOwnedCampaign, listCampaigns, updateCampaign } from './service.js';

const tags = ['campaigns'];
const failureSchema = z.object({ message: z.string(), success: z.literal(false) });

/**
 * Resolves the `status` alias of `action` (CONTRACT §7): when `action` is absent (or null)
 * and `status` is sent, `status` is the action, and its errors are keyed `status` as sent;
 * when `action` is sent, `status` is ignored.
 */
async function resolveActionAlias(req: FastifyRequest): Promise<void> {
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const b = { ...(body as Record<string, unknown>) };
  if (b.action === null) delete b.action;
  if (b.action !== undefined) {
    delete b.status;
  } else if (b.status !== undefined && b.status !== null) {
    const parsed = updateStatusBody.pick({ status: true, campaign_id: true }).required({ status: true }).safeParse(b, { reportInput: true });
    if (!parsed.success) throw new ValidationError(laravelErrors(parsed.error.issues), undefined, { success: false });
    b.action = b.status;
    delete b.status;
  } else {
    delete b.status;
    // Neither: the schema below reports the missing action together with the other fields.
    const parsed = updateStatusBody.required({ action: true }).omit({ status: true }).safeParse(b, { reportInput: true });
    if (!parsed.success) throw new ValidationError(laravelErrors(parsed.error.issues), undefined, { success: false });
  }
  req.body = b;
}

export async function campaignRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.post('/api/user/campaigns', {
    schema: {
      tags,
      summary: "Create a campaign for one of the caller's outbound assistants (status draft)",
      body: createCampaignBody,
      response: { 201: z.object({ message: z.string(), data: campaignSchema }), 404: messageSchema, 422: validationSchema },
    },
  }, async (req, reply) => {
    const row = await createCampaign(db, req.user.id, req.body);
    return reply.code(201).send({ message: 'Campaign created successfully', data: serializeCampaign(row) });
  });

  r.get('/api/user/campaigns', {
    schema: { tags, summary: "The caller's campaigns, by id", response: { 200: z.array(campaignSchema) } },
  }, async (req) => (await listCampaigns(db, req.user.id)).map(serializeCampaign));

  const CAMPAIGN_NOT_FOUND = 'Campaign not found';

  r.get('/api/user/campaign/:id', {
    schema: { tags, summary: "One of the caller's campaigns", params: idParam, response: { 200: z.object({ data: campaignSchema }), 404: messageSchema } },
    config: { notFoundMessage: CAMPAIGN_NOT_FOUND },
  }, async (req) => {
    const row = await findOwnedCampaign(db, req.user.id, req.params.id);
    if (!row) throw notFound(CAMPAIGN_NOT_FOUND);
    return { data: serializeCampaign(row) };
  });

  r.put('/api/user/campaign/:id', {
    schema: {
      tags,
      summary: 'Change a campaign: only the fields sent change, validated as on create',
      description:
        'Every field may change while the campaign runs (the dialer reads them at its next dial) except assistant_id, ' +
        'which is refused (422) while the campaign is in progress. Status changes go through update-status.',
      params: idParam,
      body: updateCampaignBody,
      response: { 200: z.object({ message: z.string(), data: campaignSchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: CAMPAIGN_NOT_FOUND },
  }, async (req) => {
    const row = await updateCampaign(db, req.user.id, req.params.id, req.body);
    return { message: 'Campaign updated successfully', data: serializeCampaign(row) };
  });

  r.get('/api/user/campaign/:id/progress', {
    schema: {
      tags,
      summary: "A campaign in motion: its leads by status, calls in flight, calls finished per minute",
      params: idParam,
      response: { 200: z.object({ data: progressSchema }), 404: messageSchema },
    },
    config: { notFoundMessage: CAMPAIGN_NOT_FOUND },
  }, async (req) => {
    const row = await findOwnedCampaign(db, req.user.id, req.params.id);
    if (!row) throw notFound(CAMPAIGN_NOT_FOUND);
    return { data: await campaignProgress(db, req.user.id, row) };
  });

  r.delete('/api/user/campaign/:id', {
    schema: {
      tags,
      summary: 'Delete a campaign: stops it and deletes its leads; its calls stay',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema },
    },
    config: { notFoundMessage: CAMPAIGN_NOT_FOUND },
  }, async (req, reply) => {
    if (!(await deleteCampaign(db, req.user.id, req.params.id))) return reply.code(404).send({ message: 'Campaign not found' });
    return { message: 'Campaign deleted successfully' };
  });

  r.post('/api/user/campaigns/update-status', {
    schema: {
      tags,
      summary: 'Start or stop a campaign (action start/stop; status is accepted when action is absent)',
      body: updateStatusBody,
      response: { 200: updateStatusResponse, 404: failureSchema, 422: failureSchema.extend({ errors: validationSchema.shape.errors.optional() }) },
    },
    config: { errorExtra: { success: false } },
    preValidation: resolveActionAlias,
  }, async (req) => {
    const action = req.body.action ?? req.body.status;
    if (!action) throw new ValidationError({ action: ['The action field is required.'] }, undefined, { success: false });
    const { status, changed } = await changeCampaignStatus(db, req.user.id, req.body.campaign_id, action);
    const message =
      action === 'start'
        ? changed ? 'Campaign started successfully.' : 'Campaign is already in progress.'
        : changed ? 'Campaign stopped successfully.' : 'Campaign is not in progress.';
    return { message, success: true, data: { campaign_id: req.body.campaign_id, status } };
  });
}
