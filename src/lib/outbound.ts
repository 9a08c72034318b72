/**
 * Outbound HTTP to customer-supplied URLs (mid-call tools, webhooks), with a guard against
 * server-side request forgery:
 *
 * - every address a host name resolves to is checked, and the connection is pinned to the
 *   checked address (no DNS-rebinding window between check and connect);
 * - addresses are judged after unwrapping the IPv4 an IPv6 form carries (src/lib/address-guard.ts);
 * - link-local addresses (169.254.0.0/16 incl. cloud metadata, fe80::/10), site-local
 *   (fec0::/10), unspecified, multicast, broadcast and reserved ranges are always refused;
 * - loopback, private (RFC 1918, fc00::/7) and carrier-grade NAT ranges are refused unless
 *   `allowPrivate` (ALLOW_PRIVATE_TARGETS);
 * - redirects are never followed, responses are size-capped, one timeout covers the
 *   whole exchange.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { addressBlockReason } from './address-guard.js';

export { addressBlockReason };

export class BlockedTargetError extends Error {
  constructor(readonly target: string, reason: string) {
    super(`Target ${target} is not allowed: ${reason}`);
  }
}

export class OutboundTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms`);
  }
}

export interface OutboundRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Response bytes kept; the rest is discarded and `truncated` set. Default 64 KiB. */
  maxResponseBytes?: number;
  allowPrivate: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
  durationMs: number;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function parseUrl(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new BlockedTargetError(target, 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BlockedTargetError(target, 'only http and https are allowed');
  return url;
}

async function resolveChecked(host: string, allowPrivate: boolean, target: string): Promise<dns.LookupAddress[]> {
  if (net.isIP(host)) {
    const reason = addressBlockReason(host, allowPrivate);
    if (reason) throw new BlockedTargetError(target, reason);
    return [{ address: host, family: net.isIP(host) }];
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw Object.assign(new Error(`Could not resolve ${host}: ${(err as Error).message}`), { code: 'ENOTFOUND' });
  }
  for (const a of addresses) {
    const reason = addressBlockReason(a.address, allowPrivate);
    if (reason) throw new BlockedTargetError(target, `${host} resolves to a ${reason}`);
  }
  return addresses;
}

/** Throws BlockedTargetError when the URL may not be called. */
export async function checkTarget(target: string, allowPrivate: boolean): Promise<void> {
  const url = parseUrl(target);
  await resolveChecked(hostOf(url), allowPrivate, target);
}

export async function outboundRequest(req: OutboundRequest): Promise<OutboundResponse> {
  const url = parseUrl(req.url);
  const started = performance.now();
  const host = hostOf(url);
  const addresses = await resolveChecked(host, req.allowPrivate, req.url);
  const pinned = addresses[0];
  const maxBytes = req.maxResponseBytes ?? 64 * 1024;
  const client = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = { 'user-agent': 'Switchboard/0.1', ...req.headers };
  if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const request = client.request(
      url,
      {
        method: req.method,
        headers,
        // Connect to the address we checked, never to a fresh resolution.
        lookup: (_hostname: string, options: dns.LookupOptions, cb: (...args: any[]) => void) => {
          if (options && (options as { all?: boolean }).all) cb(null, [pinned]);
          else cb(null, pinned.address, pinned.family);
        },
        servername: net.isIP(host) ? undefined : host,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = (truncated: boolean) =>
          finish(() => {
            const out: Record<string, string> = {};
            for (const [k, val] of Object.entries(res.headers)) if (val !== undefined) out[k] = Array.isArray(val) ? val.join(', ') : val;
            resolve({
              status: res.statusCode ?? 0,
              headers: out,
              body: Buffer.concat(chunks).toString('utf8'),
              truncated,
              durationMs: Math.round(performance.now() - started),
            });
          });
        res.on('data', (chunk: Buffer) => {
          const room = maxBytes - size;
          if (chunk.length <= room) {
            chunks.push(chunk);
            size += chunk.length;
            return;
          }
          // Past the cap: answer with what fits and stop reading at once (an endless body
          // would otherwise be received, and thrown away, until the timeout).
          chunks.push(chunk.subarray(0, room));
          size = maxBytes;
          answer(true);
          request.destroy();
        });
        res.on('end', () => answer(false));
        res.on('error', (err) => finish(() => reject(err)));
      },
    );
    const timer = setTimeout(() => {
      finish(() => reject(new OutboundTimeoutError(req.timeoutMs)));
      request.destroy();
    }, req.timeoutMs);
    request.on('error', (err) => finish(() => reject(err)));
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}
