import type { Logger } from 'pino';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { HttpError } from '../api/toolkit/errors.js';
import type {} from '../api/toolkit/fastify.js';

const unauthenticated = () => new HttpError(401, 'Unauthenticated.');

export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

function authMode(req: FastifyRequest): 'user' | 'admin' | 'none' {
  const route = req.routeOptions;
  if (!route.url) return 'none'; // unknown route: answered 404 with or without a token
  if (route.config?.auth) return route.config.auth;
  if (route.url.startsWith('/api/admin/')) return 'admin';
  if (route.url.startsWith('/api/')) return 'user';
  return 'none';
}

/** onRequest hook: every /api route needs a bearer token; /api/admin routes need the admin one. */
export function authHook(ctx: AppContext) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const mode = authMode(req);
    if (mode === 'none') return;
    const token = bearerToken(req);
    if (!token) throw unauthenticated();
    if (mode === 'admin') {
      if (!(await ctx.adminAuth.verify(token))) throw unauthenticated();
      return;
    }
    const user = await ctx.tokens.resolve(token);
    if (!user) throw unauthenticated();
    req.user = user;
    (req.log as unknown as Logger).setBindings({ userId: user.id });
  };
}
