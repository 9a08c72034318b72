import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/logger.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-embedded-'));
fs.chmodSync(dir, 0o755);
const log = createLogger('silent');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('keeps its data across restarts, on a port other than 5432, and recovers from a stale lock', async () => {
    const first = await startEmbeddedPostgres({ dataDir: dir, log });
    expect(first.port).not.toBe(5432);
    await query(first.url, 'CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)');
    await first.stop();

    // A crash leaves postmaster.pid behind, naming a process that no longer exists.
    const pidFile = path.join(dir, 'pg', 'postmaster.pid');
    fs.writeFileSync(pidFile, '999999\n' + path.join(dir, 'pg') + '\n');

    const second = await startEmbeddedPostgres({ dataDir: dir, log });
    expect(await query(second.url, 'SELECT x FROM kept')).toEqual([{ x: 42 }]);
    await second.stop();
  }, 60_000);
});
