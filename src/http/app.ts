/**
 * The Fastify application: cross-cutting HTTP behaviour only (CONTRACT §1). Resources
 * register their routes in src/api; this file knows none of them.
 */
import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { z } from 'zod';
import { registerApi } from '../api/index.js';
import type { AppContext } from '../context.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { isOutOfDescriptors, openFileLimit } from '../lib/descriptors.js';
import { installSocketGuard } from '../api/toolkit/socket-guard.js';
import { authHook, bearerToken } from './auth.js';
import { domainErrorToHttp } from './domain-errors.js';
import { HttpError, ValidationError } from '../api/toolkit/errors.js';
import type {} from '../api/toolkit/fastify.js';
import { laravelErrors } from '../api/toolkit/validation.js';
import { messageSchema } from '../api/toolkit/route.js';
import { isDashboardNavigation, registerDashboard, sendDashboard } from './web.js';
import { hashToken } from '../accounts/tokens.js';
import { registerOpenApi } from './openapi.js';
import { assertJsonDepth } from './json-limits.js';
import { registerMetrics } from './metrics.js';
import { registerRequestSpans } from './tracing.js';
import { RequestLog } from './request-log.js';


/** Raised by the schema validator; turned into 404 (path params) or 422 (everything else). */
class RequestValidationError extends Error {
  constructor(
    readonly issues: z.core.$ZodIssue[],
    readonly part: string,
  ) {
    super('request validation failed');
  }
}

const BODY_LIMIT = 1024 * 1024;

/** The answer (503) to a request that needed the database while it was unreachable. */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; please try again in a moment.';
export const OUT_OF_DESCRIPTORS = 'The service has too many open connections; please try again in a moment.';

/**
 * Keeps descriptors for what must keep working (the database pool, files, health checks) when
 * strangers open sockets: unproven WebSockets are capped (src/api/toolkit/socket-guard.ts, a
 * quarter of the descriptor limit by default), and the server takes at most the limit less an
 * eighth (≥ 64) of connections, so accept() itself never meets EMFILE; a failed accept is logged,
 * not thrown (an unhandled server 'error' would end the process).
 */
function guardDescriptors(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  const limit = openFileLimit();
  const maxPending = config.WS_PENDING_MAX || (limit ? Math.min(1000, Math.max(16, Math.floor(limit / 4))) : 256);
  installSocketGuard(app, {
    startTimeoutMs: config.WS_START_TIMEOUT * 1000,
    heartbeatMs: config.WS_HEARTBEAT_INTERVAL * 1000,
    maxPending,
    maxPendingPerAddress: config.WS_PENDING_PER_ADDRESS,
  });
  if (limit) app.server.maxConnections = limit - Math.max(64, Math.floor(limit / 8));
  let lastWarn = 0;
  app.server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.syscall !== 'accept') return; // listen errors reach listen()'s caller
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    ctx.log.warn({ err }, 'accepting a connection failed');
  });
}

/** The SQLSTATE of a node-postgres error, also when wrapped by Drizzle (`cause`). */
function databaseErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; severity?: unknown; cause?: unknown } | undefined, i = 0; e && i < 3; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string' && typeof e.severity === 'string') return e.code;
  }
  return undefined;
}

