/**
 * One log line per request (issue 31), written when the response is finished: method, route
 * pattern, status, milliseconds, and the user and call when there is one. Built from those
 * fields only — never the path or the query string (phone numbers, e-mail addresses), never a
 * header — so the line holds no secret by construction. Probes (`/health`, `/ready`,
 * `/metrics`, polled every few seconds by orchestrators and scrapers) are logged at `debug`.
 * Fastify's own two lines per request ("incoming request", "request completed") are not
 * written: this replaces its log controller.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type {} from '../api/toolkit/fastify.js';
import { SAFE_FIELDS } from '../logger.js';

export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/** The call a request concerns: set by its route (`req.callId`), or the `:id` of a `/api/user/calls/:id…` route. */
function callIdOf(req: FastifyRequest, route: string | undefined): number | undefined {
  if (req.callId !== undefined) return req.callId;
  if (!route?.startsWith('/api/user/calls/:id')) return undefined;
  const id = Number((req.params as { id?: unknown } | undefined)?.id);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const route = req.routeOptions.url;
    // Safe by construction (the method is one Node's parser knows), so the redaction list is not run over it.
    const fields: Record<string | symbol, unknown> = {
      [SAFE_FIELDS]: true,
      method: req.method,
      route: route ?? null,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (req.user) fields.userId = req.user.id;
    const callId = callIdOf(req, route);
    if (callId !== undefined) fields.callId = callId;
    if (error) req.log.error({ ...fields, [SAFE_FIELDS]: false, err: error }, 'request failed');
    else if (route !== undefined && PROBE_ROUTES.has(route)) req.log.debug(fields, 'request');
    else req.log.info(fields, 'request');
  }

  // A path the app does not know: the request line says `route: null`; the path is not logged.
  override routeNotFound(): void {}
}
