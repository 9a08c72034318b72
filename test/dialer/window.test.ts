import { describe, expect, it } from 'vitest';
import { isWindowOpen, localTime, nextOpening, parseClock, type CallingWindow } from '../../src/dialer/window.js';

const ALL = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const at = (iso: string) => new Date(iso);

describe('calling windows', () => {
  it('reads wall-clock time in the campaign timezone', () => {
    // 2026-03-06 is a Friday; New York is UTC-5 before the March change.
    expect(localTime(at('2026-03-06T14:00:00Z'), 'America/New_York')).toEqual({ weekday: 5, minutes: 9 * 60 });
    expect(localTime(at('2026-03-06T23:30:00Z'), 'Asia/Tokyo')).toEqual({ weekday: 6, minutes: 8 * 60 + 30 });
  });

  it('follows America/New_York across the March DST change (09:00–17:00)', () => {
    const w: CallingWindow = { timezone: 'America/New_York', allowedDays: ALL, startTime: '09:00', endTime: '17:00' };
    // Friday before the change (EST, UTC-5): opens 14:00Z, closes 22:00Z.
    expect(isWindowOpen(w, at('2026-03-06T13:59:00Z'))).toBe(false);
    expect(isWindowOpen(w, at('2026-03-06T14:00:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-06T21:59:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-06T22:00:00Z'))).toBe(false);
    // Monday after the change (EDT, UTC-4): an hour earlier in UTC.
    expect(isWindowOpen(w, at('2026-03-09T12:59:00Z'))).toBe(false);
    expect(isWindowOpen(w, at('2026-03-09T13:00:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-09T20:59:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-09T21:00:00Z'))).toBe(false);
    // A fixed-offset implementation (EST all year) would be open at 14:00Z..22:00Z on Monday.
    expect(isWindowOpen(w, at('2026-03-09T21:30:00Z'))).toBe(false);
  });

  it('on the change day itself, a window starting in the skipped hour opens at 03:00 EDT', () => {
    // Sunday 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z).
    const w: CallingWindow = { timezone: 'America/New_York', allowedDays: ['sunday'], startTime: '02:30', endTime: '04:00' };
    expect(isWindowOpen(w, at('2026-03-08T06:59:00Z'))).toBe(false); // 01:59 EST
    expect(isWindowOpen(w, at('2026-03-08T07:00:00Z'))).toBe(true); // 03:00 EDT
    expect(isWindowOpen(w, at('2026-03-08T07:59:00Z'))).toBe(true); // 03:59 EDT
    expect(isWindowOpen(w, at('2026-03-08T08:00:00Z'))).toBe(false); // 04:00 EDT
    expect(nextOpening(w, at('2026-03-08T05:00:00Z'))?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
  });

  it('finds the next opening across the change (09:00 EST then 09:00 EDT)', () => {
    const w: CallingWindow = { timezone: 'America/New_York', allowedDays: ['saturday', 'monday'], startTime: '09:00', endTime: '17:00' };
    expect(nextOpening(w, at('2026-03-07T00:00:00Z'))?.toISOString()).toBe('2026-03-07T14:00:00.000Z');
    expect(nextOpening(w, at('2026-03-07T23:00:00Z'))?.toISOString()).toBe('2026-03-09T13:00:00.000Z');
  });

  it('treats an end before the start (22:00–06:00) as overnight, belonging to the day it starts', () => {
    const w: CallingWindow = { timezone: 'UTC', allowedDays: ['friday'], startTime: '22:00', endTime: '06:00' };
    expect(isWindowOpen(w, at('2026-03-06T21:59:00Z'))).toBe(false); // Friday 21:59
    expect(isWindowOpen(w, at('2026-03-06T22:00:00Z'))).toBe(true); // Friday 22:00
    expect(isWindowOpen(w, at('2026-03-06T23:59:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-07T00:00:00Z'))).toBe(true); // Saturday 00:00: Friday's night
    expect(isWindowOpen(w, at('2026-03-07T05:59:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-07T06:00:00Z'))).toBe(false); // end is exclusive
    expect(isWindowOpen(w, at('2026-03-07T22:00:00Z'))).toBe(false); // Saturday evening: not allowed
    expect(isWindowOpen(w, at('2026-03-06T03:00:00Z'))).toBe(false); // Friday early: Thursday's night
    expect(isWindowOpen(w, at('2026-03-06T12:00:00Z'))).toBe(false); // daytime
  });

  it('overnight in America/New_York across the DST night', () => {
    // Saturday 22:00 EST (03:00Z Sun) to Sunday 06:00 EDT (10:00Z): 7 hours that night.
    const w: CallingWindow = { timezone: 'America/New_York', allowedDays: ['saturday'], startTime: '22:00', endTime: '06:00' };
    expect(isWindowOpen(w, at('2026-03-08T02:59:00Z'))).toBe(false);
    expect(isWindowOpen(w, at('2026-03-08T03:00:00Z'))).toBe(true);
    expect(isWindowOpen(w, at('2026-03-08T09:59:00Z'))).toBe(true); // 05:59 EDT
    expect(isWindowOpen(w, at('2026-03-08T10:00:00Z'))).toBe(false); // 06:00 EDT
  });

  it('respects allowed_days, and the default 00:00–23:59 is the whole day', () => {
    const w: CallingWindow = { timezone: 'Europe/Berlin', allowedDays: ['monday'], startTime: '00:00', endTime: '23:59' };
    expect(isWindowOpen(w, at('2026-03-08T23:00:00Z'))).toBe(true); // Monday 00:00 CET
    expect(isWindowOpen(w, at('2026-03-09T22:59:59Z'))).toBe(true); // Monday 23:59:59
    expect(isWindowOpen(w, at('2026-03-09T23:00:00Z'))).toBe(false); // Tuesday
    expect(isWindowOpen(w, at('2026-03-08T22:59:00Z'))).toBe(false); // Sunday
  });

  it('treats start = end as the whole day; no allowed day or a malformed setting as closed', () => {
    const base = { timezone: 'UTC', allowedDays: ALL };
    expect(isWindowOpen({ ...base, startTime: '08:00', endTime: '08:00' }, at('2026-03-06T03:00:00Z'))).toBe(true);
    expect(isWindowOpen({ ...base, allowedDays: [], startTime: '00:00', endTime: '23:59' }, at('2026-03-06T03:00:00Z'))).toBe(false);
    expect(isWindowOpen({ ...base, startTime: '25:00', endTime: '23:59' }, at('2026-03-06T03:00:00Z'))).toBe(false);
    expect(isWindowOpen({ ...base, timezone: 'Mars/Olympus', startTime: '00:00', endTime: '23:59' }, at('2026-03-06T03:00:00Z'))).toBe(false);
    expect(nextOpening({ ...base, allowedDays: [], startTime: '00:00', endTime: '23:59' }, at('2026-03-06T03:00:00Z'))).toBeNull();
  });

  it('parses clock times at their edges', () => {
    expect(parseClock('00:00')).toBe(0);
    expect(parseClock('23:59')).toBe(1439);
    expect(parseClock('9:05')).toBe(545);
    expect(parseClock('09:00:00')).toBe(540);
    expect(parseClock('24:00')).toBeNull();
    expect(parseClock('12:60')).toBeNull();
    expect(parseClock('noon')).toBeNull();
  });
});
