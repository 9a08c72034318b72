/**
 * Traces over OTLP/HTTP (issue 18): a local receiver speaking the OTLP/HTTP JSON encoding gets
 * one span per HTTP request, one per call, and the stages of the call's turns under it.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { parseOtlpHeaders } from '../../src/observability/tracing.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}
interface Export {
  headers: http.IncomingHttpHeaders;
  resource: Record<string, unknown>;
  spans: OtlpSpan[];
}

/** A minimal OTLP/HTTP collector: POST /v1/traces with the JSON encoding of ExportTraceServiceRequest. */
async function startCollector() {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const request = JSON.parse(body) as { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of request.resourceSpans) {
        exports.push({
          headers: req.headers,
          resource: Object.fromEntries(rs.resource.attributes.map((a) => [a.key, valueOf(a.value)])),
          spans: rs.scopeSpans.flatMap((s) => s.spans),
        });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans: () => exports.flatMap((e) => e.spans),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.boolValue;
}
const attr = (s: OtlpSpan, key: string) => {
  const a = s.attributes.find((x) => x.key === key);
  return a ? valueOf(a.value) : undefined;
};

let collector: Awaited<ReturnType<typeof startCollector>>;
let t: TestService;
let user: TestUser;

beforeAll(async () => {
  collector = await startCollector();
  t = await startTestService({
    parts: [callEnginePart],
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=secret%20one', OTEL_SERVICE_NAME: 'switchboard-test' },
  });
  user = await t.createUser();
});
afterAll(async () => {
  await t?.close();
  await collector?.close();
});

describe('OpenTelemetry traces', () => {
  it('exports a span per request, per call and per turn stage to the OTLP endpoint', async () => {
    expect((await user.get('/api/user/me')).status).toBe(200);
    expect((await user.get('/api/user/calls/999999')).status).toBe(404);
    const phone = await t.addPhoneNumber(user.id);
    const assistant = await insertAssistant(t, user.id, { phoneNumberId: phone.id, initialMessage: 'Hello there.' });
    const placed = await user.post('/api/user/make_call', { phone_number: '+4915123456710', assistant_id: assistant.id });
    expect(placed.status).toBe(200);
    await t.service.ctx.services.callEngine!.whenFinished(placed.body.call_id);
    await t.service.ctx.services.tracing!.flush();

    const spans = collector.spans();
    const exp = collector.exports[0];
    expect(exp.resource).toMatchObject({ 'service.name': 'switchboard-test', 'service.instance.id': t.service.ctx.instanceId });
    expect(exp.headers['x-api-key']).toBe('secret one');

    const me = spans.find((s) => s.name === 'GET /api/user/me')!;
    expect(me).toBeDefined();
    expect(attr(me, 'http.response.status_code')).toBe(200);
    expect(attr(me, 'switchboard.user_id')).toBe(user.id);
    const missing = spans.find((s) => s.name === 'GET /api/user/calls/:id')!;
    expect(attr(missing, 'http.response.status_code')).toBe(404);
    expect(attr(missing, 'url.path')).toBe('/api/user/calls/999999');

    const call = spans.find((s) => s.name === 'call' && attr(s, 'switchboard.call_id') === placed.body.call_id)!;
    expect(call).toBeDefined();
    expect(attr(call, 'switchboard.call_status')).toBe('completed');
    expect(call.parentSpanId ?? '').toBe('');
    const turns = spans.filter((s) => s.parentSpanId === call.spanId);
    expect(turns.map((s) => s.name)).toContain('turn greeting');
    const stages = spans.filter((s) => turns.some((turn) => turn.spanId === s.parentSpanId));
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) {
      expect(['stt', 'llm', 'tts', 'playout']).toContain(stage.name);
      expect(stage.traceId).toBe(call.traceId);
      expect(BigInt(stage.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(stage.startTimeUnixNano));
    }
    // The recorded turns and the spans agree.
    const recorded = (await user.get(`/api/user/calls/${placed.body.call_id}/turns`)).body.data as unknown[];
    expect(turns).toHaveLength(recorded.length);
  });

  it('reads OTLP headers the way OTEL_EXPORTER_OTLP_HEADERS is written', () => {
    expect(parseOtlpHeaders('a=1, b = two%2Cthree ,broken,=x')).toEqual({ a: '1', b: 'two,three' });
    expect(parseOtlpHeaders(undefined)).toEqual({});
  });

  it('loads the OpenTelemetry SDK only when tracing is configured (no static import of it)', () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const staticImports = files.filter((f) =>
      /^\s*import\s+(?!type\b)[^;]*from\s+'@opentelemetry\/(sdk|exporter|resources)/m.test(fs.readFileSync(path.join(src, f), 'utf8')),
    );
    expect(staticImports).toEqual([]);
  });
});