/** A byte count as people write limits: `1 MiB`, `64 KiB`, else bytes. */
function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export async function buildApp(ctx: AppContext, opts: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const timeouts = ctx.config;
  const app = Fastify({
    loggerInstance: ctx.log,
    logController: new RequestLog(),
    bodyLimit: BODY_LIMIT,
    // Slow clients (slowloris): the whole request, headers included, must arrive within
    // HTTP_REQUEST_TIMEOUT; the headers within HTTP_HEADERS_TIMEOUT. Node checks every second.
    requestTimeout: Math.round(timeouts.HTTP_REQUEST_TIMEOUT * 1000),
    http: {
      requestTimeout: Math.round(timeouts.HTTP_REQUEST_TIMEOUT * 1000),
      headersTimeout: Math.round(Math.min(timeouts.HTTP_HEADERS_TIMEOUT, timeouts.HTTP_REQUEST_TIMEOUT) * 1000),
      connectionsCheckingInterval: 1000,
    },
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
    ...opts,
  });
  app.decorate('ctx', ctx);
  app.decorateRequest('user', null as never);

  // ---- bodies: JSON only (charset allowed); empty body = no fields; malformed = 400
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new HttpError(400, 'Malformed JSON body.'), undefined);
    }
    // Before any recursive code (validation, isStorableJson, JSON.stringify, jsonb) sees it.
    try {
      assertJsonDepth(parsed);
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, parsed);
  });

  // ---- validation: Zod schemas, reported in the Laravel shape
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const zod = schema as unknown as z.ZodType;
    return (data: unknown) => {
      // A body that is not a JSON object (absent, null, an array, a scalar) has no fields.
      const input = httpPart === 'body' && (data === null || typeof data !== 'object' || Array.isArray(data)) ? {} : data;
      const result = zod.safeParse(input, { reportInput: true });
      if (result.success) return { value: result.data };
      return { error: new RequestValidationError(result.error.issues, httpPart ?? 'body') };
    };
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // ---- errors: always the spec's envelopes, never internals
  app.setErrorHandler((thrown: FastifyError | HttpError | RequestValidationError, req, reply) => {
    const err = domainErrorToHttp(thrown) ?? thrown;
    const config = req.routeOptions?.config ?? {};
    const extra = config.errorExtra ?? {};
    if (err instanceof RequestValidationError) {
      if (err.part === 'params') {
        return reply.code(404).send({ message: config.notFoundMessage ?? 'Not found.', ...extra });
      }
      const ve = new ValidationError(laravelErrors(err.issues), config.validationMessage, extra);
      return reply.code(422).send(ve.body());
    }
    if (err instanceof HttpError) {
      const body = err.body();
      for (const [k, val] of Object.entries(extra)) if (!(k in body)) body[k] = val;
      return reply.code(err.statusCode).send(body);
    }
    const fe = err as FastifyError;
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send({ message: 'Unsupported Media Type: send application/json.' });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // The route's own limit (the Twilio callbacks take less than the API's 1 MiB).
        return reply.code(413).send({ message: `Payload Too Large: the body may be at most ${byteSize(req.routeOptions.bodyLimit ?? BODY_LIMIT)}.` });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.code(400).send({ message: 'Invalid Content-Length.' });
    }
    if (fe.statusCode === 429) return reply.code(429).send({ message: 'Too Many Attempts.' });
    // Safety net: a value PostgreSQL refuses as data (SQLSTATE class 22: out of range,
    // untranslatable character, …) is bad input, not a server failure.
    const pgCode = databaseErrorCode(err);
    if (pgCode?.startsWith('22')) {
      req.log.warn({ sqlstate: pgCode }, 'database refused a value');
      return reply.code(422).send({ message: 'The given data was invalid.', ...extra });
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.code(fe.statusCode).send({ message: fe.message });
    }
    // No descriptor for a socket or file right now (EMFILE/ENFILE: in a pool connect, an open):
    // the process is full, not broken, and a moment later has room again.
    if (isOutOfDescriptors(err)) {
      req.log.warn({ reason: (err as Error).message }, 'request failed: out of file descriptors');
      return reply.code(503).header('retry-after', '5').send({ message: OUT_OF_DESCRIPTORS });
    }
    // The database is away (stopped, restarting): /ready says so too; the pools reconnect by themselves.
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ reason: (err as Error).message }, 'request failed: the database is unavailable');
      return reply.code(503).header('retry-after', '5').send({ message: DATABASE_UNAVAILABLE });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ message: 'Server Error' });
  });

  // ---- unknown routes: 404, or 405 when the path exists with another method
  const known: { method: string; pattern: RegExp }[] = [];
  const registered: { method: string; url: string }[] = [];
  app.decorate('registeredRoutes', registered);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) registered.push({ method: m, url: route.url });
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`);
    for (const m of methods) known.push({ method: m, pattern });
  });
  let dashboard = false;
  app.setNotFoundHandler((req, reply) => {
    if (dashboard && isDashboardNavigation(req)) return sendDashboard(reply);
    const path = req.url.split('?')[0];
    const allowed = METHODS.filter((m) => m !== req.method && known.some((k) => k.method === m && k.pattern.test(path)));
    if (allowed.length > 0) {
      return reply.code(405).header('allow', allowed.join(', ')).send({ message: 'Method Not Allowed.' });
    }
    return reply.code(404).send({ message: 'Not found.' });
  });

  // ---- rate limit per token (CONTRACT §2), before auth so floods cost no lookups
  if (ctx.config.RATE_LIMIT_PER_MINUTE > 0) {
    await app.register(rateLimit, {
      max: ctx.config.RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (req) => {
        const token = bearerToken(req);
        return token ? `t:${hashToken(token)}` : `ip:${req.ip}`;
      },
      allowList: (req) => !req.url.startsWith('/api/'),
      errorResponseBuilder: () => new HttpError(429, 'Too Many Attempts.'),
      addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': false },
      addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': false, 'retry-after': true },
    });
  }
  app.addHook('onRequest', authHook(ctx));

  // Before any route: @fastify/swagger documents only the routes registered after it.
  await registerOpenApi(app);

  // ---- operations
  const operations = { tags: ['operations'], security: [] };
  app.get('/health', {
    schema: {
      ...operations,
      summary: 'Liveness: the process answers',
      description: 'Needs nothing else (no database): a load balancer or orchestrator restarts an instance that stops answering.',
      response: { 200: z.object({ status: z.literal('ok') }) },
    },
  }, async () => ({ status: 'ok' }));
  app.get('/ready', {
    schema: {
      ...operations,
      summary: 'Readiness: this instance takes new work',
      description: '503 while the instance drains after SIGTERM (its live calls go on) or while the database is unreachable.',
      response: { 200: z.object({ status: z.literal('ready') }), 503: messageSchema },
    },
  }, async (_req, reply) => {
    // Draining (SIGTERM): a load balancer sends new work elsewhere; live calls go on here.
    if (ctx.shuttingDown) return reply.code(503).send({ message: 'Shutting down.' });
    try {
      await ctx.database.pool.query('SELECT 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ message: 'Database unreachable.' });
    }
  });

  // Media sockets (browser calls, carriers' media streams); frames are small audio chunks.
  await app.register(websocket, { options: { maxPayload: 256 * 1024 } });
  guardDescriptors(app, ctx);
  if (ctx.services.metrics) registerMetrics(app, ctx, ctx.services.metrics);
  if (ctx.services.tracing) registerRequestSpans(app, ctx.services.tracing);

  await app.register(registerApi);
  dashboard = await registerDashboard(app);
  return app;
}
