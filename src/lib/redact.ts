/**
 * The one redaction list of the logs (issue 15): what must never reach a log line, wherever
 * it sits in it — secret-bearing fields (header values, tokens, secrets, keys, passwords) by
 * their name at any depth, phone numbers in fields named for them (any format), and in every
 * text: the userinfo and query string of URLs, e-mail addresses, international phone numbers
 * (`+…`, digit groups allowed), our API tokens (`sb_…` as minted), webhook secrets
 * (`whsec_…`), bearer/basic credentials and SHA-256 hex digests (token hashes).
 *
 * Every text is cut to MAX_LOGGED_CHARS first, and every rule is linear in the text's length: a
 * hostile string (a megabyte of digits after a `+`) costs the event loop next to nothing.
 *
 * For LOGS only: API responses carry e-mail addresses and phone numbers legitimately, and
 * nothing here touches them. src/logger.ts applies it to what a log call is given (its fields,
 * message and arguments, and child loggers' bindings) before pino serializes it, and derives
 * pino's `redact` paths from SECRET_FIELDS.
 */

/**
 * Field names whose values are secrets (compared lower-case, `-` and `_` alike): header
 * values, credentials and signatures. A field whose name ends in one of SECRET_SUFFIXES is a
 * secret too (`auth_token`, `webhook_secret`, `api_key`, `s3_secret_access_key`).
 */
export const SECRET_FIELDS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-twilio-signature',
  'webhook-signature',
  'x-api-key',
  'token',
  'secret',
  'password',
  'passwd',
  'api-key',
  'apikey',
  'signature',
  'credentials',
  // Personal data kept out of logs by field: what was said on a call (its text is masked
  // anyway; code logs the length of such text, never the words — docs/decisions.md).
  'transcript',
  'text',
  'caller-text',
  'heard-text',
];
export const SECRET_SUFFIXES: readonly string[] = ['-token', '-secret', '-key', '-password', 'token', 'secret', 'apikey'];

export const REDACTED = '[redacted]';

function normalisedField(name: string): string {
  return name.toLowerCase().replace(/_/g, '-');
}

/**
 * Field names whose values are phone numbers, by the words of the name (camelCase, `_` and
 * `-` split): `phone`, `phone_number`, `clientPhoneNumber`, `phone_numbers`, `msisdn` —
 * masked whatever the value looks like (national formats, no `+`, a number). A name that
 * ends in another word is about something else (`phoneNumberId`, `phone_count`) and stays.
 */
function namesPhoneNumber(words: readonly string[]): boolean {
  if (words.includes('msisdn')) return true;
  const last = words.at(-1) ?? '';
  return words.some((w) => w === 'phone' || w === 'phones') && ['phone', 'phones', 'number', 'numbers'].includes(last);
}

/**
 * Field names that hold a phone number often but not always (Twilio's `To`/`From`/`Caller`,
 * our `to`, a call status transition's `from`/`to`): masked only when the value looks like a
 * phone number in some format (see `looksLikePhoneNumber`). Compared lower-case without `-`/`_`.
 */
const MAYBE_PHONE_FIELDS: readonly string[] = [
  'to',
  'from',
  'number',
  'caller',
  'called',
  'callee',
  'callerid',
  'fromnumber',
  'tonumber',
  'callernumber',
  'callednumber',
  'forwardedfrom',
  'destination',
  'transferto',
];

export const PHONE_MASK = '[phone]';

type FieldKind = 'secret' | 'phone' | 'maybe-phone' | 'plain';

function kindOfField(name: string): FieldKind {
  const n = normalisedField(name);
  if (SECRET_FIELDS.includes(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s))) return 'secret';
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_-]+/);
  if (namesPhoneNumber(words)) return 'phone';
  if (MAYBE_PHONE_FIELDS.includes(n.replace(/-/g, ''))) return 'maybe-phone';
  return 'plain';
}

function fieldKind(name: string): FieldKind {
  let known = fieldKinds.get(name);
  if (known === undefined) {
    known = kindOfField(name);
    // Log lines reuse a small set of field names; the cache stays bounded all the same.
    if (fieldKinds.size >= 2000) fieldKinds.clear();
    fieldKinds.set(name, known);
  }
  return known;
}
const fieldKinds = new Map<string, FieldKind>();

/** True when a field of this name holds a secret (its value is never logged). */
export function isSecretField(name: string): boolean {
  return fieldKind(name) === 'secret';
}

