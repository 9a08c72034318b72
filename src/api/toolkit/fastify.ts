/**
 * What the routes may rely on from the Fastify app they are registered on, declared here so
 * that src/api sees it without importing the app shell (src/http fills it in: `ctx` and
 * `registeredRoutes` in app.ts, `req.user` in auth.ts, and it reads the route config keys).
 */
import type { AuthUser } from '../../accounts/users.js';
import type { AppContext } from '../../context.js';
import type { SocketGuard } from './socket-guard.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Every route as registered (method, url pattern; Fastify's HEAD routes too): for the OpenAPI coverage test. */
    registeredRoutes: { method: string; url: string }[];
    /** Deadlines, heartbeats and caps of the WebSockets (socket-guard.ts); routes `watch` each socket. */
    socketGuard: SocketGuard;
  }
  interface FastifyRequest {
    /** The token's user on every authenticated (`auth: 'user'`) route. */
    user: AuthUser;
    /** The call this request concerns, for its log line (src/http/request-log.ts), when a route resolved one. */
    callId?: number;
  }
  interface FastifyContextConfig {
    /** 'user' (default under /api), 'admin' (under /api/admin) or 'none'. */
    auth?: 'user' | 'admin' | 'none';
    /** Top-level message of a 422 from schema validation (default "The given data was invalid."). */
    validationMessage?: string;
    /** Extra top-level keys of error bodies on this route, e.g. `{success: false}`. */
    errorExtra?: Record<string, unknown>;
    /** Message of the 404 for a path id that is not a positive integer. */
    notFoundMessage?: string;
  }
}
