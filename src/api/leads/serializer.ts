/** Lead rows → the lead record of spec 2.3 (timestamps `YYYY-MM-DD HH:MM:SS`, UTC). */
import type { leads, secondaryContacts } from '../../db/schema.js';
import { sqlDateTime } from '../../db/time.js';
import type { LeadStatus } from './schemas.js';

export type LeadRow = typeof leads.$inferSelect;
export type SecondaryContactRow = typeof secondaryContacts.$inferSelect;

export function serializeSecondaryContact(row: SecondaryContactRow) {
  return {
    id: row.id,
    phone_number: row.phoneNumber,
    variables: row.variables,
    status: row.status,
    created_at: sqlDateTime(row.createdAt)!,
    updated_at: sqlDateTime(row.updatedAt)!,
  };
}

export function serializeLead(row: LeadRow, campaign: { id: number; name: string }, contacts: SecondaryContactRow[]) {
  return {
    id: row.id,
    campaign_id: row.campaignId,
    phone_number: row.phoneNumber,
    variables: row.variables,
    status: row.status as LeadStatus,
    created_at: sqlDateTime(row.createdAt)!,
    updated_at: sqlDateTime(row.updatedAt)!,
    campaign: { id: campaign.id, name: campaign.name },
    secondary_contacts: contacts.map(serializeSecondaryContact),
  };
}
