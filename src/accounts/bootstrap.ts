import { eq } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { phoneNumbers, systemSettings } from '../db/schema.js';
import { ADMIN_TOKEN_FROM_ENV, ADMIN_TOKEN_KEY, newAdminToken } from './admin-token.js';
import { hashToken } from './tokens.js';
import { createUser } from './users.js';

export interface BootstrapResult {
  adminToken?: string;
  demoToken?: string;
}

/**
 * First start of an empty embedded database (CONTRACT §2): create an admin token (unless
 * ADMIN_TOKEN is set) and a "Demo" user with one sandbox phone number. Runs once: the
 * admin setting marks it done, so a restart creates nothing and prints nothing.
 */
export async function bootstrapIfEmpty(db: Db, opts: { adminTokenFromEnv?: string }): Promise<BootstrapResult> {
  return db.transaction(async (tx) => {
    await tx.execute('SELECT pg_advisory_xact_lock(727002)');
    const [done] = await tx.select().from(systemSettings).where(eq(systemSettings.key, ADMIN_TOKEN_KEY));
    if (done) return {};
    const adminToken = opts.adminTokenFromEnv ? undefined : newAdminToken();
    await tx.insert(systemSettings).values({
      key: ADMIN_TOKEN_KEY,
      value: adminToken ? hashToken(adminToken) : ADMIN_TOKEN_FROM_ENV,
    });
    const { user, token } = await createUser(tx as unknown as Db, { name: 'Demo', email: 'demo@switchboard.local' });
    await tx.insert(phoneNumbers).values({
      userId: user.id,
      phoneNumber: '+4930901820',
      countryCode: 'DE',
      typeLabel: 'Normal',
    });
    return { adminToken, demoToken: token };
  });
}
