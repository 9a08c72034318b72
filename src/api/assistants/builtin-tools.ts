/**
 * Built-in tools of an assistant (issue 20): the items of the request's `tools` array such as
 * `{"type": "end_call"}` or `{"type": "call_transfer", "phone_number": "+49…"}`.
 *
 * An item arrives flat, `{type, …fields}` (the documented form), or nested,
 * `{type, data: {…fields}}` (the record's own shape, which one client sends back). Each type's
 * fields are checked by its own schema; an error names the field as the request sent it
 * (`tools.0.phone_number` or `tools.0.data.phone_number`). Rules that need the database (the
 * caller's phone number, the caller's other assistant) are checked in service.ts.
 * `mid_call_tool` items (what the record shows for attached HTTP tools) are accepted and
 * ignored: those assignments change only through `tool_ids`.
 */
import { z } from 'zod';
import { BUILTIN_TOOL_TYPES, type StoredBuiltinTool } from '../../db/schema.js';
import { maskSecret } from '../../lib/secrets.js';
import { msg, v } from '../toolkit/validation.js';

export const BUILTIN_TYPES = BUILTIN_TOOL_TYPES;
export type BuiltinType = (typeof BUILTIN_TYPES)[number];

/** E.164: "+", a country code that does not start with 0, 7 to 15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;
const phone = () => v.string({ max: 16 }).regex(E164, { error: msg.format });
const text = (max: number) => v.string({ max }).nullable().optional();
const required = (max: number) => v.string({ max }).min(1, { error: msg.required });

/** The fields of each type, with the issue's defaults. Unknown fields are dropped. */
export const BUILTIN_SCHEMAS = {
  end_call: z.object({ description: text(500) }),
  call_transfer: z.object({
    phone_number: phone(),
    description: text(500),
    warm_transfer: v.bool().default(false),
    warm_transfer_message: text(1000),
    timezone: v.timezone().nullable().optional(),
  }),
  warm_call_transfer: z
    .object({
      supervisor_phone: phone(),
      outbound_phone_id: v.id(),
      description: required(500),
      caller_id_mode: v.enum(['outbound_number', 'customer_number', 'custom']).default('outbound_number'),
      custom_caller_id: phone().nullable().optional(),
      hold_music: v.enum(['hold_music', 'none']).default('hold_music'),
      hold_music_volume: v.int({ min: 0, max: 100 }).default(80),
      hold_message: text(1000),
      summary_instructions: text(2000),
      briefing_initial_message: text(1000),
      connected_message: text(1000),
    })
    .superRefine((x, ctx) => {
      if (x.caller_id_mode === 'custom' && !x.custom_caller_id) {
        ctx.addIssue({
          code: 'custom',
          path: ['custom_caller_id'],
          message: 'The :attribute field is required when caller id mode is custom.',
        });
      }
    }),
  dtmf_input: z.object({ description: text(500) }),
  collect_keypad: z.object({
    timeout: v.int({ min: 1, max: 30 }).default(5),
    stop_key: v.enum(['#', '*']).nullable().optional(),
  }),
  assistant_transfer: z.object({
    assistant_id: v.id(),
    description: text(500),
    message_before_transfer: text(500),
    speak_transfer_greeting: v.bool().default(true),
  }),
  calendar_integration: z
    .object({
      calcom_api_key: required(255),
      calcom_event_slug: required(255).regex(/^[A-Za-z0-9._-]+$/, { error: msg.format }),
      calcom_team_slug: v.string({ max: 255 }).regex(/^[A-Za-z0-9._-]+$/, { error: msg.format }).nullable().optional(),
      calcom_endpoint: v.enum(['us', 'eu', 'custom']).default('us'),
      calcom_custom_endpoint: v.url().nullable().optional(),
      calcom_booking_fields: v
        .array(v.string({ max: 100 }).regex(/^[A-Za-z0-9_]+$/, { error: msg.format }))
        .max(20, { error: 'The :attribute field must not have more than 20 items.' })
        .default([]),
    })
    .superRefine((x, ctx) => {
      if (x.calcom_endpoint === 'custom' && !x.calcom_custom_endpoint) {
        ctx.addIssue({
          code: 'custom',
          path: ['calcom_custom_endpoint'],
          message: 'The :attribute field is required when calcom endpoint is custom.',
        });
      }
    }),
} satisfies Record<BuiltinType, z.ZodType>;

