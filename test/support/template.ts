/**
 * Prepares a migrated template database once per test run; each test file then clones it
 * (CREATE DATABASE ... TEMPLATE), which takes milliseconds and isolates files completely.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import { runMigrations } from '../../src/db/migrate.js';

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export async function adminQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function prepareTemplate(serverUrl: string, name: string): Promise<void> {
  await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}"`);
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = withDatabase(serverUrl, name);
  await runMigrations(url);
  // Install the job queue's schema once, so each cloned database starts it instantly.
  await adminQuery(url, PgBoss.getConstructionPlans());
}

export async function dropDatabasesWithPrefix(serverUrl: string, prefix: string): Promise<void> {
  const { rows } = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}%'`);
  for (const r of rows as { datname: string }[]) {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`).catch(() => undefined);
  }
}
