import { z } from 'zod';
import { KEY_PROVIDERS } from '../../providers/speech.js';
import { v } from '../toolkit/validation.js';

export const providerParam = z.object({ provider: z.enum(KEY_PROVIDERS) });

/** A key as vendors issue them: printable, no spaces (a pasted line break would break the header). */
const apiKey = v.string({ min: 8, max: 512 }).regex(/^[\x21-\x7e]+$/, { error: 'The api key field format is invalid.' });
const baseUrl = v
  .url({ max: 512 })
  .describe(
    "`llm` only: the OpenAI-compatible chat server's base URL, with its version (e.g. `https://api.openai.com/v1`, `http://my-vllm:8000/v1`); left out: the deployment's OPENAI_API_URL. Private and loopback addresses are refused unless the deployment sets ALLOW_PRIVATE_TARGETS.",
  );

export const setKeyBody = z.object({
  api_key: apiKey,
  base_url: baseUrl.optional(),
});

export const storedKeySchema = z.object({
  provider: z.enum(KEY_PROVIDERS),
  key_hint: z.string().describe('the last four characters, e.g. ••••a1b2; the key itself is never shown again'),
  base_url: z.string().nullable().describe("`llm`: the chat server the account's assistants think with (the deployment's OPENAI_API_URL when none was given); null for the other providers"),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Trying a key: the stored one, or (before storing it) the one in the body. */
export const testKeyBody = z
  .object({
    api_key: apiKey.optional().describe('A key to try instead of the stored one (it is not stored); leave out to try the stored key'),
    base_url: baseUrl.optional().describe('`llm` only: a base URL to try instead of the stored one (not stored)'),
  })
  .optional();

export const keyCheckSchema = z.object({
  ok: z.boolean().describe('true when the vendor accepted the key'),
  provider: z.enum(KEY_PROVIDERS),
  checked: z.string().describe('the request whose answer decided, e.g. `GET https://api.openai.com/v1/models` (for `llm`, `POST …/chat/completions` when the server has no `/models`)'),
  status: z.number().int().optional().describe("the vendor's HTTP status, when it answered"),
  message: z.string().describe("for people: what worked or what failed, e.g. 'OpenAI refused the key (401 Unauthorized): …' or 'Could not reach … (connection refused).'"),
  latency_ms: z.number().int().describe('how long the request took'),
  key_hint: z.string().describe('which key was tried (its last four characters)'),
});
