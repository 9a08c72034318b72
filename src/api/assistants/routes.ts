/** Assistants (spec 2.4, 3.5, 4.8–4.12; CONTRACT §4 and §7). */
import type { FastifyInstance } from 'fastify';
import { credentialSealer } from '../../lib/secrets.js';
import { notFound } from '../toolkit/errors.js';
import { paginate } from '../toolkit/pagination.js';
import { idParam, messageSchema, pathId, typed, validationSchema } from '../toolkit/route.js';
import { foldEndCallTool, normalize, prepareBody } from './aliases.js';
import {
  assistantPageSchema,
  assistantRecordSchema,
  createAssistantBody,
  createdSchema,
  listQuery,
  readSchema,
  switchSchema,
  updateAssistantBody,
  updatedSchema,
  webhookAssistantBody,
  webhookEnableBody,
} from './schemas.js';
import { serializeAssistant, type AssistantRow } from './serializer.js';
import {
  createAssistant,
  deleteAssistant,
  findAssistant,
  listAll,
  listOutbound,
  listPage,
  NOT_FOUND,
  setWebhookState,
  toolsOf,
  updateAssistant,
  VALIDATION_FAILED,
} from './service.js';
import { authorOf } from './versions.js';

const tags = ['assistants'];
const missing = { 404: messageSchema };
const invalid = { 422: validationSchema };

