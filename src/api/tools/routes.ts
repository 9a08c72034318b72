/** Mid-call tools (spec 2.2, 4.1–4.3; read and delete from CONTRACT §4). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { notFound, ValidationError, type FieldErrors } from '../toolkit/errors.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { laravelErrors } from '../toolkit/validation.js';
import { asObject, createToolBody, summarize, updateToolBody } from './schemas.js';
import { serializeTool, toolSchema } from './serializer.js';
import { createTool, deleteTool, findTool, listTools, updateTool } from './service.js';
import { sendTestRequest, testRequestBody, testRequestResponse } from './test-request.js';

const tags = ['tools'];
const NOT_FOUND = 'Tool nicht gefunden';
const UPDATE_INVALID = 'Validierung fehlgeschlagen';

/** Which part failed schema validation on a route with `attachValidation` (params run first). */
function failedPart(req: FastifyRequest): string | null {
  const err = req.validationError as (Error & { validationContext?: string }) | undefined;
  return err ? (err.validationContext ?? 'body') : null;
}

/**
 * The body of a route whose schema validation failed: the raw body (left unparsed then) is
 * parsed again as an object — a JSON array, string or null counts as `{}` — and either its
 * data or its Laravel field errors come back.
 */
function reparse<S extends z.ZodType>(schema: S, raw: unknown): { data: z.output<S> } | { errors: FieldErrors } {
  const result = schema.safeParse(asObject(raw), { reportInput: true });
  return result.success ? { data: result.data } : { errors: laravelErrors(result.error.issues) };
}

export async function toolRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  r.get('/api/user/tools', {
    schema: { tags, summary: "The caller's mid-call tools, oldest first (not paginated)", response: { 200: z.array(toolSchema) } },
  }, async (req) => (await listTools(db, req.user.id)).map(serializeTool));

  r.post('/api/user/tools', {
    schema: {
      tags,
      summary: 'Create a mid-call tool (within the plan limit max_tools)',
      description:
        'A 422 for invalid fields carries `errors` keyed by field (`schema.0.name`); its message is the first error ' +
        'plus "(and N more errors)". Reaching the plan limit is a 422 with `message` only.',
      body: createToolBody,
      response: {
        201: z.object({ message: z.literal('Tool erfolgreich erstellt'), data: toolSchema }),
        422: z.union([validationSchema, messageSchema]),
      },
    },
    attachValidation: true,
  }, async (req, reply) => {
    let body = req.body;
    if (failedPart(req)) {
      const again = reparse(createToolBody, req.body);
      if ('errors' in again) throw new ValidationError(again.errors, summarize(again.errors));
      body = again.data;
    }
    const row = await createTool(db, req.user.id, body);
    return reply.code(201).send({ message: 'Tool erfolgreich erstellt', data: serializeTool(row) });
  });

  r.get('/api/user/tools/:id', {
    schema: {
      tags,
      summary: 'Read one of the caller\'s tools',
      params: idParam,
      response: { 200: toolSchema, 404: messageSchema },
    },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    const row = await findTool(db, req.user.id, req.params.id);
    if (!row) throw notFound(NOT_FOUND);
    return serializeTool(row);
  });

  r.put('/api/user/tools/:id', {
    schema: {
      tags,
      summary: 'Update a tool: only supplied fields change; headers and schema, when supplied, replace the stored ones',
      params: idParam,
      body: updateToolBody,
      response: {
        200: z.object({ message: z.literal('Tool erfolgreich aktualisiert'), data: toolSchema }),
        404: messageSchema,
        422: validationSchema,
      },
    },
    config: { notFoundMessage: NOT_FOUND },
    attachValidation: true,
  }, async (req) => {
    const failed = failedPart(req);
    if (failed === 'params') throw notFound(NOT_FOUND);
    // not found before invalid: an unknown (or foreign) tool is a 404 whatever the body
    const current = await findTool(db, req.user.id, req.params.id);
    if (!current) throw notFound(NOT_FOUND);
    let body = req.body;
    if (failed) {
      const again = reparse(updateToolBody, req.body);
      if ('errors' in again) throw new ValidationError(again.errors, UPDATE_INVALID);
      body = again.data;
    }
    const row = await updateTool(db, current, body);
    if (!row) throw notFound(NOT_FOUND);
    return { message: 'Tool erfolgreich aktualisiert', data: serializeTool(row) };
  });

  r.delete('/api/user/tools/:id', {
    schema: {
      tags,
      summary: 'Delete a tool; it is detached from every assistant',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema },
    },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    if (!(await deleteTool(db, req.user.id, req.params.id))) throw notFound(NOT_FOUND);
    return { message: 'Tool erfolgreich gelöscht' };
  });

  r.post('/api/user/tools/:id/test', {
    schema: {
      tags,
      summary: "Send one request to a tool's endpoint as a call would, and see the answer",
      description:
        'The request goes out exactly as during a call (method, headers, timeout, arguments in the query for GET/DELETE ' +
        'or as JSON otherwise) and through the same outbound guard (private targets only with ALLOW_PRIVATE_TARGETS).',
      params: idParam,
      body: testRequestBody,
      response: { 200: testRequestResponse, 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: NOT_FOUND },
  }, async (req) => {
    const tool = await findTool(db, req.user.id, req.params.id);
    if (!tool) throw notFound(NOT_FOUND);
    const log = req.log as unknown as Logger;
    return { data: await sendTestRequest(tool, req.body.arguments ?? {}, { allowPrivate: app.ctx.config.ALLOW_PRIVATE_TARGETS, log }) };
  });
}
