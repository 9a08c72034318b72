/**
 * Calling windows of a campaign (CONTRACT §5): `allowed_days` and
 * `allowed_hours_start_time`–`allowed_hours_end_time` in the campaign's IANA timezone.
 *
 * Wall-clock times are read with `Intl.DateTimeFormat`, so daylight-saving changes are the
 * platform's tz database's business, not offset arithmetic of ours: a 09:00–17:00 window in
 * America/New_York opens at 14:00 UTC in winter and 13:00 UTC in summer.
 *
 * Rules (docs/decisions.md, "Dialer"):
 * - start < end: open on an allowed day from start (inclusive) to end (exclusive); an end of
 *   `23:59` means the end of the day, so the default 00:00–23:59 is the whole day.
 * - end < start (e.g. 22:00–06:00): overnight; the window belongs to the day it starts on, so
 *   "friday 22:00–06:00" runs from Friday 22:00 to Saturday 06:00 (and Saturday early morning
 *   is open because Friday is allowed, not because Saturday is).
 * - start = end: the whole day.
 * - a wall-clock time skipped by a DST change simply does not occur; at 03:00 on the March
 *   change a window that starts at 02:30 is already open.
 */

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

export interface CallingWindow {
  timezone: string;
  allowedDays: readonly string[];
  /** `HH:MM` */
  startTime: string;
  /** `HH:MM` */
  endTime: string;
}

/** The calling window of a campaign row as read from the database (snake_case columns). */
export function windowOf(c: {
  timezone: string;
  allowed_days: string[];
  allowed_hours_start_time: string;
  allowed_hours_end_time: string;
}): CallingWindow {
  return {
    timezone: c.timezone,
    allowedDays: Array.isArray(c.allowed_days) ? c.allowed_days : [],
    startTime: c.allowed_hours_start_time,
    endTime: c.allowed_hours_end_time,
  };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      weekday: 'long',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** Local weekday (0 = Sunday) and minute of the day of `at` in `timezone`. Throws on an unknown zone. */
export function localTime(at: Date, timezone: string): { weekday: number; minutes: number } {
  let weekday = -1;
  let hour = 0;
  let minute = 0;
  for (const part of formatter(timezone).formatToParts(at)) {
    if (part.type === 'weekday') weekday = WEEKDAYS.indexOf(part.value.toLowerCase() as (typeof WEEKDAYS)[number]);
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { weekday, minutes: hour * 60 + minute };
}

/** `HH:MM` (or `HH:MM:SS`) → minute of the day; null when malformed. */
export function parseClock(value: string): number | null {
  const m = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(value.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 23 || min > 59) return null;
  return h * 60 + min;
}

/** Whether the campaign may dial at `at`. A malformed window or unknown timezone is closed. */
export function isWindowOpen(window: CallingWindow, at: Date): boolean {
  const start = parseClock(window.startTime);
  let end = parseClock(window.endTime);
  if (start === null || end === null) return false;
  let local: { weekday: number; minutes: number };
  try {
    local = localTime(at, window.timezone);
  } catch {
    return false;
  }
  const allowed = new Set(window.allowedDays.map((d) => d.toLowerCase()));
  const day = (offset: number) => WEEKDAYS[(local.weekday + offset + 7) % 7];
  if (end === 23 * 60 + 59) end = 24 * 60;
  if (start === end) return allowed.has(day(0));
  if (start < end) return allowed.has(day(0)) && local.minutes >= start && local.minutes < end;
  // Overnight: the evening part belongs to today, the early-morning part to yesterday.
  if (local.minutes >= start) return allowed.has(day(0));
  if (local.minutes < end) return allowed.has(day(-1));
  return false;
}

/**
 * The first minute at or after `from` at which the window is open (minute resolution), or
 * null when it never opens within `horizonDays`. Used for logs and tests; the dialer itself
 * just re-checks on every sweep.
 */
export function nextOpening(window: CallingWindow, from: Date, horizonDays = 8): Date | null {
  const t = new Date(Math.floor(from.getTime() / 60_000) * 60_000);
  if (isWindowOpen(window, from)) return from;
  for (let i = 1; i <= horizonDays * 24 * 60; i++) {
    const at = new Date(t.getTime() + i * 60_000);
    if (isWindowOpen(window, at)) return at;
  }
  return null;
}
