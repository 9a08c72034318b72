import { z } from 'zod';
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

export const createVoiceBody = z.object({
  name: v.string({ max: 255 }),
  mode: v.enum(VOICE_MODES),
  user_id: v.id().optional().nullable(),
});

export const userIdParam = z.object({ id: pathId() });
export const tokenParams = z.object({ id: pathId(), tokenId: pathId() });
