/**
 * The one redaction list of the logs (issue 15): what must never reach a log line, wherever
 * it sits in it — secret-bearing fields (header values, tokens, secrets, keys, passwords) by
 * their name at any depth, and in every text: the userinfo and query string of URLs, e-mail
 * addresses, E.164 phone numbers, our API tokens (`sb_…`), webhook secrets (`whsec_…`),
 * bearer/basic credentials and SHA-256 hex digests (token hashes).
 *
 * For LOGS only: API responses carry e-mail addresses and phone numbers legitimately, and
 * nothing here touches them. src/logger.ts applies it to every finished log line (pino's
 * `streamWrite` hook) and derives pino's `redact` paths from SECRET_FIELDS.
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
  // Personal data kept out of logs by field (its text is masked anyway).
  'transcript',
];
export const SECRET_SUFFIXES: readonly string[] = ['-token', '-secret', '-key', '-password', 'token', 'secret', 'apikey'];

export const REDACTED = '[redacted]';

function normalisedField(name: string): string {
  return name.toLowerCase().replace(/_/g, '-');
}

/** True when a field of this name holds a secret (its value is never logged). */
export function isSecretField(name: string): boolean {
  let known = fieldVerdicts.get(name);
  if (known === undefined) {
    const n = normalisedField(name);
    known = SECRET_FIELDS.includes(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
    // Log lines reuse a small set of field names; the cache stays bounded all the same.
    if (fieldVerdicts.size >= 2000) fieldVerdicts.clear();
    fieldVerdicts.set(name, known);
  }
  return known;
}
const fieldVerdicts = new Map<string, boolean>();

/** pino `redact` paths from the list: the fields at the top, one level down, and in headers. */
export function redactPaths(): string[] {
  const paths: string[] = [];
  for (const f of SECRET_FIELDS) {
    const key = /^[a-z_$][\w$]*$/i.test(f) ? f : `["${f}"]`;
    const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
    paths.push(key.startsWith('[') ? key.slice(2, -2) : key, join('*'), join('req.headers'), join('*.headers'), join('headers'));
  }
  return [...new Set(paths)];
}

/** Text rules, in order: URLs first (so `user:pass@host` is not taken for an e-mail address). */
const TEXT_RULES: [RegExp, string][] = [
  // Userinfo of any URL: scheme://user:password@host → scheme://host.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi, '$1'],
  // Query strings and fragments of absolute URLs.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]+)[?#][^\s"'<>]*/gi, '$1'],
  // Query strings of paths (request lines, "Route GET:/x?y not found").
  [/((?:^|[\s"'(=:,])\/[^\s?#"'<>]*)\?[^\s"'<>]*/g, '$1'],
  [/\bwhsec_[A-Za-z0-9+/=_-]+/g, `whsec_${REDACTED}`],
  [/\bsb_[A-Za-z0-9_-]{8,}/g, `sb_${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{12,}/g, `sk-${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/gi, REDACTED],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, '[email]'],
  [/(?<![\w+])\+[1-9]\d{6,14}(?!\d)/g, '[phone]'],
];

/** Cheap first look: a text without any of these needs no rule (most log strings). */
const MAY_NEED_REDACTION = /[@+?#]|:\/\/|whsec_|sb_|sk-|bearer|basic|[0-9a-f]{64}/i;

/** A text as it may be logged: every rule of the list applied. */
export function redactText(text: string): string {
  if (!MAY_NEED_REDACTION.test(text)) return text;
  let out = text;
  for (const [re, replacement] of TEXT_RULES) out = out.replace(re, replacement);
  return out;
}

/** Userinfo and query strings out of every URL in a text; the path stays. */
export function scrubUrls(text: string): string {
  return TEXT_RULES.slice(0, 3).reduce((out, [re, replacement]) => out.replace(re, replacement), text);
}

/** A value as it may be logged: secret fields redacted, every string redacted (bounded depth). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 20) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretField(k) && v !== null && typeof v !== 'number' && typeof v !== 'boolean' ? REDACTED : redactValue(v, depth + 1);
  }
  return out;
}

/**
 * A finished log line (one JSON object and a newline, as pino writes it) with the list
 * applied to every field at every depth, the message included. A line that is not JSON is
 * redacted as text.
 */
export function redactLogLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return redactText(line);
  }
  return `${JSON.stringify(redactValue(parsed))}\n`;
}
