import { z } from 'zod';
import type { PhoneNumberSummary } from '../../accounts/phone-numbers.js';
import { phoneNumberSchema, serializePhoneNumber } from '../reference/serializers.js';
import { pathId } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';

/** A number as its owner manages it: the spec's record plus the owner's name for it. */
export const ownPhoneNumberSchema = phoneNumberSchema.extend({
  label: z.string().nullable().describe('the owner\'s name for the number ("Berlin office"); null = none'),
  carrier: z.string().describe('sandbox or twilio'),
});

export function serializeOwnPhoneNumber(n: PhoneNumberSummary): z.infer<typeof ownPhoneNumberSchema> {
  return { ...serializePhoneNumber(n), label: n.label, carrier: n.carrier };
}

export const numberParam = z.object({ id: pathId() });

export const renamePhoneNumberBody = z.object({
  // Required (null clears it) so that an empty PATCH is a mistake, not a silent no-op.
  label: z.union([v.string({ max: 64 }), z.null()]).describe('the new name; null or "" clears it'),
});
