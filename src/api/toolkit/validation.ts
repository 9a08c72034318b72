/**
 * Request validation with Zod, reported in the Laravel shape existing clients know:
 * `{message, errors: {field: ["The field field is required.", ...]}}`.
 *
 * Rule helpers (`v.*`) attach Laravel message templates with an `:attribute` placeholder;
 * `laravelErrors` fills in the attribute from the issue path. A missing (or null, for a
 * non-nullable field) value always reads "The X field is required.".
 */
import { z } from 'zod';
import { ValidationError, type FieldErrors } from './errors.js';

export const msg = {
  required: 'The :attribute field is required.',
  string: 'The :attribute field must be a string.',
  integer: 'The :attribute field must be an integer.',
  number: 'The :attribute field must be a number.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute field must be an array.',
  object: 'The :attribute field must be an object.',
  in: 'The selected :attribute is invalid.',
  url: 'The :attribute field must be a valid URL.',
  format: 'The :attribute field format is invalid.',
  timezone: 'The :attribute field must be a valid timezone.',
  maxString: (n: number) => `The :attribute field must not be greater than ${n} characters.`,
  minString: (n: number) => `The :attribute field must be at least ${n} characters.`,
  betweenString: (a: number, b: number) => `The :attribute field must be between ${a} and ${b} characters.`,
  betweenNumber: (a: number, b: number) => `The :attribute field must be between ${a} and ${b}.`,
  minNumber: (n: number) => `The :attribute field must be at least ${n}.`,
  maxNumber: (n: number) => `The :attribute field must not be greater than ${n}.`,
  dateFormat: (f: string) => `The :attribute field must match the format ${f}.`,
};

/** Laravel's attribute display: `phone_number` → `phone number`; nested paths stay dotted. */
export function attributeName(path: PropertyKey[]): string {
  const key = path.map(String).join('.');
  return path.length === 1 ? key.replace(/_/g, ' ') : key;
}

function fallback(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'string') return msg.string;
      if (issue.expected === 'number' || issue.expected === 'int') return msg.number;
      if (issue.expected === 'boolean') return msg.boolean;
      if (issue.expected === 'array') return msg.array;
      if (issue.expected === 'object' || issue.expected === 'record') return msg.object;
      return msg.format;
    case 'invalid_value':
      return msg.in;
    case 'too_big':
      return issue.origin === 'string' ? msg.maxString(Number(issue.maximum)) : msg.maxNumber(Number(issue.maximum));
    case 'too_small':
      return issue.origin === 'string' ? msg.minString(Number(issue.minimum)) : msg.minNumber(Number(issue.minimum));
    default:
      return msg.format;
  }
}

