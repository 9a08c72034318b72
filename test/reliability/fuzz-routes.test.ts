/**
 * Property-based fuzzing of every route in `/openapi.json` (issue 15): seeded and bounded
 * (fast-check), on the embedded database. Path ids, query strings and bodies are drawn from
 * each route's own schema and from hostile shapes (deep nesting, huge numbers, NUL and lone
 * surrogates, wrong types, malformed JSON). Fails on any 500 (a 503 such as "The call engine is not running." is an honest answer), any non-JSON error body and any
 * request that does not answer within 5 s; prints `fuzz: N requests, K × 500`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertPhoneNumber } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 1515);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const HANG_MS = 5_000;

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; anyOf?: Schema[]; oneOf?: Schema[] };
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: string[];
  body: Schema | null;
  /** Declares a 2xx answer that is not JSON (a file, a redirect). */
  nonJson: boolean;
}

let t: TestService;
let userToken: string;
let ids: number[];
let operations: Operation[];

beforeAll(async () => {
  t = await startTestService();
  const alice = await t.createUser();
  userToken = alice.token;
  const number = await insertPhoneNumber(t, alice.id);
  const assistant = await insertAssistant(t, alice.id, { phoneNumberId: number.id });
  ids = [alice.id, number.id, assistant.id, 1];
  const doc = (await t.service.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  operations = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // WebSocket routes (they answer 101): inject cannot open a socket (a plain GET there is a
      // 426, test/http/openapi.test.ts); their sockets are tested where they are served.
      if (op.responses?.['101']) continue;
      const params = op.parameters ?? [];
      const responses = Object.entries(op.responses ?? {}).filter(([code]) => code.startsWith('2') || code.startsWith('3'));
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        nonJson: responses.some(([code, r]) => code.startsWith('3') || Object.keys(r.content ?? {}).some((c) => !c.includes('json'))),
      });
    }
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
});

// ---- hostile values
// Deep nesting is drawn as a placeholder and spliced into the body's text afterwards: building
// it as a value would overflow this test's own JSON.stringify.
const deep = fc.tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('a', 'o')).map(([n, kind]) => `@@deep:${kind}:${n}@@`);
function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"@@deep:([ao]):(\d+)@@"/g, (_m, kind: string, n: string) =>
    kind === 'a' ? '['.repeat(Number(n)) + ']'.repeat(Number(n)) : '{"a":'.repeat(Number(n)) + '1' + '}'.repeat(Number(n)),
  );
}
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'x'.repeat(70_000), '1e309', '-1', '0', '9999999999999999999999', "'; DROP TABLE users; --", '../../etc/passwd', '%00', 'null', '[]', '{}', 'true', '+4930123456', 'http://169.254.169.254/', '2026-13-45'),
);
const nastyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308));
const anyJson = fc.oneof({ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: deep }, { weight: 2, arbitrary: nastyString }, { weight: 1, arbitrary: nastyNumber });

function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 3) return anyJson;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueFor(s, depth + 1)), anyJson);
  if (schema.enum?.length) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: anyJson });
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: nastyString }, { weight: 1, arbitrary: anyJson });
    case 'integer':
    case 'number':
      return fc.oneof({ weight: 3, arbitrary: fc.oneof(nastyNumber, fc.constantFrom(...ids)) }, { weight: 1, arbitrary: anyJson });
    case 'boolean':
      return fc.oneof(fc.boolean(), anyJson);
    case 'array':
      return fc.oneof({ weight: 3, arbitrary: fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 }) }, { weight: 1, arbitrary: anyJson });
    case 'object':
      return schema.properties ? objectFor(schema, depth + 1) : anyJson;
    default:
      return anyJson;
  }
}

function objectFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const model = Object.fromEntries(props.map(([k, s]) => [k, valueFor(s, depth)]));
  return fc.record(model, { requiredKeys: [] });
}

const body = (schema: Schema | null): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: (schema ? objectFor(schema, 0) : anyJson).map(toJson) },
    { weight: 1, arbitrary: anyJson.map(toJson) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', 'nul', '\u0000', '[1,2', '"unterminated') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const pathValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...[1, 2, 3, 4].map(String)) },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 2 ** 31 + 5 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', 'abc', '%20', '%00', 'null') },
);

interface Drawn {
  op: number;
  path: string[];
  query: [string, string][];
  body: string | undefined;
  auth: 'user' | 'admin' | 'none';
}

describe('fuzzing every route of /openapi.json', () => {
  it('answers every request with JSON, never 500, never hangs', async () => {
    expect(operations.length).toBeGreaterThan(20);
    const drawn = fc.sample(
      fc.integer({ min: 0, max: operations.length - 1 }).chain((op) =>
        fc.record<Drawn>({
          op: fc.constant(op),
          path: fc.array(pathValue, { minLength: operations[op].pathParams.length, maxLength: operations[op].pathParams.length }),
          query: fc.array(fc.tuple(fc.constantFrom(...operations[op].query, 'page', 'per_page', 'x'), nastyString), { maxLength: 3 }),
          body: body(operations[op].body),
          auth: fc.constantFrom<Drawn['auth']>('user', 'user', 'user', 'admin', 'none'),
        }),
      ),
      { seed: SEED, numRuns: REQUESTS },
    );
    const failures: string[] = [];
    let fiveHundreds = 0;
    for (const d of drawn) {
      const op = operations[d.op];
      let url = op.path;
      op.pathParams.forEach((name, i) => (url = url.replace(`{${name}}`, encodeURIComponent(d.path[i]).replace(/%25/g, '%'))));
      const qs = new URLSearchParams(d.query).toString();
      if (qs) url += `?${qs}`;
      const token = d.auth === 'admin' ? t.config.ADMIN_TOKEN! : d.auth === 'user' ? userToken : '';
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const res = await Promise.race([
        t.service.app.inject({
          method: op.method as 'GET',
          url,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(d.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          payload: d.body,
        }),
        new Promise<null>((r) => (timer = setTimeout(() => r(null), HANG_MS))),
      ]);
      clearTimeout(timer);
      const what = `${op.method} ${url.slice(0, 120)} body=${(d.body ?? '').slice(0, 120)}`;
      if (res === null) {
        failures.push(`hang (> ${HANG_MS} ms): ${what}`);
        continue;
      }
      if (res.statusCode === 500) {
        fiveHundreds++;
        failures.push(`${res.statusCode} after ${Date.now() - started} ms: ${what} → ${res.body.slice(0, 200)}`);
        continue;
      }
      const json = String(res.headers['content-type'] ?? '').includes('json');
      if (res.statusCode >= 400 || !op.nonJson) {
        let parsed = false;
        try {
          JSON.parse(res.body);
          parsed = json;
        } catch {
          parsed = false;
        }
        if (!parsed && !(res.statusCode === 204 && res.body === '')) failures.push(`non-JSON ${res.statusCode} (${res.headers['content-type']}): ${what} → ${res.body.slice(0, 120)}`);
      }
    }
    console.log(`fuzz: ${drawn.length} requests, ${fiveHundreds} × 500 (seed ${SEED}, ${operations.length} routes)`);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 180_000);
});
