/** Call records (spec 2.5, 4.13; CONTRACT §3, §4, §6): list with filters, read, delete. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, notFound } from '../toolkit/errors.js';
import { paginate, pageJson, pageSchema } from '../toolkit/pagination.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { listCallsQuery } from './schemas.js';
import { publicRecordingUrl } from '../../recordings/links.js';
import { recordingLinksFor } from '../../recordings/service.js';
import { callRecordSchema, renderCallRecord, serializeCall } from './serializer.js';
import { deleteCall, filtersOf, findCall, listCalls } from './service.js';

const tags = ['calls'];
const CALL_NOT_FOUND = 'Call not found';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The request's query parameters as sent (page URLs keep them, CONTRACT §3). */
function rawQuery(req: FastifyRequest): Record<string, string | string[]> {
  const i = req.url.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (i < 0) return out;
  for (const [k, val] of new URLSearchParams(req.url.slice(i + 1))) {
    const prev = out[k];
    out[k] = prev === undefined ? val : Array.isArray(prev) ? [...prev, val] : [prev, val];
  }
  return out;
}

export async function callRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;
  const { config } = app.ctx;
  const links = recordingLinksFor(config);

  r.get('/api/user/calls', {
    schema: {
      tags,
      summary: "The caller's calls, newest first, filtered and paginated",
      description:
        'Filters: status, type, phone_number (the client number; normalised to E.164 when it parses), assistant_id, ' +
        'campaign_id, date_from and date_to (YYYY-MM-DD, inclusive whole UTC days). per_page 1-100 (default 15), page from 1.',
      querystring: listCallsQuery,
      response: { 200: pageSchema(callRecordSchema), 422: validationSchema },
    },
  }, async (req, reply) => {
    const q = req.query;
    const { total, rows } = await listCalls(app.ctx.database, req.user.id, filtersOf(q), q.page, q.per_page, config.DEFAULT_PHONE_REGION, q.sort);
    const page = paginate({
      path: `${config.publicBaseUrl}/api/user/calls`,
      query: rawQuery(req),
      page: q.page,
      perPage: q.per_page,
      total,
      items: rows.map((row) => renderCallRecord(row.recordingUrl ? { ...row, recordingUrl: publicRecordingUrl(row.recordingUrl, links) } : row)),
    });
    // Sent as text (the records are JSON text already, see renderCallRecord), so past the
    // typed reply, whose payload type is the documented page object.
    return (reply as FastifyReply).type(JSON_CONTENT_TYPE).send(pageJson(page));
  });

  r.get('/api/user/calls/:id', {
    schema: {
      tags,
      summary: 'One of the caller\'s calls',
      params: idParam,
      response: { 200: callRecordSchema, 404: messageSchema },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req) => {
    const row = await findCall(db, req.user.id, req.params.id);
    if (!row) throw notFound(CALL_NOT_FOUND);
    const record = serializeCall(row);
    record.recording_url = publicRecordingUrl(record.recording_url, links);
    return record;
  });

  r.delete('/api/user/calls/:id', {
    schema: {
      tags,
      summary: 'Delete one of the caller\'s calls and its recording; a call still running is refused (409)',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema, 409: messageSchema },
    },
    config: { notFoundMessage: CALL_NOT_FOUND },
  }, async (req) => {
    const outcome = await deleteCall(db, req.user.id, req.params.id);
    if (outcome.kind === 'not_found') throw notFound(CALL_NOT_FOUND);
    if (outcome.kind === 'live') throw new HttpError(409, 'The call is still in progress and cannot be deleted.');
    // The record is gone either way; a recording that cannot be removed now is logged, not re-raised.
    await app.ctx.recordings.delete(outcome.row.id).catch((err: unknown) => {
      req.log.error({ err, callId: outcome.row.id }, 'removing the recording of a deleted call failed');
    });
    return { message: 'Call deleted successfully' };
  });
}
