/**
 * Which failures mean "the database cannot be reached now" (503, a throttled warning) and
 * which are a failed statement (500, an error line): real errors from node-postgres where they
 * can be had here (a refused connection, a query after the pool ended), hand-built ones for
 * the server's shutdown codes.
 */
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isPoolClosed, loopFailureLogger, retryWhileUnavailable } from '../../src/db/unavailable.js';

async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('isDatabaseUnavailable', () => {
  it('a refused connection, and one wrapped as a cause (Drizzle)', async () => {
    const pool = new pg.Pool({ connectionString: `postgres://u@127.0.0.1:${await refusedPort()}/db` });
    const err = await pool.query('SELECT 1').catch((e: unknown) => e);
    await pool.end();
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('Failed query: SELECT 1'), { cause: err }))).toBe(true);
  });

  it('a pool used after it ended', async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://u@127.0.0.1:1/db' });
    await pool.end();
    expect(isDatabaseUnavailable(await pool.query('SELECT 1').catch((e: unknown) => e))).toBe(true);
  });

  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection because of crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
  ])('the server going away: %s', (code, message) => {
    expect(isDatabaseUnavailable(pgError(code, message))).toBe(true);
  });

  it.each([
    ['23505', 'duplicate key value violates unique constraint'],
    ['42P01', 'relation "nothing" does not exist'],
    ['22003', 'value out of range'],
  ])('a failed statement is not: %s', (code, message) => {
    expect(isDatabaseUnavailable(pgError(code, message))).toBe(false);
  });

  it('nor is anything else', () => {
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});

function capture() {
  const lines: { level: number; msg: string; repeated?: number }[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('loopFailureLogger', () => {
  it('an outage is one warning per 30 s with the count skipped; other failures are errors every time', () => {
    const { log, lines } = capture();
    const failed = loopFailureLogger(log, 'sweep failed');
    for (let i = 0; i < 50; i++) failed(pgError('57P03', 'the database system is starting up'));
    failed(pgError('42P01', 'relation missing'));
    failed(pgError('42P01', 'relation missing'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'sweep failed: the database is unavailable; retrying'],
      [50, 'sweep failed'],
      [50, 'sweep failed'],
    ]);
  });
});

describe('retryWhileUnavailable', () => {
  it('tries again while the database is away, and gives up at once on a failed statement', async () => {
    const { log, lines } = capture();
    let n = 0;
    const out = await retryWhileUnavailable(
      async () => {
        if (++n < 3) throw pgError('57P03', 'the database system is starting up');
        return 'written';
      },
      { log, what: 'writing' },
    );
    expect(out).toBe('written');
    expect(n).toBe(3);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    let m = 0;
    await expect(retryWhileUnavailable(async () => { m++; throw pgError('23505'); }, { log, what: 'writing' })).rejects.toThrow();
    expect(m).toBe(1);
  });

  it('gives up at once when the pool was ended (the process is stopping), however long it may wait', async () => {
    const { log } = capture();
    const pool = new pg.Pool({ connectionString: `postgres://u@127.0.0.1:${await refusedPort()}/db` });
    await pool.end();
    let n = 0;
    const attempt = () => { n++; return pool.query('SELECT 1'); };
    const err = await retryWhileUnavailable(attempt, { log, what: 'writing', maxMs: Number.POSITIVE_INFINITY }).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isPoolClosed(err)).toBe(true);
    expect(n).toBe(1);
  });
});
