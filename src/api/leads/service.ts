/**
 * Lead rules (spec 4.4–4.6, CONTRACT §4, §5). Every write runs in one transaction that locks
 * the lead row (FOR UPDATE), so it cannot interleave with the dialer claiming the lead, and
 * the campaign row (FOR KEY SHARE), so the campaign cannot vanish underneath.
 */
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { LIVE_STATUSES } from '../../calls/state-machine.js';
import type { DbOrTx } from '../../calls/types.js';
import type { Db } from '../../db/pool.js';
import { calls, campaigns, leads, secondaryContacts } from '../../db/schema.js';
import { fieldError, HttpError, notFound } from '../toolkit/errors.js';
import { toE164 } from '../../lib/phone.js';
import { isDbId } from '../toolkit/validation.js';
import { findOwnedCampaign } from '../campaigns/service.js';
import type { CreateLeadInput, LeadStatus, UpdateLeadInput } from './schemas.js';
import type { LeadRow, SecondaryContactRow } from './serializer.js';

/** Call statuses of a call still running (CONTRACT §6). */

export const STATUS_IS_AUTOMATIC = 'The status is assigned automatically and cannot be set manually.';

export interface LeadWithRelations {
  lead: LeadRow;
  campaign: { id: number; name: string };
  contacts: SecondaryContactRow[];
}

const leadNotFound = () => notFound('Lead not found');
const campaignNotFound = () => notFound('Campaign not found');

/** True while the lead's current call (on any of its numbers) is still running. */
async function callInProgress(tx: DbOrTx, lead: LeadRow): Promise<boolean> {
  if (lead.currentCallId === null) return false;
  const [call] = await tx
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.id, lead.currentCallId), inArray(calls.status, [...LIVE_STATUSES])));
  return Boolean(call);
}

async function lockOwnedLead(tx: DbOrTx, userId: number, leadId: number): Promise<LeadRow | null> {
  if (!isDbId(leadId)) return null;
  const [row] = await tx
    .select()
    .from(leads)
    .where(and(eq(leads.id, leadId), eq(leads.userId, userId)))
    .for('update');
  return row ?? null;
}

export async function createLead(db: Db, userId: number, input: CreateLeadInput): Promise<LeadWithRelations> {
  return db.transaction(async (tx) => {
    const campaign = await findOwnedCampaign(tx, userId, input.campaign_id, 'key share');
    if (!campaign) throw campaignNotFound();
    if (!(input.allow_dupplicate ?? input.allow_duplicate ?? false)) {
      // Serialises creations of one number in one campaign, so two concurrent requests
      // cannot both pass the duplicate check (READ COMMITTED: the check after the lock
      // sees the other transaction's committed lead).
      await tx.execute(sql`select pg_advisory_xact_lock(${campaign.id}::int, hashtext(${input.phone_number}::text))`);
      const [dup] = await tx
        .select({ id: leads.id })
        .from(leads)
        .where(and(eq(leads.campaignId, campaign.id), eq(leads.phoneNumber, input.phone_number)))
        .limit(1);
      if (dup) throw fieldError('phone_number', 'The phone number has already been taken.');
    }
    const [lead] = await tx
      .insert(leads)
      .values({ userId, campaignId: campaign.id, phoneNumber: input.phone_number, variables: input.variables ?? {}, status: 'created' })
      .returning();
    const items = input.secondary_contacts ?? [];
    const contacts =
      items.length === 0
        ? []
        : await tx
            .insert(secondaryContacts)
            .values(items.map((c, i) => ({ leadId: lead.id, position: i, phoneNumber: c.phone_number, variables: c.variables ?? {} })))
            .returning();
    contacts.sort((a, b) => a.position - b.position);
    return { lead, campaign: { id: campaign.id, name: campaign.name }, contacts };
  });
}

/** The caller's leads by id, with campaign and secondary contacts: two queries for any number of leads. */
export async function listLeads(db: Db, userId: number): Promise<LeadWithRelations[]> {
  const rows = await db
    .select({ lead: leads, campaignName: campaigns.name })
    .from(leads)
    .innerJoin(campaigns, eq(campaigns.id, leads.campaignId))
    .where(eq(leads.userId, userId))
    .orderBy(asc(leads.id));
  if (rows.length === 0) return [];
  const contacts = await db
    .select({ contact: secondaryContacts })
    .from(secondaryContacts)
    .innerJoin(leads, eq(leads.id, secondaryContacts.leadId))
    .where(eq(leads.userId, userId))
    .orderBy(asc(secondaryContacts.leadId), asc(secondaryContacts.position), asc(secondaryContacts.id));
  return attachContacts(rows, contacts.map((c) => c.contact));
}