export type BuiltinFields<T extends BuiltinType> = z.output<(typeof BUILTIN_SCHEMAS)[T]>;
export type AnyBuiltin = { [T in BuiltinType]: { type: T; data: BuiltinFields<T> } }[BuiltinType];

/** One request item after its own checks: the fields, and the prefix its errors are reported under. */
export type ParsedBuiltin = AnyBuiltin & { at: string };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * One request item → its type and fields, or issues at the item's path. Output `null` for a
 * `mid_call_tool` item (ignored, see above).
 */
const builtinItem = z.unknown().transform((raw, ctx): Omit<ParsedBuiltin, 'at'> & { nested: boolean } | null => {
  if (!isObject(raw)) {
    ctx.addIssue({ code: 'custom', message: msg.object, input: raw });
    return z.NEVER;
  }
  if (raw.type === 'mid_call_tool') return null;
  const type = v.enum(BUILTIN_TYPES).safeParse(raw.type, { reportInput: true });
  if (!type.success) {
    for (const issue of type.error.issues) ctx.issues.push({ ...issue, path: ['type', ...issue.path] } as never);
    return z.NEVER;
  }
  const nested = raw.data !== undefined;
  if (nested && !isObject(raw.data)) {
    ctx.addIssue({ code: 'custom', message: msg.object, path: ['data'], input: raw.data });
    return z.NEVER;
  }
  const fields = nested ? (raw.data as Record<string, unknown>) : raw;
  const parsed = (BUILTIN_SCHEMAS[type.data] as z.ZodType).safeParse(fields, { reportInput: true });
  if (!parsed.success) {
    const prefix = nested ? ['data'] : [];
    for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, path: [...prefix, ...issue.path] } as never);
    return z.NEVER;
  }
  return { type: type.data, data: parsed.data, nested } as Omit<ParsedBuiltin, 'at'> & { nested: boolean };
});

export const builtinToolsField = () =>
  v
    .array(builtinItem)
    .max(50, { error: 'The :attribute field must not have more than 50 items.' })
    .transform((items) =>
      items.flatMap((item, i): ParsedBuiltin[] => {
        if (!item) return [];
        const { nested, ...rest } = item;
        return [{ ...rest, at: `tools.${i}.${nested ? 'data.' : ''}` } as ParsedBuiltin];
      }),
    );

// ---------------------------------------------------------------- storage and record

export type StoredBuiltin = StoredBuiltinTool;

/**
 * Request items → stored items. A `calcom_api_key` equal to the hint of a key already stored
 * on this assistant is that key echoed back from the record, so the stored key stays.
 */
export function storeBuiltins(items: ParsedBuiltin[], current: readonly StoredBuiltin[], seal: (plain: string) => string): StoredBuiltin[] {
  const known = new Map<string, string>();
  for (const c of current) if (c.type === 'calendar_integration') known.set(c.data.calcom_api_key_hint, c.data.calcom_api_key_sealed);
  return items.map(({ at: _at, ...item }): StoredBuiltin => {
    if (item.type !== 'calendar_integration') return item as StoredBuiltin;
    const { calcom_api_key: key, ...rest } = item.data;
    const sealed = known.get(key) ?? seal(key);
    const hint = known.has(key) ? key : maskSecret(key);
    return { type: 'calendar_integration', data: { ...rest, calcom_api_key_sealed: sealed, calcom_api_key_hint: hint } };
  });
}

/** Optional fields the record shows as null when not set, per type (so every item has all its keys). */
const ALL_FIELDS = Object.fromEntries(
  BUILTIN_TYPES.map((t) => [t, Object.keys(BUILTIN_SCHEMAS[t].shape)]),
) as unknown as Record<BuiltinType, readonly string[]>;

/** A stored item as the record's `{type, data}`: every field present, the API key masked. */
export function builtinRecord(item: StoredBuiltin): { type: string; data: Record<string, unknown> } {
  const data: Record<string, unknown> = {};
  for (const k of ALL_FIELDS[item.type]) data[k] = null;
  if (item.type === 'calendar_integration') {
    const { calcom_api_key_sealed: _s, calcom_api_key_hint: hint, ...rest } = item.data;
    Object.assign(data, rest, { calcom_api_key: hint });
  } else {
    Object.assign(data, item.data);
  }
  return { type: item.type, data };
}
