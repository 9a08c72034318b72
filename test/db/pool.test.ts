/**
 * The pools of one process: parts that open connections of their own (the dialer's pool, the
 * LISTEN connections of answering-machine verdicts) take the connection string from here.
 */
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/db/pool.js';

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
