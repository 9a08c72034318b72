import { describe, expect, it } from 'vitest';
import { deriveKey } from '../../src/lib/secrets.js';
import { RecordingLinks } from '../../src/recordings/links.js';

describe('signed recording links', () => {
  const key = deriveKey('a deployment key of enough length 0123456789', 'links');
  let now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const links = new RecordingLinks('https://sb.example', key, 3600, () => now);

  function parts(link: string) {
    const url = new URL(link);
    return { path: url.pathname, expires: url.searchParams.get('expires'), signature: url.searchParams.get('signature') };
  }

  it('links to the service, valid until the TTL runs out', () => {
    const link = links.linkFor(17);
    const { path, expires, signature } = parts(link);
    expect(link.startsWith('https://sb.example/recordings/17.wav?')).toBe(true);
    expect(path).toBe('/recordings/17.wav');
    expect(Number(expires)).toBe(now / 1000 + 3600);
    expect(links.check(17, expires, signature)).toBeNull();
    now += 3599_000;
    expect(links.check(17, expires, signature)).toBeNull();
    now += 1000;
    expect(links.check(17, expires, signature)).toBe('expired');
  });

  it('refuses an altered signature, expiry or call id, and another key', () => {
    now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const { expires, signature } = parts(links.linkFor(17));
    const flipped = signature!.slice(0, -1) + (signature!.endsWith('A') ? 'B' : 'A');
    expect(links.check(17, expires, flipped)).toBe('invalid');
    expect(links.check(17, String(Number(expires) + 3600), signature)).toBe('invalid');
    expect(links.check(18, expires, signature)).toBe('invalid');
    expect(links.check(17, undefined, signature)).toBe('invalid');
    expect(links.check(17, expires, undefined)).toBe('invalid');
    expect(links.check(17, '1e9', signature)).toBe('invalid');
    const other = new RecordingLinks('https://sb.example', deriveKey('another deployment key 0123456789abcdef', 'links'), 3600, () => now);
    expect(other.check(17, expires, signature)).toBe('invalid');
    // A key derived for another purpose from the same secret does not sign links.
    const credentials = new RecordingLinks('https://sb.example', deriveKey('a deployment key of enough length 0123456789', 'credentials'), 3600, () => now);
    expect(credentials.check(17, expires, signature)).toBe('invalid');
  });
});
