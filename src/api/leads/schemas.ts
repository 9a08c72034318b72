/** Request and response schemas of the lead endpoints (spec 2.3, 4.4–4.6; CONTRACT §4, §5). */
import { z } from 'zod';
import { msg, v } from '../toolkit/validation.js';
import { toE164 } from '../../lib/phone.js';
import { idField, optionalIdField } from '../campaigns/schemas.js';

export const LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** The four fields a lead update may name (spec 4.6 rule 1). */
export const UPDATABLE_FIELDS = ['campaign_id', 'phone_number', 'status', 'variables'] as const;

/** Secondary contacts per lead: enough for every number a person has, bounded for the dialer. */
export const MAX_SECONDARY_CONTACTS = 20;

/** A phone number in any common notation, normalised to E.164 (national formats in `region`). */
export function phoneField(region: string) {
  return v
    .string()
    .transform((input, ctx): string => {
      const e164 = toE164(input, region);
      if (e164 === null) {
        ctx.addIssue({ code: 'custom', message: 'The :attribute field must be a valid phone number.', input });
        return z.NEVER;
      }
      return e164;
    })
    .describe('E.164, or a national number of the deployment region; normalised to E.164');
}

/** Free-form variables: a JSON object; null reads as none. */
const variablesField = () => v.object().nullable().optional().describe('free-form key/value pairs (a JSON object)');

export function createLeadBody(region: string) {
  return z.object({
    phone_number: phoneField(region),
    campaign_id: idField(),
    variables: variablesField(),
    allow_dupplicate: v.bool().optional().describe('allow a second lead with the same number in the campaign (spelled so); default false'),
    allow_duplicate: v.bool().optional().describe('the same, correctly spelled; used only when allow_dupplicate is absent'),
    secondary_contacts: v
      .array(z.object({ phone_number: phoneField(region), variables: variablesField() }, msg.object))
      .max(MAX_SECONDARY_CONTACTS, { error: `The :attribute field must not have more than ${MAX_SECONDARY_CONTACTS} items.` })
      .nullable()
      .optional(),
  });
}
export type CreateLeadInput = z.output<ReturnType<typeof createLeadBody>>;

/**
 * Lead update. `phone_number` is checked by the handler (an invalid one is the simple
 * `Invalid phone number` of spec 7); fields outside these four are refused before this
 * schema runs (route preValidation).
 */
export const updateLeadBody = z.object({
  campaign_id: optionalIdField(),
  phone_number: z
    .unknown()
    .optional()
    .meta({ type: 'string', description: 'normalised to E.164; an invalid number (or a non-string) answers 422 Invalid phone number' }),
  status: v.enum(LEAD_STATUSES).optional(),
  variables: variablesField().describe('merged into the stored variables (top-level keys), not replacing them'),
});
export type UpdateLeadInput = z.output<typeof updateLeadBody>;

export const secondaryContactSchema = z.object({
  id: z.number().int(),
  phone_number: z.string(),
  variables: z.record(z.string(), z.unknown()),
  status: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const leadSchema = z.object({
  id: z.number().int(),
  campaign_id: z.number().int(),
  phone_number: z.string(),
  variables: z.record(z.string(), z.unknown()),
  status: z.enum(LEAD_STATUSES),
  created_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
  updated_at: z.string().describe('YYYY-MM-DD HH:MM:SS (UTC)'),
  campaign: z.object({ id: z.number().int(), name: z.string() }),
  secondary_contacts: z.array(secondaryContactSchema),
});

/** A lead as a campaign's page lists it: also where the dialer stands with it. */
export const campaignLeadSchema = leadSchema.extend({
  attempts: z.number().int().describe('Calls made to the primary number so far'),
  next_attempt_at: z
    .string()
    .nullable()
    .describe('YYYY-MM-DD HH:MM:SS (UTC): when the dialer may call this waiting lead again (after a busy, no-answer or failed attempt); null when it may call now or the lead is done'),
  in_call: z.boolean().describe('A call to this lead is in progress'),
});
