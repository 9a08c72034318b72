import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema.js';

export type Db = NodePgDatabase<typeof schema>;

/** The rows of a raw `db.execute(sql…)` result, typed by the caller (drizzle types them `unknown`). */
export function rowsOf<T>(res: { rows: unknown[] }): T[] {
  return res.rows as T[];
}

export interface Database {
  /** The connection string the pools were made with: parts open their own connections from it (LISTEN, their own pools). */
  url: string;
  pool: pg.Pool;
  db: Db;
  /**
   * A second, smaller pool whose sessions always run the generic plan of a named statement
   * (`plan_cache_mode = force_generic_plan`): for hot statements whose generic plans are known
   * to be right for every parameter value, and which PostgreSQL's default would re-plan on
   * every execution (LIMIT/OFFSET parameters make the generic plan look costlier than it is).
   * Only statements checked that way run here; see `listCalls`.
   */
  genericPlans: pg.Pool;
  close(): Promise<void>;
}

/**
 * Runs `fn` on one pooled client inside BEGIN … COMMIT, rolling back when it throws. For
 * raw-SQL hot paths and for pg-boss jobs that must commit together with our rows.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs `fn` for each item inside one transaction (one commit for a batch of housekeeping rows
 * instead of one each), where an item that throws fails alone: it is rolled back and handed to
 * `failed`, and the others commit together. Returns the items that succeeded, with their
 * results. The batch is first tried as it is (no savepoint round trips); only if that fails is
 * it run again with each item in a savepoint of its own, so `fn` must be safe to run again after
 * a rollback. Throws, keeping none of them, when the transaction itself fails (BEGIN, COMMIT, a
 * lost connection).
 */
export async function eachInBatchTransaction<T, R>(
  pool: pg.Pool,
  items: readonly T[],
  fn: (client: pg.PoolClient, item: T) => Promise<R>,
  failed: (item: T, err: unknown) => void,
): Promise<{ item: T; result: R }[]> {
  try {
    return await inTransaction(pool, async (client) => {
      const done: { item: T; result: R }[] = [];
      for (const item of items) done.push({ item, result: await fn(client, item) });
      return done;
    });
  } catch {
    // Some item failed (and rolled the whole batch back): again, item by item.
  }
  return inTransaction(pool, async (client) => {
    const done: { item: T; result: R }[] = [];
    for (const item of items) {
      await client.query('SAVEPOINT item');
      try {
        const result = await fn(client, item);
        await client.query('RELEASE SAVEPOINT item');
        done.push({ item, result });
      } catch (err) {
        // Released too, so savepoints do not pile up over a batch with many failures.
        await client.query('ROLLBACK TO SAVEPOINT item');
        await client.query('RELEASE SAVEPOINT item');
        failed(item, err);
      }
    }
    return done;
  });
}

/** The pools of one process; every session speaks UTC so timestamps read back unambiguously. */
export function connect(url: string, opts: { max?: number; applicationName?: string } = {}): Database {
  const max = opts.max ?? 20;
  const applicationName = opts.applicationName ?? 'switchboard';
  const pool = newPool(url, max, applicationName, '-c TimeZone=UTC');
  // A few connections keep a database busy with sub-millisecond statements; more only add
  // backends competing for its cores (measured: 2-4 beat 10 at 50 concurrent call lists).
  // Connections open on first use, so a process that never lists calls never opens one.
  const genericPlans = newPool(url, Math.min(4, max), applicationName, '-c TimeZone=UTC -c plan_cache_mode=force_generic_plan');
  const db = drizzle(pool, { schema });
  let closed = false;
  return {
    url,
    pool,
    db,
    genericPlans,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), genericPlans.end()]);
    },
  };
}

function newPool(url: string, max: number, applicationName: string, options: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: applicationName, options, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {
    /* an idle client died (e.g. server restart); the pool replaces it */
  });
  return survivesLostConnections(pool);
}

/**
 * pg-pool listens for a client's connection errors only while the client is idle. A client that
 * is checked out (a transaction between two statements, a session lock held across awaits) and
 * loses its connection — the server restarted, the backend terminated — emits 'error' with no
 * listener, which is an uncaught exception that takes the process down. Every client gets a
 * listener for its whole life: the loss then shows as the next query's error, which the holder
 * already handles, and release() hands the broken client back to be discarded.
 */
export function survivesLostConnections(pool: pg.Pool): pg.Pool {
  pool.on('connect', (client) => {
    client.on('error', () => {
      /* reported to the holder by its next query */
    });
  });
  return pool;
}
