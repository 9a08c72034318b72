import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('lists every registered /api route with its method', async () => {
    const res = await t.anonymous.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(res.body.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const missing: string[] = [];
    const routes = t.service.app.registeredRoutes;
    expect(routes.some((r) => r.url === '/api/user/me')).toBe(true);
    for (const route of routes) {
      if (!route.url.startsWith('/api/')) continue;
      if (!documented.has(`${route.method} ${route.url}`)) missing.push(`${route.method} ${route.url}`);
    }
    expect(missing).toEqual([]);
  });

  it('serves the interactive docs', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
