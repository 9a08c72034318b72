/**
 * `/metrics` (Prometheus text format) and the HTTP request metrics (issue 18). The scrape
 * needs a bearer token: `METRICS_TOKEN` when set (so a scraper does not hold the admin
 * token), or the admin token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../api/toolkit/errors.js';
import { messageSchema } from '../api/toolkit/route.js';
import type { AppContext } from '../context.js';
import type { Metrics } from '../observability/metrics.js';
import { bearerToken } from './auth.js';

/** Compares digests, so neither the length nor the content of the token leaks through timing. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export function registerMetrics(app: FastifyInstance, ctx: AppContext, metrics: Metrics): void {
  // The route pattern, not the path: ids in paths would make one series per call.
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.httpRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      summary: 'Prometheus metrics of this instance',
      description:
        'The Prometheus text exposition format: calls, dialer, webhook deliveries, HTTP requests by route pattern, the database pool. The bearer token is METRICS_TOKEN when set, or the admin token; a user token is refused (401).',
      security: [{ bearer: [] }],
      response: {
        200: { description: 'The exposition, never cached', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: z.string() } } },
        401: messageSchema,
      },
    },
  }, async (req, reply) => {
    const token = bearerToken(req);
    const metricsToken = ctx.config.METRICS_TOKEN;
    const allowed = token !== null && ((metricsToken !== undefined && sameSecret(token, metricsToken)) || (await ctx.adminAuth.verify(token)));
    if (!allowed) throw new HttpError(401, 'Unauthenticated.');
    const { contentType, body } = await metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