function attachContacts(rows: { lead: LeadRow; campaignName: string }[], contacts: SecondaryContactRow[]): LeadWithRelations[] {
  const byLead = new Map<number, SecondaryContactRow[]>();
  for (const contact of contacts) {
    const list = byLead.get(contact.leadId);
    if (list) list.push(contact);
    else byLead.set(contact.leadId, [contact]);
  }
  return rows.map(({ lead, campaignName }) => ({
    lead,
    campaign: { id: lead.campaignId, name: campaignName },
    contacts: byLead.get(lead.id) ?? [],
  }));
}

/** Leads selected by `where` (the caller's own), by id, with their campaign and contacts. */
async function selectLeads(db: Db, where: SQL, page?: { limit: number; offset: number }): Promise<LeadWithRelations[]> {
  const q = db
    .select({ lead: leads, campaignName: campaigns.name })
    .from(leads)
    .innerJoin(campaigns, eq(campaigns.id, leads.campaignId))
    .where(where)
    .orderBy(asc(leads.id));
  const rows = page ? await q.limit(page.limit).offset(page.offset) : await q;
  if (rows.length === 0) return [];
  const contacts = await db
    .select()
    .from(secondaryContacts)
    .where(inArray(secondaryContacts.leadId, rows.map((r) => r.lead.id)))
    .orderBy(asc(secondaryContacts.leadId), asc(secondaryContacts.position), asc(secondaryContacts.id));
  return attachContacts(rows, contacts);
}

/** One of the caller's leads, or null. */
export async function findLead(db: Db, userId: number, leadId: number): Promise<LeadWithRelations | null> {
  if (!isDbId(leadId)) return null;
  const [found] = await selectLeads(db, and(eq(leads.id, leadId), eq(leads.userId, userId))!);
  return found ?? null;
}

/** One page of a campaign's leads (the caller's campaign), by id, and how many it has. */
export async function listCampaignLeads(
  db: Db,
  userId: number,
  campaignId: number,
  page: number,
  perPage: number,
): Promise<{ total: number; items: LeadWithRelations[] }> {
  const where = and(eq(leads.campaignId, campaignId), eq(leads.userId, userId))!;
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(leads).where(where);
  const items = n > (page - 1) * perPage ? await selectLeads(db, where, { limit: perPage, offset: (page - 1) * perPage }) : [];
  return { total: n, items };
}

/**
 * Applies a lead update (spec 4.6, CONTRACT §5): all checks first, then one UPDATE, so a
 * refused request changes nothing. `variables` are merged key by key into the stored ones.
 */
export async function updateLead(db: Db, userId: number, leadId: number, input: UpdateLeadInput, region: string): Promise<void> {
  await db.transaction(async (tx) => {
    const lead = await lockOwnedLead(tx, userId, leadId);
    if (!lead) throw leadNotFound();

    const set: Partial<Record<keyof LeadRow, unknown>> = {};
    if (input.campaign_id !== undefined) {
      const campaign = await findOwnedCampaign(tx, userId, input.campaign_id, 'key share');
      if (!campaign) throw campaignNotFound();
      set.campaignId = campaign.id;
    }
    if (input.phone_number !== undefined) {
      const e164 = toE164(input.phone_number, region);
      if (e164 === null) throw new HttpError(422, 'Invalid phone number');
      set.phoneNumber = e164;
    }
    let resetContacts = false;
    if (input.status !== undefined) {
      const status: LeadStatus = input.status;
      if (await callInProgress(tx, lead)) {
        // The dialer owns the status while it is calling; repeating the current value is no change.
        if (status !== lead.status) throw fieldError('status', STATUS_IS_AUTOMATIC);
      } else {
        set.status = status;
        if (status === 'created') {
          // Back into the dialing queue with a fresh retry budget (CONTRACT §5).
          set.attempts = 0;
          set.nextAttemptAt = null;
          resetContacts = true;
        }
      }
    }
    if (input.variables !== undefined && input.variables !== null) {
      set.variables = sql`${leads.variables} || ${JSON.stringify(input.variables)}::jsonb`;
    }
    if (Object.keys(set).length === 0) return;
    await tx
      .update(leads)
      .set({ ...(set as Partial<typeof leads.$inferInsert>), updatedAt: sql`now()` })
      .where(eq(leads.id, lead.id));
    if (resetContacts) {
      await tx
        .update(secondaryContacts)
        .set({ attempts: 0, status: 'created', updatedAt: sql`now()` })
        .where(eq(secondaryContacts.leadId, lead.id));
    }
  });
}

export type DeleteLeadResult = 'deleted' | 'not-found' | 'in-call';

/** Deletes the caller's lead and its secondary contacts, unless a call to it is running. */
export async function deleteLead(db: Db, userId: number, leadId: number): Promise<DeleteLeadResult> {
  return db.transaction(async (tx) => {
    const lead = await lockOwnedLead(tx, userId, leadId);
    if (!lead) return 'not-found';
    if (await callInProgress(tx, lead)) return 'in-call';
    await tx.delete(leads).where(eq(leads.id, lead.id));
    return 'deleted';
  });
}
