/**
 * An account's own credentials at a carrier (issue 16: Twilio). The account SID is stored as
 * is (it names the account in every REST path and in every callback); the auth token and an
 * optional API key secret are sealed together with SECRET_KEY and never shown again, only a
 * hint. The auth token is required even with an API key: Twilio signs its callbacks to us
 * with the account's auth token, so without it no callback could be verified.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/pool.js';
import { carrierAccounts } from '../db/schema.js';
import { maskSecret, purposeKey, seal, SealedSecretError, SecretKeyMissingError, unseal } from '../lib/secrets.js';
import { AccountError } from './errors.js';
import { requireUser } from './users.js';

/** Twilio credentials in clear (the shape of src/telephony/twilio's `TwilioCredentials`). */
export interface TwilioAccountSecrets {
  accountSid: string;
  authToken: string;
  apiKeySid?: string;
  apiKeySecret?: string;
}

export interface TwilioAccountSummary {
  accountSid: string;
  apiKeySid: string | null;
  secretHint: string;
  createdAt: string;
  updatedAt: string;
}

const TWILIO = 'twilio';

/** Stores (or replaces) a user's Twilio credentials; `key` is the `credentials` key (null: refused). */
export async function setTwilioAccount(db: Db, key: Buffer | null, userId: number, secrets: TwilioAccountSecrets): Promise<TwilioAccountSummary> {
  if (!key) throw new SecretKeyMissingError();
  await requireUser(db, userId);
  const sealed = seal(JSON.stringify({ authToken: secrets.authToken, apiKeySecret: secrets.apiKeySecret ?? null }), key);
  const values = {
    userId,
    carrier: TWILIO,
    accountSid: secrets.accountSid,
    apiKeySid: secrets.apiKeySid ?? null,
    sealedSecrets: sealed,
    secretHint: maskSecret(secrets.authToken),
  };
  const [row] = await db
    .insert(carrierAccounts)
    .values(values)
    .onConflictDoUpdate({
      target: [carrierAccounts.userId, carrierAccounts.carrier],
      set: { accountSid: values.accountSid, apiKeySid: values.apiKeySid, sealedSecrets: sealed, secretHint: values.secretHint, updatedAt: sql`now()` },
    })
    .returning();
  return summary(row);
}

export async function getTwilioAccount(db: Db, userId: number): Promise<TwilioAccountSummary> {
  await requireUser(db, userId);
  const [row] = await db
    .select()
    .from(carrierAccounts)
    .where(and(eq(carrierAccounts.userId, userId), eq(carrierAccounts.carrier, TWILIO)));
  if (!row) throw new AccountError('carrier-account-not-found', 'Twilio account not found.');
  return summary(row);
}

export async function removeTwilioAccount(db: Db, userId: number): Promise<void> {
  await requireUser(db, userId);
  const rows = await db
    .delete(carrierAccounts)
    .where(and(eq(carrierAccounts.userId, userId), eq(carrierAccounts.carrier, TWILIO)))
    .returning({ id: carrierAccounts.id });
  if (rows.length === 0) throw new AccountError('carrier-account-not-found', 'Twilio account not found.');
}

/**
 * A user's Twilio credentials in clear, or null when the user stored none. Throws
 * SealedSecretError when they cannot be opened (SECRET_KEY changed).
 */
export async function openTwilioAccount(db: Db, key: Buffer | null, userId: number): Promise<TwilioAccountSecrets | null> {
  const [row] = await db
    .select({ accountSid: carrierAccounts.accountSid, apiKeySid: carrierAccounts.apiKeySid, sealedSecrets: carrierAccounts.sealedSecrets })
    .from(carrierAccounts)
    .where(and(eq(carrierAccounts.userId, userId), eq(carrierAccounts.carrier, TWILIO)));
  if (!row) return null;
  if (!key) throw new SealedSecretError('no SECRET_KEY to open stored carrier credentials');
  const opened = JSON.parse(unseal(row.sealedSecrets, key)) as { authToken: string; apiKeySecret: string | null };
  return {
    accountSid: row.accountSid,
    authToken: opened.authToken,
    ...(row.apiKeySid && opened.apiKeySecret ? { apiKeySid: row.apiKeySid, apiKeySecret: opened.apiKeySecret } : {}),
  };
}

/** What a Twilio call of an account could run with: the key that opens stored credentials, and whether the deployment has its own. */
export interface TwilioCredentialSource {
  key: Buffer | null;
  /** TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are both set. */
  deployment: boolean;
}

/** The source a deployment's configuration gives. */
export function twilioCredentialSource(config: Pick<Config, 'TWILIO_ACCOUNT_SID' | 'TWILIO_AUTH_TOKEN' | 'SECRET_KEY' | 'DATABASE_URL' | 'DATA_DIR'>): TwilioCredentialSource {
  return { key: purposeKey(config, 'credentials'), deployment: Boolean(config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN) };
}

/**
 * Why calls of `userId` could not run on Twilio, or null when they can: the account's own
 * credentials are used when stored (and must then open), else the deployment's (the carrier's
 * `credentialsFor`). A number of such an account would take calls that fail on every attempt.
 */
export async function twilioCredentialsProblem(db: Db, source: TwilioCredentialSource, userId: number): Promise<string | null> {
  const fix = `store the account's (PUT /api/admin/users/${userId}/carriers/twilio) or set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN`;
  try {
    if (await openTwilioAccount(db, source.key, userId)) return null;
  } catch {
    return `The Twilio credentials stored for user ${userId} cannot be opened (SECRET_KEY missing or changed): ${fix}.`;
  }
  return source.deployment ? null : `User ${userId} has no Twilio credentials, so calls on this number could not be placed or verified: ${fix}.`;
}

/** Whether any account holds a Twilio number (start-up checks: the public URL must be https). */
export async function twilioNumbersExist(db: Db): Promise<boolean> {
  const res = await db.execute(sql`select exists (select 1 from phone_numbers where carrier = 'twilio') as present`);
  return Boolean((res.rows[0] as { present: boolean } | undefined)?.present);
}

function summary(row: typeof carrierAccounts.$inferSelect): TwilioAccountSummary {
  return { accountSid: row.accountSid, apiKeySid: row.apiKeySid, secretHint: row.secretHint, createdAt: row.createdAt, updatedAt: row.updatedAt };
}
