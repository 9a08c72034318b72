/**
 * The typed API client (packages/client) is generated from the service's own OpenAPI
 * document. `npm run client:generate` rewrites packages/client/src/schema.d.ts; the test
 * test/client/drift.test.ts generates into memory and fails when the checked-in file differs.
 *
 * The document comes from the app itself, built without a database: routes only describe
 * themselves at registration, and the pool connects on first use, which never comes.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { loadConfig } from '../src/config.js';
import { AdminAuth } from '../src/accounts/admin-token.js';
import { TokenCache } from '../src/accounts/token-cache.js';
import { connect } from '../src/db/pool.js';
import { buildApp } from '../src/http/app.js';
import { carriersFromConfig, providersFromConfig } from '../src/compose.js';
import { createLogger } from '../src/logger.js';
import { Metrics } from '../src/observability/metrics.js';
import { recordingStoreFor } from '../src/recordings/store.js';

export const SCHEMA_FILE = fileURLToPath(new URL('../packages/client/src/schema.d.ts', import.meta.url));

/**
 * The OpenAPI document the service serves at /openapi.json, with fixed public addresses: of
 * a service with every route on, as `switchboard` runs. Twilio's callbacks are always served
 * (accounts may store their own Twilio credentials), recording links wherever there is a
 * deployment key (SECRET_KEY, or the embedded setup's generated one).
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN: 'x'.repeat(32), RATE_LIMIT_PER_MINUTE: '0', SECRET_KEY: 'k'.repeat(32) });
  const database = connect('postgres://unused@127.0.0.1:1/unused', { max: 1 });
  const log = createLogger('silent');
  const app = await buildApp({
    config,
    database,
    log,
    tokens: new TokenCache(database.db),
    adminAuth: new AdminAuth(database.db, config.ADMIN_TOKEN),
    carriers: carriersFromConfig(config, { twilioAccounts: async () => null }),
    providers: providersFromConfig(config),
    recordings: recordingStoreFor(config),
    instanceId: 'openapi',
    // Every service process has metrics (src/service.ts), so /metrics is served.
    services: { metrics: new Metrics() },
  });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}

const HEADER = `/**
 * Generated from Switchboard's OpenAPI document by openapi-typescript: do not edit.
 * Regenerate with \`npm run client:generate\` after changing a route.
 */

`;

/** The TypeScript declarations of the document's paths, as checked in. */
export async function clientSchemaSource(doc?: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS((doc ?? (await openApiDocument())) as never, { alphabetize: true });
  return HEADER + astToString(ast);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(SCHEMA_FILE, await clientSchemaSource());
  console.log(`wrote ${SCHEMA_FILE}`);
}
