/**
 * Phone numbers of a user's account (the numbers assistants call from and answer on).
 * Removing one never touches call records: a call keeps the number as text
 * (`assistant_phone_number`), and an assistant that held it is left without a number.
 */
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { assistants, calls, phoneNumbers } from '../db/schema.js';
import { countryOf, toE164 } from '../lib/phone.js';
import { twilioCredentialsProblem, type TwilioCredentialSource } from './carrier-accounts.js';
import { AccountError } from './errors.js';
import { requireUser, uniqueViolation } from './users.js';

export const PHONE_NUMBER_TYPES = ['Normal', 'SIP', 'Caller ID'] as const;
/** Who owns a number: the simulated network (the default) or Twilio. */
export const PHONE_CARRIERS = ['sandbox', 'twilio'] as const;
export type PhoneCarrier = (typeof PHONE_CARRIERS)[number];
/** Twilio's id of an incoming phone number. */
export const TWILIO_NUMBER_SID = /^PN[0-9a-fA-F]{32}$/;

/**
 * Why `sid` cannot be the carrier's id of a `carrier` number, or null when it can (null = none
 * given). Twilio's is optional — calls find a number by its E.164 text — but must be a PN… sid
 * when given; a sandbox number has no carrier id, so one given there is a mistake (most likely a
 * forgotten `carrier: twilio`) and refused rather than stored or dropped. The admin API's schema
 * and the CLI both apply it, before anything is written.
 */
export function carrierSidProblem(carrier: PhoneCarrier, sid: string | null): 'format' | 'prohibited' | null {
  if (sid === null) return null;
  if (carrier === 'sandbox') return 'prohibited';
  return TWILIO_NUMBER_SID.test(sid) ? null : 'format';
}
export type PhoneNumberType = (typeof PHONE_NUMBER_TYPES)[number];

export interface PhoneNumberSummary {
  id: number;
  userId: number;
  phoneNumber: string;
  countryCode: string;
  typeLabel: string;
  carrier: string;
  carrierSid: string | null;
  /** The owner's own name for the number; null = none. */
  label: string | null;
  /** Held by an assistant that is not deleted. */
  assigned: boolean;
  createdAt: string;
}

export interface NewPhoneNumber {
  userId: number;
  phoneNumber: string;
  typeLabel: PhoneNumberType;
  /** Two letters; default: the number's own country. */
  countryCode?: string;
  /** Default `sandbox`. */
  carrier?: PhoneCarrier;
  /** The carrier's id of the number (Twilio: `PN…`), checked by the caller with carrierSidProblem. */
  carrierSid?: string | null;
}

/**
 * Adds a number in E.164 (national formats read with `region`). A Twilio number is refused
 * unless its account's calls have usable credentials (`twilio`: where they may come from).
 */
export async function addPhoneNumber(
  db: Db,
  input: NewPhoneNumber,
  region: string,
  twilio: TwilioCredentialSource = { key: null, deployment: false },
): Promise<PhoneNumberSummary> {
  await requireUser(db, input.userId);
  const e164 = toE164(input.phoneNumber, region);
  if (!e164) throw new AccountError('invalid-phone', 'Invalid phone number');
  const carrier = input.carrier ?? 'sandbox';
  if (carrier === 'twilio') {
    const problem = await twilioCredentialsProblem(db, twilio, input.userId);
    if (problem) throw new AccountError('carrier-credentials-missing', problem);
  }
  // The unique index decides (two admins adding the same number at once both reach the insert).
  const [row] = await db
    .insert(phoneNumbers)
    .values({
      userId: input.userId,
      phoneNumber: e164,
      countryCode: (input.countryCode ?? countryOf(e164)).toUpperCase(),
      typeLabel: input.typeLabel,
      carrier,
      carrierSid: input.carrierSid ?? null,
    })
    .returning()
    .catch((err: unknown) => {
      if (uniqueViolation(err)) throw new AccountError('phone-taken', 'The phone number has already been taken.');
      throw err;
    });
  return { ...row, assigned: false };
}

