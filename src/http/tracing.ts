/** One span per HTTP request (issue 18), when tracing is on: `GET /api/user/calls/:id`, with its status. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TraceSpan, Tracing } from '../observability/tracing.js';

export function registerRequestSpans(app: FastifyInstance, tracing: Tracing): void {
  const spans = new WeakMap<FastifyRequest, TraceSpan>();
  app.addHook('onRequest', async (req) => {
    const route = req.routeOptions.url ?? 'unmatched';
    spans.set(
      req,
      tracing.start(`${req.method} ${route}`, {
        'http.request.method': req.method,
        'http.route': route,
        'url.path': req.url.split('?')[0],
        'switchboard.request_id': req.id,
      }),
    );
  });
  app.addHook('onResponse', async (req, reply) => {
    const span = spans.get(req);
    if (!span) return;
    span.setAttributes({ 'http.response.status_code': reply.statusCode, ...(req.user ? { 'switchboard.user_id': req.user.id } : {}) });
    if (reply.statusCode >= 500) span.fail(`HTTP ${reply.statusCode}`);
    span.end();
  });
}
