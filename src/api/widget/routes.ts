/**
 * The embeddable widget: its public keys (managed with a user token, per assistant) and the
 * public call endpoint a visitor's page uses, authorised by a widget key and the page's
 * Origin. `/widget.js` itself is a built file of the dashboard (web/widget), served with it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../toolkit/errors.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';
import { startWebCall, widgetKeyShare } from '../web-calls/service.js';
import { webCallStartedSchema } from '../web-calls/routes.js';
import { createWidgetKey, findWidgetKey, listWidgetKeys, MinuteCounters, normaliseOrigin, revokeWidgetKey, widgetCallsInFlight } from './service.js';

const tags = ['widget'];
const MAX_ORIGINS = 20;

const widgetKeySchema = z.object({
  id: z.number().int(),
  assistant_id: z.number().int(),
  key: z.string(),
  allowed_origins: z.array(z.string()),
  created_at: z.string().nullable(),
});

const originRule = v.string({ max: 300 }).refine((s) => normaliseOrigin(s) !== null, {
  error: 'The :attribute field must be an origin such as https://www.example.com (scheme, host and port only).',
});

const createKeyBody = z.object({
  allowed_origins: v
    .array(originRule)
    .min(1, { error: 'The :attribute field must have at least 1 items.' })
    .max(MAX_ORIGINS, { error: `The :attribute field must not have more than ${MAX_ORIGINS} items.` }),
});

const widgetCallBody = z.object({
  key: v.string({ max: 100 }),
  mode: v.enum(['audio', 'text']).optional(),
});

/** CORS for a visitor's page: only the widget's call endpoint, and only for the key's origins (checked on POST). */
function allowOrigin(req: FastifyRequest, reply: FastifyReply): void {
  const origin = req.headers.origin;
  if (typeof origin === 'string') reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
}

export async function widgetRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const perKey = new MinuteCounters();
  const perVisitor = new MinuteCounters();
  const { config } = app.ctx;

  r.get('/api/user/assistants/:id/widget-keys', {
    schema: { tags, summary: 'The live widget keys of an assistant', params: idParam, response: { 200: z.object({ data: z.array(widgetKeySchema) }), 404: messageSchema } },
    config: { notFoundMessage: 'Assistant not found' },
  }, async (req) => ({ data: await listWidgetKeys(app.ctx, req.user.id, req.params.id) }));

  r.post('/api/user/assistants/:id/widget-keys', {
    schema: {
      tags,
      summary: 'Create a widget key for an assistant',
      description: 'The key is public: it goes into the `<script>` tag on your site. Calls are accepted only from `allowed_origins`, within the per-key and per-visitor limits.',
      params: idParam,
      body: createKeyBody,
      response: { 201: z.object({ data: widgetKeySchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: 'Assistant not found' },
  }, async (req, reply) => {
    const origins = req.body.allowed_origins.map((o) => normaliseOrigin(o)!);
    return reply.code(201).send({ data: await createWidgetKey(app.ctx, req.user.id, req.params.id, origins) });
  });

  r.delete('/api/user/widget-keys/:id', {
    schema: { tags, summary: 'Revoke a widget key', params: idParam, response: { 200: messageSchema, 404: messageSchema } },
    config: { notFoundMessage: 'Widget key not found' },
  }, async (req) => {
    await revokeWidgetKey(app.ctx, req.user.id, req.params.id);
    return { message: 'Widget key revoked' };
  });

  // The CORS preflight a browser sends on its own before POST /widget/calls: not part of the
  // API a client calls, so left out of /openapi.json (docs/decisions.md, test/http/openapi.test.ts).
  app.options('/widget/calls', { schema: { hide: true }, config: { auth: 'none' } }, async (req, reply) => {
    allowOrigin(req, reply);
    return reply
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', '600')
      .code(204)
      .send();
  });

  r.post('/widget/calls', {
    schema: {
      tags,
      summary: 'Start a call from the widget on a visitor’s page',
      description: 'Public: authorised by a widget key and the page’s `Origin`, never by an API token. Answers like POST /api/user/web-calls; open `media_path` on this service.',
      body: widgetCallBody,
      security: [],
      response: { 200: webCallStartedSchema, 403: messageSchema, 404: messageSchema, 422: z.union([messageSchema, validationSchema]), 429: messageSchema, 503: messageSchema },
    },
    config: { auth: 'none' },
  }, async (req, reply) => {
    allowOrigin(req, reply);
    const key = await findWidgetKey(app.ctx, req.body.key);
    if (!key) throw new HttpError(403, 'Unknown or revoked widget key.');
    const origin = typeof req.headers.origin === 'string' ? normaliseOrigin(req.headers.origin) : null;
    if (!origin || !key.allowedOrigins.includes(origin)) throw new HttpError(403, 'This origin may not use this widget key.');
    if (!perVisitor.take(`${key.id}:${req.ip}`, config.WIDGET_CALLS_PER_VISITOR_PER_MINUTE) || !perKey.take(String(key.id), config.WIDGET_CALLS_PER_MINUTE)) {
      reply.header('retry-after', '60');
      throw new HttpError(429, 'Too Many Attempts.');
    }
    // At once: a visitor address has at most WIDGET_CALLS_PER_ADDRESS calls of the key, the key at
    // most its share of the owner's limit (waiting or connected). A waiting call takes none of the
    // owner's slots; connecting takes one, under the owner's lock (docs/decisions.md).
    const inFlight = await widgetCallsInFlight(app.ctx, key, req.ip);
    if (inFlight.visitor >= config.WIDGET_CALLS_PER_ADDRESS || inFlight.key >= widgetKeyShare(app.ctx, inFlight.ownerMax)) {
      reply.header('retry-after', '10');
      throw new HttpError(429, 'Too Many Attempts.');
    }
    return startWebCall(app.ctx, {
      userId: key.userId,
      assistantId: key.assistantId,
      mode: req.body.mode ?? 'audio',
      widget: { keyId: key.id, visitor: req.ip },
    });
  });
}