// Spelled out: drizzle leaves columns unqualified in a single-table select, which would make
// the subquery compare the assistant's own id.
const assigned = sql<boolean>`exists (select 1 from assistants a where a.phone_number_id = phone_numbers.id and a.deleted_at is null)`;

/** Numbers of one user, or of every user (or the one number `id`), in id order. */
export async function listPhoneNumbers(db: Db, opts: { userId?: number; id?: number } = {}): Promise<PhoneNumberSummary[]> {
  return db
    .select({
      id: phoneNumbers.id,
      userId: phoneNumbers.userId,
      phoneNumber: phoneNumbers.phoneNumber,
      countryCode: phoneNumbers.countryCode,
      typeLabel: phoneNumbers.typeLabel,
      carrier: phoneNumbers.carrier,
      carrierSid: phoneNumbers.carrierSid,
      label: phoneNumbers.label,
      assigned,
      createdAt: phoneNumbers.createdAt,
    })
    .from(phoneNumbers)
    .where(and(
      opts.userId === undefined ? undefined : eq(phoneNumbers.userId, opts.userId),
      opts.id === undefined ? undefined : eq(phoneNumbers.id, opts.id),
    ))
    .orderBy(asc(phoneNumbers.id));
}

/**
 * Removes a number. Assistants that held it lose it (their `phone_number_id` becomes null by
 * the foreign key) and are counted in the answer; calls are not touched.
 */
export async function removePhoneNumber(db: Db, id: number, opts: { userId?: number } = {}): Promise<{ number: PhoneNumberSummary; detachedAssistants: number }> {
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(assistants)
      .where(and(eq(assistants.phoneNumberId, id), isNull(assistants.deletedAt)));
    const [row] = await tx
      .delete(phoneNumbers)
      .where(and(eq(phoneNumbers.id, id), opts.userId === undefined ? undefined : eq(phoneNumbers.userId, opts.userId)))
      .returning();
    if (!row) throw new AccountError('number-not-found', `Phone number not found: ${id}`);
    return { number: { ...row, assigned: held.n > 0 }, detachedAssistants: held.n };
  });
}

/** One number of one user (null when it is not theirs or does not exist). */
export async function findPhoneNumber(db: Db, id: number, userId?: number): Promise<PhoneNumberSummary | null> {
  const [row] = await listPhoneNumbers(db, { userId, id });
  return row ?? null;
}

/** Names a number of `userId` (null or blank clears the name); another user's number is not found. */
export async function renamePhoneNumber(db: Db, id: number, userId: number, label: string | null): Promise<PhoneNumberSummary> {
  const name = label?.trim() || null;
  const [row] = await db
    .update(phoneNumbers)
    .set({ label: name })
    .where(and(eq(phoneNumbers.id, id), eq(phoneNumbers.userId, userId)))
    .returning({ id: phoneNumbers.id });
  if (!row) throw new AccountError('number-not-found', `Phone number not found: ${id}`);
  return (await findPhoneNumber(db, id, userId))!;
}

/**
 * Locks the number's row for the rest of the transaction (an assistant taking it meanwhile
 * waits: its foreign key needs a share lock on the row) and says what holds it: the assistants
 * (not deleted) that answer or call on it or place warm transfers from it, and how many calls in
 * one of `liveStatuses` run on it.
 */
