import dns from 'node:dns';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { toolFunction, ToolRunner, type MidCallTool } from '../../src/calls/tool-runner.js';
import { startReceiver, type Received, type Receiver } from '../support/receiver.js';

const log = pino({ level: 'silent' });
let server: Receiver;
let base: string;
let seen: Received[];

beforeAll(async () => {
  server = await startReceiver((req) => {
    if (req.path.startsWith('/slow')) return { body: 'late', delayMs: 1500 };
    if (req.path.startsWith('/big')) return { body: 'y'.repeat(50_000), headers: { 'content-type': 'text/plain' } };
    if (req.path.startsWith('/text')) return { status: 503, body: 'down for maintenance', headers: { 'content-type': 'text/plain' } };
    return { body: JSON.stringify({ slots: ['10:00', '11:00'] }) };
  });
  base = server.url;
  seen = server.received;
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

function tool(overrides: Partial<MidCallTool> = {}): MidCallTool {
  return {
    id: 1,
    name: 'check_slots',
    description: 'Checks free appointment slots',
    endpoint: `${base}/slots`,
    method: 'GET',
    timeout: 5,
    headers: [{ name: 'X-Api-Key', value: 'secret-1' }],
    schema: [
      { name: 'day', type: 'string', description: 'The day' },
      { name: 'people', type: 'number', description: 'How many people' },
      { name: 'urgent', type: 'boolean', description: 'Urgent?' },
    ],
    ...overrides,
  };
}

const allowed = new ToolRunner({ allowPrivate: true, log });
const guarded = new ToolRunner({ allowPrivate: false, log });

describe('tool schema → LLM function', () => {
  it('turns each schema item into a typed, required JSON-schema property', () => {
    expect(toolFunction(tool())).toEqual({
      name: 'check_slots',
      description: 'Checks free appointment slots',
      parameters: {
        type: 'object',
        properties: {
          day: { type: 'string', description: 'The day' },
          people: { type: 'number', description: 'How many people' },
          urgent: { type: 'boolean', description: 'Urgent?' },
        },
        required: ['day', 'people', 'urgent'],
        additionalProperties: false,
      },
    });
  });
});

describe('tool requests', () => {
  it('GET sends the arguments as the query string with the tool headers', async () => {
    const out = await allowed.run(tool(), JSON.stringify({ day: 'monday', people: 2, urgent: true, extra: 'dropped' }));
    const req = seen.at(-1)!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/slots?day=monday&people=2&urgent=true');
    expect(req.headers['x-api-key']).toBe('secret-1');
    expect(req.body).toBe('');
    expect(out).toMatchObject({ ok: true, status: 200 });
    expect(JSON.parse(out.content)).toEqual({ status: 200, body: { slots: ['10:00', '11:00'] } });
  });

  it('DELETE also uses the query string, keeping the endpoint’s own query', async () => {
    await allowed.run(tool({ method: 'DELETE', endpoint: `${base}/slots?tenant=7` }), JSON.stringify({ day: 'friday' }));
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', path: '/slots?tenant=7&day=friday', body: '' });
  });

  it.each(['POST', 'PUT', 'PATCH'])('%s sends the arguments as a JSON body', async (method) => {
    await allowed.run(tool({ method }), JSON.stringify({ day: 'monday', people: 3, urgent: false }));
    const req = seen.at(-1)!;
    expect(req.method).toBe(method);
    expect(req.path).toBe('/slots');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ day: 'monday', people: 3, urgent: false });
  });

  it('passes a non-2xx answer and a text body on to the LLM', async () => {
    const out = await allowed.run(tool({ endpoint: `${base}/text` }), '{}');
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.content)).toEqual({ status: 503, body: 'down for maintenance' });
  });

  it('caps the answer size and says so', async () => {
    const out = await allowed.run(tool({ endpoint: `${base}/big` }), '{}');
    const parsed = JSON.parse(out.content);
    expect(parsed.truncated).toBe(true);
    expect(parsed.body.length).toBe(16 * 1024);
  });

  it('reports a timeout to the LLM after the tool’s timeout', async () => {
    const out = await allowed.run(tool({ endpoint: `${base}/slow`, timeout: 1 }), '{}');
    expect(out.ok).toBe(false);
    expect(JSON.parse(out.content)).toEqual({ error: 'the tool did not answer within 1 seconds' });
  });

  it('reports arguments that are not a JSON object without sending anything', async () => {
    const before = seen.length;
    for (const args of ['not json', '[1,2]', '"text"']) {
      const out = await allowed.run(tool(), args);
      expect(out.ok).toBe(false);
      expect(JSON.parse(out.content).error).toMatch(/^invalid arguments/);
    }
    expect(seen.length).toBe(before);
  });
});

describe('blocked targets', () => {
  it.each(['http://127.0.0.1:9/x', 'http://10.0.0.5/x', 'http://169.254.169.254/latest/meta-data'])(
    'refuses %s without ALLOW_PRIVATE_TARGETS',
    async (endpoint) => {
      const out = await guarded.run(tool({ endpoint }), '{}');
      expect(out.ok).toBe(false);
      expect(JSON.parse(out.content).error).toMatch(/^the tool endpoint is not allowed/);
    },
  );

  it.each(['127.0.0.1', '10.0.0.5', '169.254.169.254'])('refuses a host name resolving to %s', async (address) => {
    vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address, family: 4 }] as never);
    const out = await guarded.run(tool({ endpoint: 'http://tools.example.test/x' }), '{}');
    expect(JSON.parse(out.content).error).toMatch(/tools\.example\.test resolves to/);
  });

  it('allows loopback and private addresses with ALLOW_PRIVATE_TARGETS', async () => {
    const out = await allowed.run(tool(), '{}');
    expect(out.ok).toBe(true);
  });

  it('refuses the metadata address even with ALLOW_PRIVATE_TARGETS, literal or resolved', async () => {
    const literal = await allowed.run(tool({ endpoint: 'http://169.254.169.254/latest/meta-data' }), '{}');
    expect(JSON.parse(literal.content).error).toMatch(/^the tool endpoint is not allowed/);
    vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '169.254.169.254', family: 4 }] as never);
    const resolved = await allowed.run(tool({ endpoint: 'http://metadata.example.test/' }), '{}');
    expect(JSON.parse(resolved.content).error).toMatch(/resolves to/);
  });
});
