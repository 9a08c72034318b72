/**
 * `X-Twilio-Signature`: how Twilio signs every HTTP request it makes to us (voice webhook,
 * status and answering-machine callbacks), and how we check it.
 *
 * The algorithm is twilio-node's (`getExpectedTwilioSignature`/`validateRequest`):
 * base64(HMAC-SHA1(authToken, url + for each form field in sorted name order: name + value)),
 * a repeated name contributing each distinct value in sorted order. Twilio is not consistent
 * about writing the default port into the URL it signs, so a signature is accepted over the
 * URL with the port and without it. A JSON body is not part of the signature: the URL then
 * carries `bodySHA256=<hex sha256 of the raw body>`, which is checked separately.
 *
 * `url` must be the public URL Twilio called (from PUBLIC_BASE_URL), never one rebuilt from
 * the `Host` header, which a client chooses.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Form fields as a request carries them: a name may repeat. */
export type SignedParams = URLSearchParams | Record<string, string | readonly string[] | undefined>;

function fieldsOf(params: SignedParams): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    const values = fields.get(name);
    if (values) values.push(value);
    else fields.set(name, [value]);
  };
  if (params instanceof URLSearchParams) {
    for (const [name, value] of params) add(name, value);
  } else {
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined) continue;
      if (typeof value === 'string') add(name, value);
      else for (const v of value) add(name, v);
    }
  }
  return fields;
}

/** The signature Twilio sends for a request to `url` with these form fields. */
export function twilioSignature(authToken: string, url: string, params: SignedParams = {}): string {
  const fields = fieldsOf(params);
  const hmac = createHmac('sha1', authToken);
  hmac.update(url, 'utf8');
  // Sorted by UTF-16 code units, as JavaScript's sort (and twilio-node) does.
  for (const name of [...fields.keys()].sort()) {
    for (const value of [...new Set(fields.get(name))].sort()) hmac.update(name + value, 'utf8');
  }
  return hmac.digest('base64');
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The URL as given, and normalised both with its scheme's default port and without any port. */
function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const withoutPort = new URL(parsed);
  withoutPort.port = '';
  const variants = [url, withoutPort.toString()];
  if (parsed.port) {
    variants.push(parsed.toString());
  } else {
    // Rebuilt by hand: URL drops a port equal to the scheme's default.
    const port = parsed.protocol === 'https:' || parsed.protocol === 'wss:' ? ':443' : ':80';
    const auth = parsed.username ? `${parsed.username}${parsed.password ? `:${parsed.password}` : ''}@` : '';
    variants.push(`${parsed.protocol}//${auth}${parsed.host}${port}${parsed.pathname}${parsed.search}${parsed.hash}`);
  }
  return [...new Set(variants)];
}

/**
 * True when `signature` is Twilio's for a form request to `url` (with or without an explicit
 * port) carrying `params`. Every candidate is compared, in constant time, so the answer's
 * timing says nothing about which part differed.
 */
export function isValidTwilioSignature(authToken: string, signature: string | undefined, url: string, params: SignedParams = {}): boolean {
  if (!signature || !authToken) return false;
  let valid = false;
  for (const candidate of urlVariants(url)) {
    if (sameText(signature, twilioSignature(authToken, candidate, params))) valid = true;
  }
  return valid;
}

/** Hex SHA-256 of a raw body, as Twilio puts it in `bodySHA256`. */
export function bodySha256(rawBody: string | Buffer): string {
  return createHash('sha256').update(rawBody).digest('hex');
}

/**
 * A JSON request: the signature covers the URL alone (which carries `bodySHA256`), and the
 * raw body must hash to that value. A URL without `bodySHA256` never validates here.
 */
export function isValidTwilioJsonSignature(authToken: string, signature: string | undefined, url: string, rawBody: string | Buffer): boolean {
  let claimed: string | null;
  try {
    claimed = new URL(url).searchParams.get('bodySHA256');
  } catch {
    return false;
  }
  if (!claimed) return false;
  const urlValid = isValidTwilioSignature(authToken, signature, url, {});
  const bodyValid = sameText(claimed, bodySha256(rawBody));
  return urlValid && bodyValid;
}