export async function assistantRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;
  const sealer = credentialSealer(app.ctx.config);

  const records = async (rows: AssistantRow[]) => {
    const byId = await toolsOf(db, rows.map((row) => row.id));
    return rows.map((row) => serializeAssistant(row, byId.get(row.id) ?? []));
  };
  const record = async (row: AssistantRow) => (await records([row]))[0];
  /** Create and update: see prepareBody and foldEndCallTool. */
  const preValidation = async (req: { body: unknown }) => {
    req.body = foldEndCallTool(prepareBody(req.body, VALIDATION_FAILED), VALIDATION_FAILED);
  };
  /** The webhook switches. */
  const preValidationSwitch = async (req: { body: unknown }) => {
    req.body = prepareBody(req.body);
  };

  r.post('/api/user/assistant', {
    schema: {
      tags,
      summary: 'Create an assistant (request names of spec 4.9, or the record names as aliases)',
      body: createAssistantBody,
      response: { 201: createdSchema, ...invalid },
    },
    config: { validationMessage: VALIDATION_FAILED },
    preValidation,
  }, async (req, reply) => {
    const row = await createAssistant(db, req.user.id, normalize(req.body), sealer, authorOf(req.user, req.headers));
    return reply.code(201).send({ message: 'Assistant created successfully', data: await record(row) });
  });

  r.get('/api/user/assistant/:id', {
    schema: { tags, summary: 'Read one assistant', params: idParam, response: { 200: readSchema, ...missing } },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    const row = await findAssistant(db, req.user.id, req.params.id);
    if (!row) throw notFound(NOT_FOUND);
    return { data: await record(row) };
  });

  /**
   * Update: an id that is not the caller's live assistant is 404 before the body is looked at
   * (as for tools), so a second user learns nothing from validation answers.
   */
  const preValidationUpdate = async (req: { body: unknown; params: unknown; user: { id: number } }) => {
    const id = pathId().safeParse((req.params as { id?: string }).id);
    if (!id.success || !(await findAssistant(db, req.user.id, id.data))) {
      throw notFound(NOT_FOUND);
    }
    await preValidation(req);
  };

  r.put('/api/user/assistant/:id', {
    schema: {
      tags,
      summary: 'Update an assistant; only supplied fields change, tool_ids replaces all assignments',
      params: idParam,
      body: updateAssistantBody,
      response: { 200: updatedSchema, ...missing, ...invalid, 500: messageSchema },
    },
    config: { notFoundMessage: NOT_FOUND, validationMessage: VALIDATION_FAILED },
    preValidation: preValidationUpdate,
  }, async (req) => {
    const row = await updateAssistant(db, req.user.id, req.params.id, normalize(req.body), sealer, { ...authorOf(req.user, req.headers), action: 'update' }, {
      onFailure: (err) => req.log.error({ err }, 'assistant update failed'),
    });
    if (!row) throw notFound(NOT_FOUND);
    return {
      message: 'Assistant updated successfully',
      data: { id: row.id, name: row.name, status: row.status, type: row.type, mode: row.mode },
    };
  });

  r.delete('/api/user/assistant/:id', {
    schema: { tags, summary: 'Delete an assistant (soft delete; its phone number is released)', params: idParam, response: { 200: messageSchema, ...missing } },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    if (!(await deleteAssistant(db, req.user.id, req.params.id))) throw notFound(NOT_FOUND);
    return { message: 'Assistant deleted successfully' };
  });

  r.get('/api/user/assistants/get', {
    schema: {
      tags,
      summary: "The caller's assistants, paginated (per_page 1-100, default 10; page)",
      querystring: listQuery,
      response: { 200: assistantPageSchema, ...invalid },
    },
  }, async (req) => {
    const { page, per_page: perPage } = req.query;
    const { total, rows } = await listPage(db, req.user.id, page, perPage);
    const query = Object.fromEntries(new URL(req.url, 'http://x').searchParams);
    return paginate({
      path: `${app.ctx.config.publicAppUrl}/api/user/assistants/get`,
      query,
      page,
      perPage,
      total,
      items: await records(rows),
    });
  });

  r.get('/api/user/assistants', {
    schema: {
      tags,
      summary: "The caller's assistants (bare array, the older list existing clients use; oldest first)",
      response: { 200: assistantRecordSchema.array() },
    },
  }, async (req) => records(await listAll(db, req.user.id)));

  r.get('/api/user/assistants/outbound', {
    schema: { tags, summary: "The caller's outbound assistants (bare array)", response: { 200: assistantRecordSchema.array() } },
  }, async (req) => records(await listOutbound(db, req.user.id)));

  r.post('/api/user/assistants/enable-inbound-webhook', {
    schema: {
      tags,
      summary: 'Enable inbound-call notifications to webhook_url',
      body: webhookEnableBody,
      response: { 200: switchSchema, ...missing, ...invalid },
    },
    preValidation: preValidationSwitch,
  }, async (req) => {
    const ok = await setWebhookState(db, req.user.id, req.body.assistant_id, { inboundWebhookUrl: req.body.webhook_url }, authorOf(req.user, req.headers));
    if (!ok) throw notFound(NOT_FOUND);
    return { message: 'Webhook enabled successfully', data: [] };
  });

  r.post('/api/user/assistants/disable-webhook', {
    schema: {
      tags,
      summary: 'Disable the post-call webhook (is_webhook_active false, webhook_url null)',
      body: webhookAssistantBody,
      response: { 200: switchSchema, ...missing, ...invalid },
    },
    preValidation: preValidationSwitch,
  }, async (req) => {
    const ok = await setWebhookState(db, req.user.id, req.body.assistant_id, { isWebhookActive: false, webhookUrl: null }, authorOf(req.user, req.headers));
    if (!ok) throw notFound(NOT_FOUND);
    return { message: 'Webhook disabled successfully', data: [] };
  });

  r.post('/api/user/assistants/disable-inbound-webhook', {
    schema: {
      tags,
      summary: 'Disable inbound-call notifications (inbound_webhook_url null)',
      body: webhookAssistantBody,
      response: { 200: switchSchema, ...missing, ...invalid },
    },
    preValidation: preValidationSwitch,
  }, async (req) => {
    const ok = await setWebhookState(db, req.user.id, req.body.assistant_id, { inboundWebhookUrl: null }, authorOf(req.user, req.headers));
    if (!ok) throw notFound(NOT_FOUND);
    return { message: 'Inbound webhook disabled successfully', data: [] };
  });
}
