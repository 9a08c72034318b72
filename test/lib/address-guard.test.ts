/**
 * The SSRF guard decides on the IPv4 an IPv6 address carries (issue 15): one row per form,
 * each with a private, an always-refused and a public example.
 */
import { describe, expect, it } from 'vitest';
import { addressBlockReason } from '../../src/lib/address-guard.js';
import { BlockedTargetError, outboundRequest } from '../../src/lib/outbound.js';

// [address, form, refused without ALLOW_PRIVATE_TARGETS, refused even with it]
const TABLE: [string, string, boolean, boolean][] = [
  // plain addresses, for reference
  ['127.0.0.1', 'IPv4 loopback', true, false],
  ['169.254.169.254', 'IPv4 metadata', true, true],
  ['93.184.216.34', 'IPv4 public', false, false],
  ['::1', 'IPv6 loopback', true, false],
  ['::', 'IPv6 unspecified', true, true],
  // IPv4-mapped ::ffff:0:0/96
  ['::ffff:127.0.0.1', 'IPv4-mapped, dotted', true, false],
  ['::ffff:7f00:1', 'IPv4-mapped, hex', true, false],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata', true, true],
  ['::ffff:5db8:d822', 'IPv4-mapped public', false, false],
  // IPv4-translated ::ffff:0:0:0/96
  ['::ffff:0:7f00:1', 'IPv4-translated loopback', true, false],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated metadata', true, true],
  ['::ffff:0:5db8:d822', 'IPv4-translated public', false, false],
  // IPv4-compatible ::/96
  ['::7f00:1', 'IPv4-compatible loopback', true, false],
  ['::127.0.0.1', 'IPv4-compatible loopback, dotted', true, false],
  ['::a9fe:a9fe', 'IPv4-compatible metadata', true, true],
  ['::a00:5', 'IPv4-compatible private 10.0.0.5', true, false],
  ['::5db8:d822', 'IPv4-compatible public', false, false],
  // NAT64 64:ff9b::/96 and local-use 64:ff9b:1::/48
  ['64:ff9b::7f00:1', 'NAT64 loopback', true, false],
  ['64:ff9b::a9fe:a9fe', 'NAT64 metadata', true, true],
  ['64:ff9b::5db8:d822', 'NAT64 public', false, false],
  ['64:ff9b:1::5db8:d822', 'local-use NAT64', true, true],
  // 6to4 2002::/16
  ['2002:7f00:1::', '6to4 loopback', true, false],
  ['2002:a9fe:a9fe::1', '6to4 metadata', true, true],
  ['2002:c0a8:101::1', '6to4 private 192.168.1.1', true, false],
  ['2002:5db8:d822::1', '6to4 public', false, false],
  // Teredo 2001::/32: server 65.54.227.120 (public), client obfuscated (inverted)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo client 127.0.0.1 (obfuscated 80ff:fffe)', true, false],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'Teredo client 169.254.169.254 (obfuscated)', true, true],
  ['2001:0:4136:e378:8000:63bf:a247:27dd', 'Teredo client 93.184.216.34 (obfuscated)', false, false],
  ['2001:0:7f00:1:8000:63bf:a247:27dd', 'Teredo server 127.0.0.1', true, false],
  ['2001:0:4136:e378:8000:63bf:7f00:1', 'Teredo whose raw tail looks like loopback, client 128.255.255.254', false, false],
  // site-local fec0::/10, link-local, unique local
  ['fec0::1', 'site-local (deprecated)', true, true],
  ['feff::1', 'site-local (deprecated), top of range', true, true],
  ['fe80::1', 'link-local', true, true],
  ['fd00::1', 'unique local', true, false],
  ['2606:2800:220:1:248:1893:25c8:1946', 'IPv6 public', false, false],
];

describe('address guard on normalised addresses', () => {
  it.each(TABLE)('%s (%s)', (address, _form, refusedByDefault, alwaysRefused) => {
    expect(addressBlockReason(address, false) !== null).toBe(refusedByDefault);
    expect(addressBlockReason(address, true) !== null).toBe(alwaysRefused);
  });

  it('names the carried address in the reason', () => {
    expect(addressBlockReason('::7f00:1', false)).toBe('loopback address (carried in ::7f00:1)');
  });
});

describe('outbound requests to carried addresses', () => {
  it.each(['http://[::7f00:1]:9/x', 'http://[::ffff:0:7f00:1]:9/x', 'http://[64:ff9b::a9fe:a9fe]/latest', 'http://[fec0::1]/'])(
    'refuses %s before connecting',
    async (url) => {
      await expect(outboundRequest({ url, method: 'GET', timeoutMs: 1000, allowPrivate: false })).rejects.toBeInstanceOf(BlockedTargetError);
    },
  );
});