/** True when a field of this name holds a phone number (its value is masked whatever its format). */
export function isPhoneField(name: string): boolean {
  return fieldKind(name) === 'phone';
}

/**
 * A phone number in some format: 6 to 15 digits, optionally after `+`, with the usual
 * separators (spaces, `-`, `.`, `/`, parentheses) between them, or a `tel:` URI of one.
 * Call statuses, ids with letters, dates and times, and short counts are not.
 */
export function looksLikePhoneNumber(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 100_000 && value < 1e15;
  if (typeof value !== 'string') return false;
  const bare = value.trim().replace(/^tel:/i, '');
  if (!/^\+?[\d\s().\/-]+$/.test(bare) || /^\d{4}-\d{2}-\d{2}$/.test(bare)) return false;
  const digits = bare.replace(/\D/g, '');
  return digits.length >= 6 && digits.length <= 15;
}

/**
 * pino `redact` paths from the list: the fields at the top, in `headers` and in `req.headers`.
 * No path starts with a wildcard: pino 10 (@pinojs/redact) walks its paths on every call, and a
 * `*.…` path runs for every field of every line (measured: 19% of the API's CPU at `info`).
 * Deeper fields are covered by `redactValue`, which src/logger.ts applies to every log call.
 */
export function redactPaths(): string[] {
  const paths: string[] = [];
  for (const f of SECRET_FIELDS) {
    const key = /^[a-z_$][\w$]*$/i.test(f) ? f : `["${f}"]`;
    const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
    paths.push(key.startsWith('[') ? key.slice(2, -2) : key, join('req.headers'), join('headers'));
  }
  return [...new Set(paths)];
}

/**
 * A URL's scheme and `://`, as `\b[a-z][a-z0-9+.-]*:\/\/` finds it, but tried only where a run of
 * scheme characters begins, and only when the run is followed by `://` (checked once): the plain
 * pattern rescans the run from every letter after a `.`, `+` or `-` in it, quadratic on a long
 * run (`a.a.a.…`). The scheme starts at the run's first letter that has a word boundary before
 * it, as with `\b`; the characters of the run before that letter are kept with it.
 */
const SCHEME = String.raw`(?<![a-z0-9+.-])(?=[a-z0-9+.-]*:\/\/)(?:(?<!\w)[a-z]|[a-z0-9+.-]*?[+.-][a-z])[a-z0-9+.-]*:\/\/`;

/**
 * Removes group 2 (a query string) when there is one. The rules that use it match the text before
 * a query also when none follows, so a failed search consumes that text instead of starting over
 * at each of its characters (which was quadratic on a long path or host without `?`).
 */
const dropQuery = (match: string, kept: string, query: string | undefined) => (query === undefined ? match : kept);

/**
 * Text rules, in order: URLs first (so `user:pass@host` is not taken for an e-mail address).
 * Each rule is linear in the text's length (bounded backtracking, no rescan of a run from each
 * of its characters); test/lib/redact.test.ts compares them with their plain forms.
 */
const URL_RULES: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  // Userinfo of any URL: scheme://user:password@host → scheme://host.
  [new RegExp(String.raw`(${SCHEME})[^\s/@"'<>]+@`, 'gi'), '$1'],
  // Query strings and fragments of absolute URLs.
  [new RegExp(String.raw`(${SCHEME}[^\s?#"'<>]+)([?#][^\s"'<>]*)?`, 'gi'), dropQuery],
  // Query strings of paths (request lines, "Route GET:/x?y not found").
  [/((?:^|[\s"'(=:,])\/[^\s?#"'<>]*)(\?[^\s"'<>]*)?/g, dropQuery],
];
const TEXT_RULES: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  ...URL_RULES,
  [/\bwhsec_[A-Za-z0-9+/=_-]+/g, `whsec_${REDACTED}`],
  // API tokens as src/accounts/tokens.ts mints them: `sb_` and 43 base64url characters (32
  // random bytes), admin tokens `sb_admin_` and the same. Internal names that also start with
  // `sb_` (LISTEN channels, prepared statements: `sb_call_answered_by`) are shorter and stay.
  [/\bsb_[A-Za-z0-9_-]{43,}/g, `sb_${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{12,}/g, `sk-${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/gi, REDACTED],
  // From the start of a run of local-part characters only: any later start in the run reaches
  // the same `@`, and trying each was quadratic on a long run without one.
  [/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, '[email]'],
  // International numbers: `+` and 7-15 digits, in groups or not (`+49 30 1234-5678`,
  // `+1 (415) 555-0123`). National formats in free text are left alone: without the `+` they
  // cannot be told from ids, amounts and times (fields named for phone numbers are masked).
  [/(?<![\w+])\+[1-9]\d*(?:(?:[ .-]|[ .-]?\(\d+\)[ .-]?)\d+)*(?!\d)/g, maskPhoneGroups],
];

