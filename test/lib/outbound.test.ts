import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReceiver, type Received, type Receiver } from '../support/receiver.js';
import { addressBlockReason, BlockedTargetError, checkTarget, outboundRequest, OutboundTimeoutError } from '../../src/lib/outbound.js';

let server: Receiver;
let base: string;
let seen: Received[];

beforeAll(async () => {
  server = await startReceiver((req) => {
    if (req.path === '/slow') return { body: 'late', delayMs: 500 };
    if (req.path === '/redirect') return { status: 302, headers: { location: '/elsewhere' } };
    if (req.path === '/big') return { body: 'x'.repeat(100_000) };
    return { body: JSON.stringify({ ok: true, echo: req.body }) };
  });
  base = server.url;
  seen = server.received;
});
afterAll(() => server.close());

describe('address guard', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.0.0.5', true],
    ['192.168.1.1', true],
    ['172.16.0.1', true],
    ['::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
  ])('refuses the private address %s unless private targets are allowed', (addr) => {
    expect(addressBlockReason(addr, false)).not.toBeNull();
    expect(addressBlockReason(addr, true)).toBeNull();
  });

  it.each(['169.254.169.254', 'fe80::1', '0.0.0.0', '224.0.0.1', '::ffff:169.254.169.254'])(
    'always refuses %s (link-local, metadata, unspecified, multicast)',
    (addr) => {
      expect(addressBlockReason(addr, true)).not.toBeNull();
    },
  );

  it('allows public addresses', () => {
    expect(addressBlockReason('93.184.216.34', false)).toBeNull();
    expect(addressBlockReason('2606:2800:220:1:248:1893:25c8:1946', false)).toBeNull();
  });

  it('checks every address a host name resolves to', async () => {
    const spy = vi.spyOn(dns.promises, 'lookup').mockResolvedValue([
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ] as never);
    await expect(checkTarget('http://mixed.example/x', false)).rejects.toBeInstanceOf(BlockedTargetError);
    spy.mockResolvedValue([{ address: '169.254.169.254', family: 4 }] as never);
    await expect(checkTarget('http://metadata.example/latest', true)).rejects.toBeInstanceOf(BlockedTargetError);
    spy.mockRestore();
  });

  it('refuses non-http schemes', async () => {
    await expect(checkTarget('file:///etc/passwd', true)).rejects.toBeInstanceOf(BlockedTargetError);
    await expect(checkTarget('ftp://example.com/', true)).rejects.toBeInstanceOf(BlockedTargetError);
  });
});

describe('outboundRequest', () => {
  it('refuses loopback without allowPrivate, before connecting', async () => {
    const before = seen.length;
    await expect(outboundRequest({ url: `${base}/x`, method: 'GET', timeoutMs: 1000, allowPrivate: false })).rejects.toBeInstanceOf(BlockedTargetError);
    expect(seen.length).toBe(before);
  });

  it('sends method, headers and body, and returns status and body', async () => {
    const res = await outboundRequest({
      url: `${base}/echo?a=1`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'secret' },
      body: '{"x":1}',
      timeoutMs: 2000,
      allowPrivate: true,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, echo: '{"x":1}' });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: '/echo?a=1', body: '{"x":1}' });
    expect(last.headers['x-api-key']).toBe('secret');
  });

  it('does not follow redirects', async () => {
    const res = await outboundRequest({ url: `${base}/redirect`, method: 'GET', timeoutMs: 2000, allowPrivate: true });
    expect(res.status).toBe(302);
    expect(seen.at(-1)!.path).toBe('/redirect');
  });

  it('caps the response size', async () => {
    const res = await outboundRequest({ url: `${base}/big`, method: 'GET', timeoutMs: 2000, allowPrivate: true, maxResponseBytes: 1000 });
    expect(res.body.length).toBe(1000);
    expect(res.truncated).toBe(true);
  });

  it('stops reading an endless body at the cap, long before the timeout', async () => {
    const endless = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const block = Buffer.alloc(64 * 1024, 'y');
      const pump = () => {
        while (!res.destroyed) if (!res.write(block)) return void res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    try {
      const started = performance.now();
      const res = await outboundRequest({ url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/`, method: 'GET', timeoutMs: 10_000, allowPrivate: true, maxResponseBytes: 100_000 });
      expect(res.body.length).toBe(100_000);
      expect(res.truncated).toBe(true);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      endless.closeAllConnections();
      await new Promise((r) => endless.close(r));
    }
  });

  it('times out', async () => {
    await expect(outboundRequest({ url: `${base}/slow`, method: 'GET', timeoutMs: 100, allowPrivate: true })).rejects.toBeInstanceOf(OutboundTimeoutError);
  });
});
