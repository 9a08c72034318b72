/**
 * The operator's three views of the settings agree: what src/config.ts reads, the
 * configuration reference generated from it (docs/configuration.md), and .env.example.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationReference, REFERENCE_PATH } from '../scripts/config-reference.js';
import { SETTING_GROUPS, SETTING_NAMES } from '../src/config.js';
import { documentedSettings, envExampleSettings } from './support/configuration-table.js';

describe('configuration documentation', () => {
  it('reads the reference and the example it checks', () => {
    // A broken parser would find nothing and pass.
    expect(documentedSettings()).toContain('DATABASE_URL');
    expect(documentedSettings().length).toBeGreaterThan(20);
    expect(envExampleSettings()).toContain('PORT');
  });

  it('the checked-in reference is the one src/config.ts makes (run `npx tsx scripts/config-reference.ts`)', () => {
    expect(fs.readFileSync(REFERENCE_PATH, 'utf8')).toBe(configurationReference());
  });

  it('documents every setting the service reads, once, and nothing else', () => {
    expect(documentedSettings()).toEqual([...SETTING_NAMES].sort());
    expect(SETTING_GROUPS.flatMap((g) => Object.keys(g.settings)).sort()).toEqual([...SETTING_NAMES].sort());
  });

  it('describes every setting', () => {
    for (const group of SETTING_GROUPS) {
      for (const [name, schema] of Object.entries(group.settings)) expect(schema.description, name).toMatch(/\S.{10,}/);
    }
  });

  it('shows defaults as the service applies them', () => {
    const reference = fs.readFileSync(REFERENCE_PATH, 'utf8');
    expect(reference).toContain('| `PORT` | `8080` |');
    expect(reference).toContain('| `WEBHOOK_RETRY_SCHEDULE` | `5,300,1800,7200,18000,36000,36000` |');
    expect(reference).toContain('| `ALLOW_PRIVATE_TARGETS` | `false` |');
    expect(reference).toContain('| `DATABASE_URL` | unset |');
  });

  it('lists every setting in .env.example, and nothing else', () => {
    expect(envExampleSettings()).toEqual([...SETTING_NAMES].sort());
  });
});
