/**
 * The operator's three views of the settings agree: what src/config.ts reads, the README's
 * configuration table, and .env.example.
 */
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '../src/config.js';
import { envExampleSettings, readmeSettings } from './support/configuration-table.js';

describe('configuration documentation', () => {
  it('reads the table and the example it checks', () => {
    // A broken parser would find nothing and pass.
    expect(readmeSettings()).toContain('DATABASE_URL');
    expect(readmeSettings().length).toBeGreaterThan(20);
    expect(envExampleSettings()).toContain('PORT');
  });

  it('documents every setting the service reads in the README table', () => {
    expect([...SETTING_NAMES].sort().filter((n) => !readmeSettings().includes(n))).toEqual([]);
  });

  it('documents no setting the service does not read', () => {
    expect(readmeSettings().filter((n) => !SETTING_NAMES.includes(n))).toEqual([]);
  });

  it('lists every setting of the README table in .env.example, and nothing else', () => {
    expect(envExampleSettings()).toEqual(readmeSettings());
  });
});
