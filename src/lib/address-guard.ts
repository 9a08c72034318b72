/**
 * Whether an IP address may be the target of a request to a customer-supplied URL (the SSRF
 * guard of src/lib/outbound.ts). The decision is made on a normalised address: every IPv6
 * form that carries an IPv4 address is unwrapped to that IPv4 first, so `[::7f00:1]` is judged
 * as 127.0.0.1, not as "some global IPv6":
 *
 * | form | prefix | IPv4 in |
 * |---|---|---|
 * | IPv4-mapped | ::ffff:0:0/96 | the last 32 bits |
 * | IPv4-translated (SIIT) | ::ffff:0:0:0/96 | the last 32 bits |
 * | IPv4-compatible (deprecated) | ::/96 (not :: and ::1) | the last 32 bits |
 * | NAT64 well-known | 64:ff9b::/96 | the last 32 bits |
 * | NAT64 local-use | 64:ff9b:1::/48 | prefix-length dependent: refused |
 * | 6to4 | 2002::/16 | bits 16–47 |
 * | Teredo | 2001::/32 | client: the last 32 bits inverted; server: bits 32–63 |
 *
 * Deprecated site-local (fec0::/10) is refused like link-local: no public service lives there.
 */
import ipaddr from 'ipaddr.js';

const ALWAYS_BLOCKED = new Set([
  'linkLocal', 'unspecified', 'multicast', 'broadcast', 'reserved', 'benchmarking', 'amt', 'as112', 'as112v6',
  'deprecated', 'deprecatedSiteLocal', 'orchid2', 'droneRemoteIdProtocolEntityTags', 'discard',
]);
const PRIVATE = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat', 'rfc6598']);

function v4(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/** The IPv4 addresses an IPv6 address carries (several for Teredo), [] for none; null: refuse outright. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const b = address.toByteArray();
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last32 = b.slice(12, 16);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return [v4(last32)]; // ::ffff:a.b.c.d
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return [v4(last32)]; // ::ffff:0:a.b.c.d
  if (zero(0, 12)) {
    // :: and ::1 are themselves (unspecified, loopback); everything else in ::/96 is IPv4-compatible.
    if (zero(12, 15) && b[15] <= 1) return [];
    return [v4(last32)];
  }
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(4, 12)) return [v4(last32)]; // 64:ff9b::/96
    if (b[4] === 0x00 && b[5] === 0x01) return null; // 64:ff9b:1::/48: where the IPv4 sits depends on the operator's prefix
  }
  if (b[0] === 0x20 && b[1] === 0x02) return [v4(b.slice(2, 6))]; // 6to4
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) {
    // Teredo: the client's address is stored inverted ("obfuscated"); the server's is plain.
    return [v4(last32.map((x) => x ^ 0xff)), v4(b.slice(4, 8))];
  }
  return [];
}

/** Why an address may not be called, or null when it may. */
export function addressBlockReason(address: string, allowPrivate: boolean): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const carried = embeddedIPv4(parsed as ipaddr.IPv6);
    if (carried === null) return 'local-use NAT64 address';
    for (const inner of carried) {
      const reason = rangeBlockReason(inner, allowPrivate);
      if (reason) return `${reason} (carried in ${parsed.toString()})`;
    }
    if (carried.length > 0) return null;
  }
  return rangeBlockReason(parsed, allowPrivate);
}

function rangeBlockReason(parsed: ipaddr.IPv4 | ipaddr.IPv6, allowPrivate: boolean): string | null {
  const range = parsed.range();
  if (ALWAYS_BLOCKED.has(range)) return `${range} address`;
  if (PRIVATE.has(range) && !allowPrivate) return `${range} address`;
  return null;
}
