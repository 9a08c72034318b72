import { z } from 'zod';
import { KEY_PROVIDERS } from '../../providers/speech.js';
import { v } from '../toolkit/validation.js';

export const providerParam = z.object({ provider: z.enum(KEY_PROVIDERS) });

/** A key as vendors issue them: printable, no spaces (a pasted line break would break the header). */
export const setKeyBody = z.object({
  api_key: v.string({ min: 8, max: 512 }).regex(/^[\x21-\x7e]+$/, { error: 'The api key field format is invalid.' }),
});

export const storedKeySchema = z.object({
  provider: z.enum(KEY_PROVIDERS),
  key_hint: z.string().describe('the last four characters, e.g. ••••a1b2; the key itself is never shown again'),
  created_at: z.string(),
  updated_at: z.string(),
});