async function lockAndInspect(tx: Db, id: number, liveStatuses: readonly string[]) {
  const [number] = await tx.select().from(phoneNumbers).where(eq(phoneNumbers.id, id)).for('update');
  if (!number) throw new AccountError('number-not-found', `Phone number not found: ${id}`);
  // Its own number, or the number a warm transfer calls the supervisor from.
  const warmTransferFrom = sql`${assistants.builtinTools} @> ${JSON.stringify([{ type: 'warm_call_transfer', data: { outbound_phone_id: id } }])}::jsonb`;
  const holders = await tx
    .select({ id: assistants.id, name: assistants.name })
    .from(assistants)
    .where(and(or(eq(assistants.phoneNumberId, id), warmTransferFrom), isNull(assistants.deletedAt)))
    .orderBy(asc(assistants.id));
  const [live] = liveStatuses.length === 0
    ? [{ n: 0 }]
    : await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(calls)
      .where(and(eq(calls.userId, number.userId), eq(calls.assistantPhoneNumber, number.phoneNumber), inArray(calls.status, [...liveStatuses])));
  return { number, holders, liveCalls: live.n };
}

function inUseMessage(phone: string, holders: { id: number; name: string }[], action: string): string {
  const names = holders.slice(0, 3).map((a) => `"${a.name}" (${a.id})`).join(', ');
  const more = holders.length > 3 ? ` and ${holders.length - 3} more` : '';
  return `${phone} cannot be ${action}: the assistant${holders.length > 1 ? 's' : ''} ${names}${more} use${holders.length > 1 ? '' : 's'} it. Give ${holders.length > 1 ? 'them' : 'it'} another number first.`;
}

/**
 * Gives a number to another user (the admin's move). Refused while an assistant of the current
 * owner holds it (the assistant would lose its number without its owner knowing) or a call runs
 * on it; a Twilio number also needs credentials its new owner's calls can use. The owner's name
 * for the number (label) is theirs and is cleared. Moving a number to its owner changes nothing.
 */
export async function reassignPhoneNumber(
  db: Db,
  id: number,
  newUserId: number,
  opts: { liveStatuses: readonly string[]; twilio: TwilioCredentialSource },
): Promise<PhoneNumberSummary> {
  await requireUser(db, newUserId);
  await db.transaction(async (tx) => {
    const { number, holders, liveCalls } = await lockAndInspect(tx, id, opts.liveStatuses);
    if (number.userId === newUserId) return;
    if (holders.length > 0) throw new AccountError('number-in-use', inUseMessage(number.phoneNumber, holders, 'moved to another user'));
    if (liveCalls > 0) throw new AccountError('number-in-use', `${number.phoneNumber} cannot be moved to another user while a call runs on it. Try again when the call has ended.`);
    if (number.carrier === 'twilio') {
      const problem = await twilioCredentialsProblem(tx, opts.twilio, newUserId);
      if (problem) throw new AccountError('carrier-credentials-missing', problem);
    }
    // Deleted assistants of the old owner keep no link to a number that is no longer theirs.
    await tx.update(assistants).set({ phoneNumberId: null }).where(eq(assistants.phoneNumberId, id));
    await tx.update(phoneNumbers).set({ userId: newUserId, label: null }).where(eq(phoneNumbers.id, id));
  });
  return (await findPhoneNumber(db, id))!;
}

/**
 * Removes a number unless something uses it: an assistant that is not deleted, or a call in
 * one of `liveStatuses`. Calls keep the number as text and are never touched. (The CLI's
 * removePhoneNumber detaches assistants instead; the admin API refuses.)
 */
export async function removeUnusedPhoneNumber(db: Db, id: number, opts: { liveStatuses: readonly string[] }): Promise<PhoneNumberSummary> {
  return db.transaction(async (tx) => {
    const { number, holders, liveCalls } = await lockAndInspect(tx, id, opts.liveStatuses);
    if (holders.length > 0) throw new AccountError('number-in-use', inUseMessage(number.phoneNumber, holders, 'removed'));
    if (liveCalls > 0) throw new AccountError('number-in-use', `${number.phoneNumber} cannot be removed while a call runs on it. Try again when the call has ended.`);
    await tx.delete(phoneNumbers).where(eq(phoneNumbers.id, id));
    return { ...number, assigned: false };
  });
}
