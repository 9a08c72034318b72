import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

/** Checked-in SQL lives in src/db/migrations; this resolves from src/db and from dist/db alike. */
export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');

const MIGRATION_LOCK = 727_001;

/** Applies pending migrations. Several instances starting at once serialise on an advisory lock. */
export async function runMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC -c client_min_messages=warning' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}
