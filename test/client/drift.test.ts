/**
 * The client package's schema (packages/client/src/schema.d.ts) must be exactly what
 * openapi-typescript makes of the service's OpenAPI document today: a route changed without
 * `npm run client:generate` fails here.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientSchemaSource, openApiDocument, SCHEMA_FILE } from '../../scripts/client.js';
import { startTestService } from '../support/service.js';

describe('generated client', () => {
  it('matches the OpenAPI document (run `npm run client:generate` when this fails)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sb-client-'));
    try {
      const fresh = path.join(dir, 'schema.d.ts');
      await writeFile(fresh, await clientSchemaSource());
      const generated = await readFile(fresh, 'utf8');
      const checkedIn = await readFile(SCHEMA_FILE, 'utf8');
      expect(generated === checkedIn, 'packages/client/src/schema.d.ts is out of date: run `npm run client:generate`').toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is generated from the document the running service serves', async () => {
    const t = await startTestService();
    try {
      const served = (await t.anonymous.get('/openapi.json')).body;
      expect(await openApiDocument()).toEqual(served);
    } finally {
      await t.close();
    }
  });
});
