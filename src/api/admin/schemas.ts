import { z } from 'zod';
import type { UserSummary } from '../../accounts/users.js';
import { isoMicro } from '../../db/time.js';
import { PHONE_NUMBER_TYPES } from '../../accounts/phone-numbers.js';
import { VOICE_MODES } from '../../accounts/voices.js';
import { pathId } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';

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
});

/** Who speaks a voice (issue 19): the local voice, or a vendor with its own voice id. */
export const VOICE_PROVIDERS = ['local', 'elevenlabs', 'openai'] as const;

export const createVoiceBody = z.object({
  name: v.string({ max: 255 }),
  mode: v.enum(VOICE_MODES),
  user_id: v.id().optional().nullable(),
  provider: v.enum(VOICE_PROVIDERS).optional(),
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
