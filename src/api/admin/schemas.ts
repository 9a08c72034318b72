import { z } from 'zod';
import type { UserSummary } from '../../accounts/users.js';
import { isoMicro } from '../../db/time.js';
import type { TwilioAccountSummary } from '../../accounts/carrier-accounts.js';
import { carrierSidProblem, PHONE_CARRIERS, PHONE_NUMBER_TYPES, type PhoneNumberSummary } from '../../accounts/phone-numbers.js';
import { phoneNumberSchema, serializePhoneNumber } from '../reference/serializers.js';
import { VOICE_MODES, VOICE_PROVIDERS } from '../../accounts/voices.js';
import { pathId } from '../toolkit/route.js';
import { msg, v } from '../toolkit/validation.js';

export const createUserBody = z.object({
  name: v.string({ max: 255 }),
  email: v.string({ max: 255 }).email({ error: 'The :attribute field must be a valid email address.' }),
  max_tools: v.int({ min: 0, max: 1000 }).optional(),
  max_calls_in_parallel: v.int({ min: 1, max: 10000 }).optional(),
});

export const createPhoneNumberBody = z.object({
  phone_number: v.string({ max: 64 }),
  country_code: v.string({ max: 2 }).optional(),
  type_label: v.enum(PHONE_NUMBER_TYPES),
  carrier: v.enum(PHONE_CARRIERS).optional(),
  carrier_sid: v.emptyAsNull(v.string({ max: 64 })),
}).superRefine((body, ctx) => {
  const problem = carrierSidProblem(body.carrier ?? 'sandbox', body.carrier_sid ?? null);
  if (problem === 'format') ctx.addIssue({ code: 'custom', path: ['carrier_sid'], message: msg.format });
  // Laravel's prohibited_unless:carrier,twilio, in its words.
  if (problem === 'prohibited') ctx.addIssue({ code: 'custom', path: ['carrier_sid'], message: 'The :attribute field is prohibited unless carrier is in twilio.' });
});

/** A number as the admin sees it: the user's shape (spec 2.6) plus its carrier. */
export const adminPhoneNumberSchema = phoneNumberSchema.extend({
  carrier: z.string().describe('sandbox or twilio'),
  carrier_sid: z.string().nullable().describe("the carrier's id of the number (Twilio: PN…)"),
  user_id: z.number().int().describe('the owner'),
  label: z.string().nullable().describe("the owner's name for the number"),
});

export function serializeAdminPhoneNumber(n: PhoneNumberSummary): z.infer<typeof adminPhoneNumberSchema> {
  return { ...serializePhoneNumber(n), carrier: n.carrier, carrier_sid: n.carrierSid, user_id: n.userId, label: n.label };
}

export const numberIdParam = z.object({ id: pathId() });

export const reassignPhoneNumberBody = z.object({
  user_id: v.id().describe('the user who gets the number'),
});

/** A Twilio sid: its two-letter prefix and 32 hex digits. */
const twilioSid = (prefix: string) => new RegExp(`^${prefix}[0-9a-fA-F]{32}$`);

/**
 * Twilio credentials of an account: the auth token always (Twilio signs its callbacks with it, and
 * an empty one would make every callback fail verification), an API key optionally for REST. An
 * empty optional field counts as not sent.
 */
export const setTwilioAccountBody = z.object({
  account_sid: v.filled({ max: 64 }).regex(twilioSid('AC'), { error: msg.format }),
  auth_token: v.filled({ max: 128 }),
  // "" never reaches the inner schemas: emptyAsNull reads it as null first.
  api_key_sid: v.emptyAsNull(v.string({ max: 64 }).regex(twilioSid('SK'), { error: msg.format })),
  api_key_secret: v.emptyAsNull(v.string({ max: 128 })),
}).superRefine((body, ctx) => {
  // Laravel's required_with, both ways: a key is useless without its secret.
  if (body.api_key_sid && !body.api_key_secret) ctx.addIssue({ code: 'custom', path: ['api_key_secret'], message: 'The :attribute field is required when api key sid is present.' });
  if (body.api_key_secret && !body.api_key_sid) ctx.addIssue({ code: 'custom', path: ['api_key_sid'], message: 'The :attribute field is required when api key secret is present.' });
});

export const twilioAccountSchema = z.object({
  account_sid: z.string(),
  api_key_sid: z.string().nullable(),
  auth_token_hint: z.string().describe('the last characters of the auth token; the secrets are never shown'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function serializeTwilioAccount(a: TwilioAccountSummary): z.infer<typeof twilioAccountSchema> {
  return {
    account_sid: a.accountSid,
    api_key_sid: a.apiKeySid,
    auth_token_hint: a.secretHint,
    created_at: isoMicro(a.createdAt)!,
    updated_at: isoMicro(a.updatedAt)!,
  };
}

/** Who speaks a voice (issue 19): the local voice, or a vendor with its own voice id (the synthesizers' catalog). */
const voiceProviders = VOICE_PROVIDERS as readonly string[] as readonly [string, ...string[]];

export const createVoiceBody = z.object({
  name: v.string({ max: 255 }),
  mode: v.enum(VOICE_MODES),
  user_id: v.id().optional().nullable(),
  provider: v.enum(voiceProviders).optional(),
  provider_voice_id: v.string({ max: 255 }).optional().nullable(),
});

export const userIdParam = z.object({ id: pathId() });
export const tokenParams = z.object({ id: pathId(), tokenId: pathId() });

/** A user as the admin pages see it (GET /api/admin/users…). */
export const adminUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  max_tools: z.number().int(),
  max_calls_in_parallel: z.number().int(),
  disabled_at: z.string().nullable().describe('ISO 8601; null while the account is active'),
  created_at: z.string().describe('ISO 8601'),
  active_tokens: z.number().int().describe('tokens not revoked'),
});

export function serializeAdminUser(u: UserSummary): z.infer<typeof adminUserSchema> {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    max_tools: u.maxTools,
    max_calls_in_parallel: u.maxCallsInParallel,
    disabled_at: isoMicro(u.disabledAt),
    created_at: isoMicro(u.createdAt)!,
    active_tokens: u.activeTokens,
  };
}

export const adminTokenSchema = z.object({
  id: z.number().int(),
  created_at: z.string().describe('ISO 8601'),
  revoked_at: z.string().nullable().describe('ISO 8601; null while the token works'),
});
