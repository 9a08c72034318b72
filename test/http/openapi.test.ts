/**
 * /openapi.json lists every route the service serves (the checklist's rule). Checked on a
 * service with every route-registering option on: Twilio configured (its callbacks and media
 * socket), SECRET_KEY (recording links), the full process (metrics, call engine), the widget
 * and browser calls, against every route Fastify registered (the onRoute hook behind
 * `app.registeredRoutes`). What stays out is listed below, each with its reason.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { WEB_DIST } from '../../src/http/web.js';
import { startTestService, type TestService } from '../support/service.js';
import { SOCKET_ONLY_MESSAGE } from '../../src/api/toolkit/route.js';

interface Route {
  method: string;
  url: string;
}

const isBuiltFile = (url: string) => statSync(path.join(WEB_DIST, url), { throwIfNoEntry: false })?.isFile() === true;

/** The routes /openapi.json leaves out on purpose. Anything else registered must be documented. */
const UNDOCUMENTED: { why: string; matches: (r: Route) => boolean }[] = [
  {
    why: 'Fastify adds a HEAD route for every GET: the same answer without its body',
    matches: (r) => r.method === 'HEAD',
  },
  {
    why: 'the CORS preflight a browser sends by itself before POST /widget/calls, which is documented (docs/decisions.md)',
    matches: (r) => r.method === 'OPTIONS' && r.url === '/widget/calls',
  },
  {
    why: "the interactive docs (@fastify/swagger-ui): its page, its assets and its copies of /openapi.json",
    matches: (r) => r.method === 'GET' && (r.url === '/docs' || r.url.startsWith('/docs/')),
  },
  {
    why: 'the dashboard: the built files of web/dist (index.html at /), or the redirect of / to /docs when it is not built',
    matches: (r) => r.method === 'GET' && (r.url === '/' || isBuiltFile(r.url)),
  },
];

let t: TestService;
let documented: Map<string, Record<string, any>>;
beforeAll(async () => {
  t = await startTestService({
    parts: fullProcess,
    env: {
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'twilio-auth-token',
      SECRET_KEY: 's'.repeat(40),
      METRICS_TOKEN: 'metrics-token-0123456789abcdef',
    },
  });
  const res = await t.anonymous.get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  documented = new Map();
  for (const [docPath, ops] of Object.entries<Record<string, Record<string, any>>>(res.body.paths)) {
    for (const [method, op] of Object.entries(ops)) documented.set(`${method.toUpperCase()} ${docPath}`, op);
  }
}, 60_000);
afterAll(() => t?.close());

/** `GET /recordings/:file` as /openapi.json writes it: `GET /recordings/{file}`. */
const key = (r: Route) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`;

describe('OpenAPI document', () => {
  it('documents every registered route, except the listed ones', () => {
    const routes = t.service.app.registeredRoutes;
    // The options took: the conditional routes are registered here.
    for (const expected of ['POST /carriers/twilio/voice', 'POST /carriers/twilio/status', 'GET /carriers/twilio/media', 'GET /recordings/:file', 'GET /metrics']) {
      expect(routes.map((r) => `${r.method} ${r.url}`)).toContain(expected);
    }
    const missing = routes.filter((r) => !documented.has(key(r)) && !UNDOCUMENTED.some((u) => u.matches(r))).map(key);
    expect(missing).toEqual([]);
  });

  it('documents no route the service does not serve', () => {
    const served = new Set(t.service.app.registeredRoutes.map(key));
    expect([...documented.keys()].filter((k) => !served.has(k))).toEqual([]);
  });

  it('names the credential of every route outside /api; only /metrics takes a bearer token there', () => {
    for (const [route, op] of documented) {
      if (route.split(' ')[1].startsWith('/api/')) continue;
      expect(op.security, route).toBeDefined();
      const schemes = (op.security as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
      expect(schemes.includes('bearer'), route).toBe(route === 'GET /metrics');
    }
    expect(documented.get('POST /carriers/twilio/voice')!.security).toEqual([{ twilioSignature: [] }]);
    expect(documented.get('GET /recordings/{file}')!.security).toEqual([{ recordingLink: [] }]);
    expect(documented.get('GET /web-calls/{id}/media')!.security).toEqual([{ mediaToken: [] }]);
  });

  it("describes Twilio's form body and the TwiML answer", () => {
    const voice = documented.get('POST /carriers/twilio/voice')!;
    const form = voice.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(Object.keys(form.properties)).toEqual(expect.arrayContaining(['AccountSid', 'CallSid', 'To', 'From']));
    expect(Object.keys(voice.responses['200'].content)).toEqual(['text/xml']);
    const status = documented.get('POST /carriers/twilio/status')!;
    expect(Object.keys(status.requestBody.content['application/x-www-form-urlencoded'].schema.properties)).toEqual(
      expect.arrayContaining(['CallSid', 'CallStatus', 'AnsweredBy']),
    );
    expect(status.parameters.map((p: { name: string }) => p.name)).toContain('call');
    expect(status.responses['204']).toBeDefined();
  });

  it('describes the WebSocket routes as an upgrade (503 when too many wait to start), and a plain GET there is told so: 426 with a JSON message', async () => {
    for (const socketPath of ['/carriers/twilio/media', '/web-calls/{id}/media']) {
      expect(Object.keys(documented.get(`GET ${socketPath}`)!.responses).sort()).toEqual(['101', '426', '503']);
    }
    for (const url of ['/carriers/twilio/media', '/web-calls/1/media?token=x']) {
      const res = await t.service.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(426);
      expect(res.headers.upgrade, url).toBe('websocket');
      expect(res.json(), url).toEqual({ message: SOCKET_ONLY_MESSAGE });
    }
  });

  it('serves the interactive docs', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
