/**
 * Text from outside (a receiver's answer) made storable: PostgreSQL text and jsonb refuse NUL
 * and unpaired UTF-16 surrogates, and one such character fails the whole statement it is in.
 * Input through our API is refused instead (src/api/toolkit/validation.ts); what a third party
 * answered is kept, with each such character replaced by U+FFFD.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storableText(value: string): string {
  return value.replace(UNSTORABLE, '\uFFFD');
}

/** The JSON value with every string in it, keys included, made storable. */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableJson(v)]));
  }
  return value;
}
