import { timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { phoneNumbers, systemSettings } from '../db/schema.js';
import { hashToken, newToken } from './tokens.js';
import { createUser } from './users.js';

const ADMIN_KEY = 'admin_token_hash';

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
    const [done] = await tx.select().from(systemSettings).where(eq(systemSettings.key, ADMIN_KEY));
    if (done) return {};
    const adminToken = opts.adminTokenFromEnv ? undefined : `sb_admin_${newToken().slice(3)}`;
    await tx.insert(systemSettings).values({
      key: ADMIN_KEY,
      value: adminToken ? hashToken(adminToken) : 'env',
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

/** Checks an admin bearer token against ADMIN_TOKEN or the generated one's stored hash. */
export class AdminAuth {
  private storedHash: string | null | undefined;

  constructor(
    private readonly db: Db,
    private readonly envToken?: string,
  ) {}

  async verify(token: string): Promise<boolean> {
    if (this.envToken) return safeEqual(token, this.envToken);
    if (this.storedHash === undefined) {
      const [row] = await this.db.select().from(systemSettings).where(eq(systemSettings.key, ADMIN_KEY));
      this.storedHash = row && row.value !== 'env' ? row.value : null;
    }
    return this.storedHash !== null && safeEqual(hashToken(token), this.storedHash);
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
