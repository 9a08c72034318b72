/**
 * Request rules of mid-call tools (spec 2.2, 4.1, 4.3, 8). Messages follow the Laravel
 * wording of src/http/validation.ts; array items are keyed `headers.0.value`, `schema.1.name`.
 */
import { z } from 'zod';
import type { FieldErrors } from '../toolkit/errors.js';
import { isHttpUrl, msg, v } from '../toolkit/validation.js';

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const PARAM_TYPES = ['string', 'number', 'boolean'] as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** PostgreSQL text and jsonb take neither NUL nor unpaired surrogates: refuse them up front (never a 500). */
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);
/** An HTTP header name (RFC 9110 token); anything else would make the tool request itself fail. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value may not carry line breaks or NUL (header injection; fetch refuses them). */
const HEADER_VALUE_OK = (s: string) => !/[\r\n\u0000]/.test(s);

/** A string field; `""` reads "The X field is required." (Laravel treats an empty string as missing). */
function text(opts: { min?: number; max?: number } = {}) {
  let s = z.string({ error: msg.string }).min(1, { error: msg.required, abort: true });
  const { min, max } = opts;
  if (min !== undefined && max !== undefined) {
    s = s.min(min, { error: msg.betweenString(min, max) }).max(max, { error: msg.betweenString(min, max) });
  } else if (max !== undefined) {
    s = s.max(max, { error: msg.maxString(max) });
  }
  return s.refine(storable, { error: msg.format });
}

/** An enum whose missing or empty value reads "required" (v.enum says "The selected X is invalid." then). */
function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (iss) => (iss.input === undefined || iss.input === null || iss.input === '' ? msg.required : msg.in) });
}

export const headerSchema = z.object({
  name: text({ max: 255 }).regex(HEADER_NAME, { error: msg.format }),
  value: text().refine(HEADER_VALUE_OK, { error: msg.format }),
}, { error: msg.object });

export const paramSchema = z.object({
  name: text({ min: 2, max: 32 }).regex(/^[A-Za-z][A-Za-z_]*$/, { error: msg.format }),
  type: oneOf(PARAM_TYPES),
  description: text({ min: 3, max: 255 }),
}, { error: msg.object });

/** Parameter names become the properties of the function the LLM calls: no duplicates. */
const paramList = v.array(paramSchema).superRefine((items, ctx) => {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name)) {
      ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'The :attribute field has a duplicate value.', input: item.name });
    }
    seen.add(item.name);
  });
});

const fields = {
  name: text({ max: 64 }).regex(/^[a-z][a-z_]*$/, { error: msg.format }),
  description: text({ max: 255 }),
  endpoint: text({ max: 2048 }).refine(isHttpUrl, { error: msg.url }),
  method: oneOf(TOOL_METHODS),
  // null on an optional field means "not supplied" (docs/decisions.md, Mid-call tools)
  timeout: v.int({ min: 1, max: 30 }).nullish(),
  headers: v.array(headerSchema).nullish(),
  schema: paramList.nullish(),
};

export const createToolBody = z.object({
  name: fields.name.describe('Lowercase letters and underscores, begins with a letter'),
  description: fields.description.describe('When and how the AI should use the tool, max 255 characters'),
  endpoint: fields.endpoint.describe('http(s) URL the tool request goes to'),
  method: fields.method,
  timeout: fields.timeout.describe('Seconds, 1-30, default 10'),
  headers: fields.headers.describe('HTTP headers sent with the tool request'),
  schema: fields.schema.describe('Parameters the AI extracts from the conversation and sends to the endpoint'),
});

export const updateToolBody = z.object({
  name: fields.name.optional(),
  description: fields.description.optional(),
  endpoint: fields.endpoint.optional(),
  method: fields.method.optional(),
  timeout: fields.timeout,
  headers: fields.headers.describe('Replaces the stored headers'),
  schema: fields.schema.describe('Replaces the stored schema'),
});

export type CreateToolInput = z.output<typeof createToolBody>;
export type UpdateToolInput = z.output<typeof updateToolBody>;


/** A body that is not a JSON object (array, string, null) counts as an empty one. */
export function asObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/**
 * Laravel's ValidationException::summarize, the top-level message of tool creation
 * (CONTRACT §1): the first error, then "(and 1 more error)" / "(and N more errors)".
 */
export function summarize(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  if (all.length === 0) return 'The given data was invalid.';
  const rest = all.length - 1;
  if (rest === 0) return all[0];
  return `${all[0]} (and ${rest} more ${rest === 1 ? 'error' : 'errors'})`;
}
