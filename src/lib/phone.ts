import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * Normalises a phone number to E.164 (CONTRACT §5): international input as is, national
 * formats in `region`. Returns null when the number is not a valid number.
 */
export function toE164(input: unknown, region: string): string | null {
  if (typeof input !== 'string' || input.trim() === '' || input.length > 64) return null;
  if (/[a-z]/i.test(input.replace(/\s*(ext\.?|x)\s*\d+$/i, ''))) return null;
  const parsed = parsePhoneNumberFromString(input, region as CountryCode);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}

/** The ISO country of an E.164 number, or '' when unknown. */
export function countryOf(e164: string): string {
  return parsePhoneNumberFromString(e164)?.country ?? '';
}
