/**
 * Assistant versions (an extension beside spec 4.8–4.12; the spec's routes and records keep
 * their shape): list, read with a field-by-field comparison, restore. Versions are written by
 * service.ts in the transaction of every change.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { credentialSealer } from '../../lib/secrets.js';
import { notFound } from '../toolkit/errors.js';
import { pageQuery, pageSchema, paginate } from '../toolkit/pagination.js';
import { parseOrThrow } from '../toolkit/validation.js';
import { messageSchema, pathId, typed, validationSchema } from '../toolkit/route.js';
import { foldEndCallTool, normalize, prepareBody } from './aliases.js';
import { updateAssistantBody } from './schemas.js';
import { findAssistant, NOT_FOUND, updateAssistant, VALIDATION_FAILED } from './service.js';
import {
  authorOf,
  compareRecords,
  findVersion,
  listVersions,
  serializeVersionSummary,
  updateRequestOf,
  versionBuiltins,
  versionRecord,
} from './versions.js';

export const VERSION_NOT_FOUND = 'Version not found';
const tags = ['assistants'];

const versionParams = z.object({ id: pathId(), number: pathId() });
const summarySchema = z.object({
  number: z.number().int(),
  action: z.enum(['create', 'update', 'webhook', 'restore', 'baseline']).describe('What made it; `baseline`: the state before the first change recorded'),
  restored_from: z.number().int().nullable(),
  author: z.string().describe("The account's name"),
  via: z.enum(['api', 'dashboard', 'cli']).describe('The client the change came from (the X-Switchboard-Client header)'),
  created_at: z.string(),
  changed_fields: z.array(z.string()).describe('Record fields that differ from the version before it'),
});
const changeSchema = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });

export async function assistantVersionRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;
  const sealer = credentialSealer(app.ctx.config);

  const ownAssistant = async (userId: number, id: number) => {
    const row = await findAssistant(db, userId, id);
    if (!row) throw notFound(NOT_FOUND);
    return row;
  };

  r.get('/api/user/assistants/:id/versions', {
    schema: {
      tags,
      summary: "An assistant's versions, newest first (one per saved change), paginated",
      params: z.object({ id: pathId() }),
      querystring: z.object(pageQuery(20)),
      response: { 200: pageSchema(summarySchema), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const { page, per_page: perPage } = req.query;
    const { total, items } = await listVersions(db, assistant.id, page, perPage);
    return paginate({
      path: `${app.ctx.config.publicAppUrl}/api/user/assistants/${assistant.id}/versions`,
      query: req.query as Record<string, unknown>,
      page,
      perPage,
      total,
      items,
    });
  });

  r.get('/api/user/assistants/:id/versions/:number', {
    schema: {
      tags,
      summary: 'One version: the assistant record it saved and what differs from another version',
      description: '`changes` compares with `compare_to` (default: the version before it; none for the first).',
      params: versionParams,
      querystring: z.object({ compare_to: pathId().optional() }),
      response: {
        200: z.object({
          data: summarySchema.extend({ record: z.record(z.string(), z.unknown()), compared_to: z.number().int().nullable(), changes: z.array(changeSchema) }),
        }),
        404: messageSchema,
        422: validationSchema,
      },
    },
    config: { notFoundMessage: VERSION_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const version = await findVersion(db, assistant.id, req.params.number);
    if (!version) throw notFound(VERSION_NOT_FOUND);
    const againstNumber = req.query.compare_to ?? (version.number > 1 ? version.number - 1 : null);
    const against = againstNumber === null ? null : await findVersion(db, assistant.id, againstNumber);
    if (req.query.compare_to !== undefined && !against) throw notFound(VERSION_NOT_FOUND);
    const record = versionRecord(version);
    return {
      data: {
        ...serializeVersionSummary(version, against),
        record,
        compared_to: against?.number ?? null,
        changes: compareRecords(against ? versionRecord(against) : null, record),
      },
    };
  });

  r.post('/api/user/assistants/:id/versions/:number/restore', {
    schema: {
      tags,
      summary: 'Restore a version: the assistant gets its settings back, saved as a new version',
      params: versionParams,
      response: {
        200: z.object({ message: z.string(), data: z.object({ id: z.number().int(), version: z.number().int(), restored_from: z.number().int() }) }),
        404: messageSchema,
        422: validationSchema,
        500: messageSchema,
      },
    },
    config: { notFoundMessage: VERSION_NOT_FOUND },
  }, async (req) => {
    const assistant = await ownAssistant(req.user.id, req.params.id);
    const version = await findVersion(db, assistant.id, req.params.number);
    if (!version) throw notFound(VERSION_NOT_FOUND);
    // The saved record goes through the update's own rules, as a client echoing it back would:
    // a voice, tool or number that is gone since is refused with the field it concerns.
    const body = parseOrThrow(updateAssistantBody, foldEndCallTool(prepareBody(updateRequestOf(versionRecord(version)), VALIDATION_FAILED), VALIDATION_FAILED), VALIDATION_FAILED);
    const row = await updateAssistant(
      db,
      req.user.id,
      assistant.id,
      normalize(body),
      sealer,
      { ...authorOf(req.user, req.headers), action: 'restore', restoredFrom: version.number },
      { knownBuiltins: versionBuiltins(version), onFailure: (err) => req.log.error({ err }, 'assistant restore failed') },
    );
    if (!row) throw notFound(NOT_FOUND);
    return { message: `Assistant restored to version ${version.number}`, data: { id: row.id, version: row.version, restored_from: version.number } };
  });
}
