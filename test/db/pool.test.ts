/**
 * The pools of one process: parts that open connections of their own (the dialer's pool, the
 * LISTEN connections of answering-machine verdicts) take the connection string from here.
 */
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/db/pool.js';
import { createTestDatabase, dropTestDatabase } from '../support/service.js';
import { adminQuery, withDatabase } from '../support/template.js';

describe('connect', () => {
  it('keeps the connection string it was given, for the parts that open their own connections', async () => {
    // Pools connect on first use: nothing listens on this port, and nothing needs to.
    const url = 'postgres://switchboard@127.0.0.1:1/switchboard';
    const database = connect(url, { max: 1 });
    try {
      expect(database.url).toBe(url);
    } finally {
      await database.close();
    }
  });
});

describe('a checked-out client whose connection is lost', () => {
  it('does not take the process down: the holder sees a failed query, and the pool serves again', async () => {
    const url = await createTestDatabase();
    const database = connect(url, { max: 2 });
    try {
      // Held between two statements, as a transaction or a session lock holds it.
      const client = await database.pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise((resolve) => client.once('end', resolve));
      await adminQuery(withDatabase(url, 'postgres'), `SELECT pg_terminate_backend(${rows[0].pid})`);
      await ended;
      // An 'error' event without a listener would have been thrown as an uncaught exception.
      expect(() => client.emit('error', new Error('connection lost again'))).not.toThrow();
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release();
      expect((await database.pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await database.close();
      await dropTestDatabase(url);
    }
  });
});
