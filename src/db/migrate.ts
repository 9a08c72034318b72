import fs from 'node:fs';
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

/**
 * Checked-in migrations the database has not applied yet (their tags), read the way the
 * migrator decides: every journal entry newer than the last applied one.
 */
export async function pendingMigrations(url: string): Promise<string[]> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: [table] } = await client.query<{ t: string | null }>(`SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t`);
    let last = -Infinity;
    if (table.t) {
      const { rows } = await client.query<{ last: string | null }>('SELECT max(created_at)::text AS last FROM drizzle.__drizzle_migrations');
      if (rows[0].last !== null) last = Number(rows[0].last);
    }
    return journal.entries.filter((e) => e.when > last).map((e) => e.tag);
  } finally {
    await client.end();
  }
}
