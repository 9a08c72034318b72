import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema.js';

export type Db = NodePgDatabase<typeof schema>;

export interface Database {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

/** One pool per process; every session speaks UTC so timestamps read back unambiguously. */
export function connect(url: string, opts: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 20,
    application_name: opts.applicationName ?? 'switchboard',
    options: '-c TimeZone=UTC',
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', () => {
    /* an idle client died (e.g. server restart); the pool replaces it */
  });
  const db = drizzle(pool, { schema });
  let closed = false;
  return {
    pool,
    db,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
