/**
 * A phone number belongs to one account (issue 15): the admin API answers 422 in the
 * validation shape and the CLI one line, for another account and for the same one; the
 * migration refuses to run over duplicates instead of deleting any.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { createUser } from '../../src/accounts/users.js';
import { runMigrations } from '../../src/db/migrate.js';
import { connect } from '../../src/db/pool.js';
import { adminQuery, withDatabase } from '../support/template.js';
import { dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { runInProcess } from '../cli/support.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.close();
});

describe('unique phone numbers', () => {
  it('answers 422 when another account (or the same one) already holds the number', async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const first = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+4930555123', type_label: 'Normal' });
    expect(first.status).toBe(201);
    for (const [owner, spelling] of [[bob.id, '+4930555123'], [alice.id, '030 555123']] as const) {
      const again = await t.admin.post(`/api/admin/users/${owner}/phone-numbers`, { phone_number: spelling, type_label: 'SIP' });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({
        message: 'The given data was invalid.',
        errors: { phone_number: ['The phone number has already been taken.'] },
      });
    }
    expect((await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data).toEqual([]);
  });

  it('the CLI prints one line and exits 1', async () => {
    const carol = await t.createUser();
    await t.addPhoneNumber(carol.id, '+4930555999');
    const dave = await t.createUser();
    const res = await runInProcess(['numbers', 'add', String(dave.id), '+4930555999'], { DATABASE_URL: t.databaseUrl });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('The phone number has already been taken.\n');
  });

  it('the migration stops on existing duplicates and deletes nothing', async () => {
    const name = `${inject('pgPrefix')}dup_${randomBytes(4).toString('hex')}`;
    await adminQuery(inject('pgServerUrl'), `CREATE DATABASE "${name}"`);
    const url = withDatabase(inject('pgServerUrl'), name);
    const client = new pg.Client({ connectionString: url });
    try {
      await runMigrations(url);
      await client.connect();
      // Back to the schema before the unique index, with a number held twice.
      await client.query('DROP INDEX phone_numbers_number_unique');
      // Forget that migration and every later one (later migrations must not hide it).
      const journal = JSON.parse(fs.readFileSync(new URL('../../src/db/migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: { tag: string; when: number }[] };
      const since = journal.entries.find((e) => e.tag === '0014_unique_phone_number')!.when;
      await client.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= $1', [since]);
      const database = connect(url, { max: 1 });
      const { user: u1 } = await createUser(database.db, { name: 'A', email: 'a@x.test' });
      const { user: u2 } = await createUser(database.db, { name: 'B', email: 'b@x.test' });
      await database.close();
      await client.query(`INSERT INTO phone_numbers (user_id, phone_number, country_code, type_label) VALUES ($1, '+4930111', 'DE', 'Normal'), ($2, '+4930111', 'DE', 'Normal')`, [u1.id, u2.id]);
      const refused = await runMigrations(url).then(() => null, (err: Error) => err);
      expect(String((refused?.cause as Error | undefined)?.message ?? refused?.message)).toMatch(/^phone numbers held twice: \+4930111 \(ids \d+, \d+\)/);
      expect((await client.query('SELECT count(*)::int AS n FROM phone_numbers')).rows[0].n).toBe(2);
    } finally {
      await client.end();
      await dropTestDatabase(url);
    }
  });
});
