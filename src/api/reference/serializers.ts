import { z } from 'zod';

export interface PhoneNumberRow {
  id: number;
  phoneNumber: string;
  countryCode: string;
  typeLabel: string;
  assigned: boolean;
}

/** Spec 2.6. */
export function serializePhoneNumber(row: PhoneNumberRow) {
  return {
    id: row.id,
    phone_number: row.phoneNumber,
    country_code: row.countryCode,
    type_label: row.typeLabel,
    is_available: !row.assigned,
  };
}

export const phoneNumberSchema = z.object({
  id: z.number().int(),
  phone_number: z.string(),
  country_code: z.string(),
  type_label: z.string(),
  is_available: z.boolean(),
});
export const voiceSchema = z.object({ id: z.number().int(), name: z.string(), mode: z.string().describe('pipeline or multimodal') });
export const modelSchema = z.object({ id: z.number().int(), name: z.string() });
export const languageSchema = z.object({ id: z.number().int(), name: z.string(), iso_2: z.string() });
