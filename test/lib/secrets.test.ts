import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveKey, maskSecret, resolveSecretKey, seal, SealedSecretError, sign, unseal, verifySignature } from '../../src/lib/secrets.js';

describe('secrets', () => {
  const key = deriveKey('a deployment key of enough length 0123456789', 'credentials');

  it('seals and opens a secret; the sealed text does not contain it', () => {
    const sealed = seal('sk_live_abcdef123456', key);
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(sealed).not.toContain('abcdef');
    expect(unseal(sealed, key)).toBe('sk_live_abcdef123456');
    expect(seal('same', key)).not.toBe(seal('same', key)); // fresh IV each time
  });

  it('refuses an altered sealed secret, another key, and another purpose', () => {
    const sealed = seal('secret', key);
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.at(-1);
    expect(() => unseal(flipped, key)).toThrow(SealedSecretError);
    expect(() => unseal(sealed, deriveKey('another deployment key 0123456789abcdef', 'credentials'))).toThrow(SealedSecretError);
    expect(() => unseal(sealed, deriveKey('a deployment key of enough length 0123456789', 'links'))).toThrow(SealedSecretError);
    expect(() => unseal('plain text', key)).toThrow(SealedSecretError);
  });

  it('signs links and checks them in constant time', () => {
    const links = deriveKey('k'.repeat(40), 'links');
    const sig = sign('recording/17?exp=100', links);
    expect(verifySignature('recording/17?exp=100', sig, links)).toBe(true);
    expect(verifySignature('recording/18?exp=100', sig, links)).toBe(false);
    expect(verifySignature('recording/17?exp=100', sig.slice(1), links)).toBe(false);
  });

  it('masks all but the last four characters', () => {
    expect(maskSecret('sk_live_abcdef123456')).toBe('••••3456');
    expect(maskSecret('short')).toBe('••••');
  });

  it('embedded setup: generates one key in DATA_DIR and keeps it; external setup without SECRET_KEY has none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-secret-'));
    try {
      const first = resolveSecretKey({ DATA_DIR: dir });
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(resolveSecretKey({ DATA_DIR: dir })).toBe(first);
      expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(resolveSecretKey({ DATA_DIR: dir, SECRET_KEY: 'from-env' })).toBe('from-env');
      expect(resolveSecretKey({ DATA_DIR: dir, DATABASE_URL: 'postgres://x/y' })).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