/** Turns Zod issues into Laravel field errors, one key per dotted path, messages in order, no repeats. */
export function laravelErrors(issues: z.core.$ZodIssue[]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || '_';
    const input = (issue as { input?: unknown }).input;
    const missing =
      (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') &&
      (input === undefined || input === null);
    const template = missing ? msg.required : issue.message.includes(':attribute') ? issue.message : fallback(issue);
    const text = template.replace(/:attribute/g, attributeName(issue.path));
    const list = (out[key] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return out;
}

/** Parses `data` with `schema` or throws a 422 ValidationError with the given top-level message. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown, message?: string): z.output<S> {
  const result = schema.safeParse(data ?? {}, { reportInput: true });
  if (!result.success) throw new ValidationError(laravelErrors(result.error.issues), message);
  return result.data;
}

// ---------------------------------------------------------------- rule helpers

const e = (template: string) => ({ error: template });

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** NUL and unpaired UTF-16 surrogates: PostgreSQL text and jsonb cannot store them. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** True when no string (key or value) anywhere in the JSON value holds unstorable text. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (value && typeof value === 'object') {
    return Object.entries(value).every(([k, val]) => isStorableText(k) && isStorableJson(val));
  }
  return true;
}

/** Characters of JSON one free-form field may hold (variables, metadata, tool arguments). */
export const FREE_FORM_JSON_MAX = 65_536;

type Bounds = { min?: number; max?: number };

/**
 * Applies inclusive bounds with Laravel's wording: "between A and B" when both are set
 * (for strings only when the minimum is above 0), else "at least" / "not greater than".
 */
function bounded<S extends { min(n: number, p: object): S; max(n: number, p: object): S }>(
  schema: S,
  { min, max }: Bounds,
  words: { between(a: number, b: number): string; min(n: number): string; max(n: number): string },
  betweenFromZero = true,
): S {
  if (min !== undefined && max !== undefined && (betweenFromZero || min > 0)) {
    const between = e(words.between(min, max));
    return schema.min(min, between).max(max, between);
  }
  let out = schema;
  if (min !== undefined) out = out.min(min, e(words.min(min)));
  if (max !== undefined) out = out.max(max, e(words.max(max)));
  return out;
}

const stringWords = { between: msg.betweenString, min: msg.minString, max: msg.maxString };
const numberWords = { between: msg.betweenNumber, min: msg.minNumber, max: msg.maxNumber };

/** The largest id our serial (int4) columns hold. */
export const MAX_ID = 2_147_483_647;

/** A positive integer an id column can hold. */
export const isDbId = (n: number) => Number.isSafeInteger(n) && n > 0 && n <= MAX_ID;

export const v = {
  string(opts: Bounds = {}) {
    const s = z.string(e(msg.string)).refine(isStorableText, e(msg.format)) as unknown as z.ZodString;
    return bounded(s, opts, stringWords, false);
  },
  /**
   * A string that must not be empty, optionally bounded: `""` reads "The X field is required."
   * (CONTRACT: empty strings count as missing, Laravel's ConvertEmptyStringsToNull + required).
   */
  filled(opts: { max?: number } = {}) {
    return v.string(opts).min(1, { error: msg.required, abort: true });
  },
  /**
   * An optional string where `""` counts as not sent (null), as Laravel's ConvertEmptyStringsToNull
   * reads it for a nullable field; null and a missing key stay as they are.
   */
  emptyAsNull<T extends z.ZodType>(schema: T) {
    return z.preprocess((x) => (x === '' ? null : x), schema.nullable().optional());
  },
  /** A JSON integer (no strings), optionally bounded. */
  int(opts: Bounds = {}) {
    return bounded(z.number(e(msg.integer)).int(e(msg.integer)), opts, numberWords);
  },
  /** A JSON number, optionally bounded (inclusive). */
  number(opts: Bounds = {}) {
    return bounded(z.number(e(msg.number)), opts, numberWords);
  },
  bool() {
    return z.boolean(e(msg.boolean));
  },
  enum<const T extends readonly [string, ...string[]]>(values: T) {
    return z.enum(values, e(msg.in));
  },
  /** An http(s) URL. */
  url(opts: { max?: number } = {}) {
    return v.string({ max: opts.max ?? 2048 }).refine(isHttpUrl, e(msg.url));
  },
  /**
   * An identifier: a JSON integer, or a string of digits (CONTRACT §1), as a number.
   * Not an integer → "must be an integer"; an integer no row can have (≤ 0, too big) →
   * "The selected X is invalid." like Laravel's `exists`.
   */
  id() {
    return z.union([z.number(), z.string()], e(msg.integer)).transform((x, ctx) => {
      const n = typeof x === 'number' ? x : /^-?\d{1,12}$/.test(x) ? Number(x) : NaN;
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: 'custom', message: msg.integer, input: x });
        return z.NEVER;
      }
      if (!isDbId(n)) {
        ctx.addIssue({ code: 'custom', message: msg.in, input: x });
        return z.NEVER;
      }
      return n;
    });
  },
  /**
   * A free-form JSON object; `[]` (PHP clients' empty object) reads as `{}`. At most
   * FREE_FORM_JSON_MAX characters as JSON (its nesting is bounded before parsing ends, see
   * src/http/json-limits.ts, so measuring it cannot overflow the stack).
   */
  object() {
    return z.preprocess(
      (x) => (Array.isArray(x) && x.length === 0 ? {} : x),
      z
        .record(z.string(), z.unknown(), e(msg.object))
        .refine((x) => JSON.stringify(x).length <= FREE_FORM_JSON_MAX, e(msg.maxString(FREE_FORM_JSON_MAX)))
        .refine(isStorableJson, e(msg.format)),
    );
  },
  timezone() {
    return z.string(e(msg.string)).refine(isTimezone, e(msg.timezone));
  },
  array<T extends z.ZodType>(item: T) {
    return z.array(item, e(msg.array));
  },
};

/** An optional query value: a string, where '' means "not sent" (as Laravel's ConvertEmptyStringsToNull), then checked by `inner`. */
export function optionalQuery<T extends z.ZodType<unknown, string>>(inner: T) {
  return z
    .string({ error: msg.string })
    .optional()
    .transform((s) => (s === '' ? undefined : s))
    .pipe(inner.optional());
}

/** A positive integer id as a query string (column type int4, so bounded). */
export const queryId = z
  .string()
  .regex(/^-?\d+$/, { error: msg.integer })
  .transform(Number)
  .pipe(v.int({ min: 1, max: MAX_ID }));

/** True for a real proleptic-Gregorian calendar date with a four-digit year from 0001. */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return d <= days;
}

export { isHttpUrl, isTimezone };
