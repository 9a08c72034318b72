/**
 * The dashboard (issue 17): the built single-page app in web/dist, served at `/` by the same
 * listener as the API. Every built file gets its own route (no wildcard), so unknown paths
 * still reach the app's 404/405 handling; a browser navigation to a dashboard URL that is no
 * file (`/calls/12`) gets index.html and the app routes it. `/api/…` never does: an unknown
 * API path answers the JSON 404 as before.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** web/dist of this checkout: two levels above both src/http and dist/http. */
export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

/** Paths the service itself answers, never with the dashboard. */
const SERVICE_PATHS = /^\/(api|docs|openapi\.json|health|ready|metrics|carriers|widget|widget\.js|web-calls|recordings)(\/|$)/;

export async function registerDashboard(app: FastifyInstance, root = WEB_DIST): Promise<boolean> {
  if (!existsSync(path.join(root, 'index.html'))) {
    app.log.warn({ root }, 'dashboard not built (npm run build:web); / redirects to /docs');
    app.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect('/docs'));
    return false;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    // The build writes .br and .gz beside each file (web/vite.config.ts): sent as the browser accepts.
    preCompressed: true,
    // Built assets carry a content hash in their names: cache them for good; index.html never.
    setHeaders: (reply, file) => {
      reply.header('cache-control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return true;
}

/** True when a request that matched no route is a browser navigation to a dashboard page. */
export function isDashboardNavigation(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const pathname = req.url.split('?')[0];
  if (SERVICE_PATHS.test(pathname) || /\.[a-z0-9]+$/i.test(pathname)) return false;
  return (req.headers.accept ?? '').includes('text/html');
}

export function sendDashboard(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-cache').sendFile('index.html');
}
