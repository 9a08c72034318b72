import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminAuth } from '../../src/accounts/admin-token.js';
import { bootstrapIfEmpty } from '../../src/accounts/bootstrap.js';
import { TokenCache } from '../../src/accounts/token-cache.js';
import { connect, type Database } from '../../src/db/pool.js';
import { createTestDatabase, dropTestDatabase } from '../support/service.js';

let url: string;
let database: Database;

beforeAll(async () => {
  url = await createTestDatabase();
  database = connect(url, { max: 2 });
});
afterAll(async () => {
  await database.close();
  await dropTestDatabase(url);
});

describe('first-start bootstrap', () => {
  it('creates an admin token and a Demo user with a phone number once', async () => {
    const first = await bootstrapIfEmpty(database.db, {});
    expect(first.adminToken).toMatch(/^sb_admin_/);
    expect(first.demoToken).toMatch(/^sb_/);
    const user = await new TokenCache(database.db).resolve(first.demoToken!);
    expect(user).toMatchObject({ name: 'Demo' });
    const { rows } = await database.pool.query('SELECT count(*)::int AS n FROM phone_numbers WHERE user_id = $1', [user!.id]);
    expect(rows[0].n).toBe(1);
    expect(await new AdminAuth(database.db).verify(first.adminToken!)).toBe(true);
    expect(await new AdminAuth(database.db).verify('sb_admin_wrong')).toBe(false);

    const second = await bootstrapIfEmpty(database.db, {});
    expect(second).toEqual({});
    const users = await database.pool.query('SELECT count(*)::int AS n FROM users');
    expect(users.rows[0].n).toBe(1);
  });

  it('prefers ADMIN_TOKEN from the environment when set', async () => {
    const auth = new AdminAuth(database.db, 'env-admin-token-0123456789');
    expect(await auth.verify('env-admin-token-0123456789')).toBe(true);
    expect(await auth.verify('env-admin-token-012345678X')).toBe(false);
  });
});
