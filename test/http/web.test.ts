import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST } from '../../src/http/web.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const get = (url: string, accept = 'text/html,application/xhtml+xml') =>
  t.service.app.inject({ method: 'GET', url, headers: { accept } });

describe('the dashboard at /', () => {
  it('serves the built app (npm ci builds it) at / and its hashed assets for good', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<div id="root"></div>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(res.body)?.[1];
    expect(script).toBeDefined();
    const asset = await get(script!, '*/*');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await readdir(path.join(WEB_DIST, 'assets'))).length).toBeGreaterThan(5);
  });

  it("answers a browser navigation to a dashboard page with the app, which routes it", async () => {
    for (const url of ['/calls/12', '/campaigns/3/edit', '/assistants?page=2']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('never swallows the API: unknown /api paths still answer the JSON 404, also to a browser', async () => {
    for (const url of ['/api/user/nope', '/api/nothing/here', '/openapi.json/x']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ message: 'Not found.' });
    }
    const api = await get('/api/user/me', 'text/html');
    expect(api.statusCode).toBe(401);
  });

  it('keeps JSON 404s for non-browser clients, missing files and other methods', async () => {
    expect((await get('/calls/12', 'application/json')).json()).toEqual({ message: 'Not found.' });
    expect((await get('/assets/missing-file.js')).statusCode).toBe(404);
    const post = await t.service.app.inject({ method: 'POST', url: '/calls/12', headers: { accept: 'text/html' } });
    expect(post.statusCode).toBe(404);
    const put = await t.service.app.inject({ method: 'PUT', url: '/' });
    expect(put.statusCode).toBe(405);
  });
});
