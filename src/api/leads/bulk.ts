/**
 * Bulk lead import (issue 17: the dashboard's CSV import, 10,000 rows in seconds). One request
 * carries up to BULK_MAX_ROWS leads of one campaign; each row is validated on its own with the
 * single create's rules and messages, the valid rows are inserted together, and the answer
 * names every row's outcome by its index, so one bad row never refuses the others.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/pool.js';
import { leads, secondaryContacts } from '../../db/schema.js';
import type { FieldErrors } from '../toolkit/errors.js';
import { laravelErrors, msg, v } from '../toolkit/validation.js';
import { idField } from '../campaigns/schemas.js';
import { findOwnedCampaign } from '../campaigns/service.js';
import { createLeadBody } from './schemas.js';
import { notFound } from '../toolkit/errors.js';

/** Rows per request: a 1 MiB body holds about this many leads with a few variables each. */
export const BULK_MAX_ROWS = 1000;

export const DUPLICATE_NUMBER = 'The phone number has already been taken.';

export function bulkLeadsBody() {
  return z.object({
    campaign_id: idField(),
    allow_duplicate: v.bool().optional().describe('allow numbers the campaign (or an earlier row) already has; default false'),
    leads: z
      .array(z.unknown(), msg.array)
      .min(1, { error: 'The :attribute field must have at least 1 items.' })
      .max(BULK_MAX_ROWS, { error: `The :attribute field must not have more than ${BULK_MAX_ROWS} items.` })
      .meta({ description: 'lead objects {phone_number, variables?, secondary_contacts?} as in POST /api/user/lead, each validated on its own' }),
  });
}
export type BulkLeadsInput = z.output<ReturnType<typeof bulkLeadsBody>>;

export const bulkLeadsResponse = z.object({
  message: z.string(),
  data: z.object({
    created: z.array(z.object({ row: z.number().int(), id: z.number().int() })),
    errors: z.array(z.object({ row: z.number().int(), errors: z.record(z.string(), z.array(z.string())) })),
  }),
});
export type BulkLeadsResult = z.infer<typeof bulkLeadsResponse>['data'];

/** The per-row schema: the single create's fields other than the campaign and the duplicate switch. */
function rowSchema(region: string) {
  return createLeadBody(region).pick({ phone_number: true, variables: true, secondary_contacts: true });
}

export async function importLeads(db: Db, userId: number, input: BulkLeadsInput, region: string): Promise<BulkLeadsResult> {
  const schema = rowSchema(region);
  const errors: { row: number; errors: FieldErrors }[] = [];
  const valid: { row: number; data: z.output<ReturnType<typeof rowSchema>> }[] = [];
  input.leads.forEach((raw, row) => {
    const obj = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
    const parsed = schema.safeParse(obj, { reportInput: true });
    if (parsed.success) valid.push({ row, data: parsed.data });
    else errors.push({ row, errors: laravelErrors(parsed.error.issues) });
  });

  const created = await db.transaction(async (tx) => {
    // FOR UPDATE on the campaign row serialises the import with single creates (which
    // key-share-lock it), so the duplicate check below sees every lead committed before it and
    // none can slip in until this commits. It also holds off a dialer tick of this campaign
    // for the length of one batch.
    const campaign = await findOwnedCampaign(tx, userId, input.campaign_id, 'update');
    if (!campaign) throw notFound('Campaign not found');
    let rows = valid;
    if (!input.allow_duplicate) {
      const numbers = [...new Set(valid.map((r) => r.data.phone_number))];
      const taken = new Set<string>();
      for (let i = 0; i < numbers.length; i += 5000) {
        const existing = await tx
          .select({ phone: leads.phoneNumber })
          .from(leads)
          .where(and(eq(leads.campaignId, campaign.id), inArray(leads.phoneNumber, numbers.slice(i, i + 5000))));
        for (const e of existing) taken.add(e.phone);
      }
      rows = [];
      for (const r of valid) {
        if (taken.has(r.data.phone_number)) errors.push({ row: r.row, errors: { phone_number: [DUPLICATE_NUMBER] } });
        else {
          taken.add(r.data.phone_number); // a later row with the same number is a duplicate of this one
          rows.push(r);
        }
      }
    }
    if (rows.length === 0) return [];
    // RETURNING gives the rows of a multi-row VALUES insert in the order they were listed.
    const inserted = await tx
      .insert(leads)
      .values(rows.map((r) => ({ userId, campaignId: campaign.id, phoneNumber: r.data.phone_number, variables: r.data.variables ?? {}, status: 'created' })))
      .returning({ id: leads.id });
    const contacts = rows.flatMap((r, i) =>
      (r.data.secondary_contacts ?? []).map((c, position) => ({ leadId: inserted[i].id, position, phoneNumber: c.phone_number, variables: c.variables ?? {} })),
    );
    for (let i = 0; i < contacts.length; i += 2000) await tx.insert(secondaryContacts).values(contacts.slice(i, i + 2000));
    return rows.map((r, i) => ({ row: r.row, id: inserted[i].id }));
  });
  errors.sort((a, b) => a.row - b.row);
  return { created, errors };
}