/**
 * A `+` and digit groups as matched: the longest leading run of groups with at most 15 digits
 * is the number (masked when it has 7 or more); what follows it (`+4915112345678 1234 times`)
 * is other text and stays.
 */
function maskPhoneGroups(match: string): string {
  const groups = match.match(/\D*\d+/g) ?? [];
  let digits = 0;
  let length = 0;
  for (const group of groups) {
    const more = group.replace(/\D/g, '').length;
    if (digits + more > 15) break;
    digits += more;
    length += group.length;
  }
  return digits >= 7 ? PHONE_MASK + match.slice(length) : match;
}

/**
 * Cheap first look: a text without any of these needs no rule (most log strings). The 64 hex
 * digits of a digest are looked for only in a text that long (trying them at every character
 * was most of the look's cost on the short strings of a log line).
 */
const MAY_NEED_REDACTION = /[@+?#]|:\/\/|whsec_|sb_|sk-|bearer|basic/i;
const MAY_HOLD_DIGEST = /[0-9a-f]{64}/i;

/**
 * The longest text a log line keeps (each string of it): a longer one is a body or a blob, not a
 * message, and cutting it bounds what the rules cost (linear, but a megabyte still took tens of
 * milliseconds of the event loop) and what a line weighs.
 */
export const MAX_LOGGED_CHARS = 16 * 1024;

/**
 * The first MAX_LOGGED_CHARS characters of `text`, back to the last white space, and a marker.
 * The word the cut falls in goes too: a cut secret (half a token, an e-mail address without its
 * domain) would no longer be recognised by its rule. Secrets hold no white space; a number in
 * groups (`+49 30 12|34 567`) may leave its first groups, too few digits to be a number.
 */
function truncated(text: string): string {
  let end = MAX_LOGGED_CHARS;
  while (end > 0 && !/\s/.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}[truncated: ${text.length} characters]`;
}

/** A text as it may be logged: cut to MAX_LOGGED_CHARS, every rule of the list applied. */
export function redactText(text: string): string {
  if (text.length > MAX_LOGGED_CHARS) text = truncated(text);
  if (!MAY_NEED_REDACTION.test(text) && (text.length < 64 || !MAY_HOLD_DIGEST.test(text))) return text;
  let out = text;
  for (const [re, replacement] of TEXT_RULES) out = typeof replacement === 'string' ? out.replace(re, replacement) : out.replace(re, replacement as (match: string, ...groups: string[]) => string);
  return out;
}

/** Userinfo and query strings out of every URL in a text; the path stays. */
export function scrubUrls(text: string): string {
  return URL_RULES.reduce((out, [re, replacement]) => (typeof replacement === 'string' ? out.replace(re, replacement) : out.replace(re, replacement)), text);
}

/**
 * A value as it may be logged: secret fields redacted, phone fields masked, every string
 * redacted (bounded depth). A value with `toJSON` (a Date, a URL, a Buffer) is taken as it
 * would be serialized.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 20) return REDACTED;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return redactValue((value as { toJSON(): unknown }).toJSON(), depth + 1);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactField(k, v, depth + 1);
  return out;
}

/** The value of a field named `name` as it may be logged (see `redactValue`). */
export function redactField(name: string, value: unknown, depth = 0): unknown {
  const kind = fieldKind(name);
  if (kind === 'secret' && value !== null && value !== undefined && typeof value !== 'number' && typeof value !== 'boolean') return REDACTED;
  if (kind === 'phone') return Array.isArray(value) ? value.map(maskPhoneValue) : maskPhoneValue(value);
  if (kind === 'maybe-phone' && looksLikePhoneNumber(value)) return PHONE_MASK;
  return redactValue(value, depth);
}

/** A value of a phone field: any number or text is the phone number; anything else is redacted as usual. */
function maskPhoneValue(value: unknown): unknown {
  return typeof value === 'number' || (typeof value === 'string' && value !== '') ? PHONE_MASK : redactValue(value, 1);
}
