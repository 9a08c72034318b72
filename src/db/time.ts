/**
 * Timestamp formats of the API (spec 2.1). The database returns timestamptz as text in UTC,
 * e.g. `2026-11-22 10:30:00.123456+00` (fraction omitted when zero).
 */

/** Tool and assistant timestamps: ISO 8601 with microseconds and `Z`. */
export function isoMicro(value: string | null): string | null {
  if (value === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?/.exec(value);
  if (!m) return new Date(value).toISOString().replace('Z', '000Z');
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`;
}

/** Lead and call timestamps: `YYYY-MM-DD HH:MM:SS` (UTC). */
export function sqlDateTime(value: string | null): string | null {
  if (value === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})/.exec(value);
  return m ? `${m[1]} ${m[2]}` : null;
}
