import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEnvFile } from '../src/env-file.js';

describe('.env in the working directory', () => {
  const names = ['SB_ENV_FILE_ONLY', 'SB_ENV_FILE_BOTH'];
  afterEach(() => {
    for (const name of names) delete process.env[name];
  });

  it('sets what the file names, and the process environment wins over it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-env-'));
    writeFileSync(path.join(dir, '.env'), 'SB_ENV_FILE_ONLY=from-file\nSB_ENV_FILE_BOTH=from-file\n');
    process.env.SB_ENV_FILE_BOTH = 'from-environment';
    expect(loadEnvFile(dir)).toBe(path.join(dir, '.env'));
    expect(process.env.SB_ENV_FILE_ONLY).toBe('from-file');
    expect(process.env.SB_ENV_FILE_BOTH).toBe('from-environment');
  });

  it('is optional', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-env-'));
    expect(loadEnvFile(dir)).toBeNull();
    expect(process.env.SB_ENV_FILE_ONLY).toBeUndefined();
  });
});
