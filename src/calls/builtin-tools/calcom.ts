/**
 * The two Cal.com API v2 requests a calendar_integration tool makes (issue 20): free slots of
 * an event type, and a booking. Every request goes through the outbound guard
 * (src/lib/outbound.ts), with the user's key as a Bearer token and the `cal-api-version`
 * header each endpoint asks for. `us` → https://api.cal.com, `eu` → https://api.cal.eu,
 * `custom` → the tool's own base URL (a self-hosted Cal.com; its `/v2/...` paths appended).
 */
import { outboundRequest, type OutboundResponse } from '../../lib/outbound.js';

export const CALCOM_BASES = { us: 'https://api.cal.com', eu: 'https://api.cal.eu' } as const;
/** The API versions of the two endpoints (Cal.com pins each endpoint's shape by this header). */
export const SLOTS_API_VERSION = '2024-09-04';
export const BOOKINGS_API_VERSION = '2024-08-13';
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 64 * 1024;

export interface CalcomTarget {
  endpoint: 'us' | 'eu' | 'custom';
  customEndpoint?: string | null;
  apiKey: string;
  eventSlug: string;
  teamSlug?: string | null;
  allowPrivate: boolean;
}

export function calcomBase(t: Pick<CalcomTarget, 'endpoint' | 'customEndpoint'>): string {
  const base = t.endpoint === 'custom' ? t.customEndpoint ?? '' : CALCOM_BASES[t.endpoint];
  return base.replace(/\/+$/, '').replace(/\/v2$/, '');
}

export interface CalcomAnswer {
  status: number;
  body: unknown;
}

async function send(t: CalcomTarget, method: string, path: string, version: string, body?: unknown): Promise<CalcomAnswer> {
  const res: OutboundResponse = await outboundRequest({
    url: `${calcomBase(t)}${path}`,
    method,
    headers: {
      authorization: `Bearer ${t.apiKey}`,
      'cal-api-version': version,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: MAX_BYTES,
    allowPrivate: t.allowPrivate,
  });
  let parsed: unknown = res.body;
  try {
    parsed = res.body === '' ? null : JSON.parse(res.body);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed };
}

const owner = (t: CalcomTarget): Record<string, string> => (t.teamSlug ? { teamSlug: t.teamSlug } : {});

/** `GET /v2/slots`: free start times of the event type between two dates (YYYY-MM-DD or ISO). */
export function availableSlots(t: CalcomTarget, q: { start: string; end: string; timeZone: string }): Promise<CalcomAnswer> {
  const params = new URLSearchParams({ eventTypeSlug: t.eventSlug, ...owner(t), start: q.start, end: q.end, timeZone: q.timeZone });
  return send(t, 'GET', `/v2/slots?${params}`, SLOTS_API_VERSION);
}

/** `POST /v2/bookings`: books `start` (ISO 8601, UTC) for the attendee; extra fields as bookingFieldsResponses. */
export function createBooking(
  t: CalcomTarget,
  b: { start: string; name: string; email: string; timeZone: string; phoneNumber?: string; fields: Record<string, unknown> },
): Promise<CalcomAnswer> {
  return send(t, 'POST', '/v2/bookings', BOOKINGS_API_VERSION, {
    start: b.start,
    eventTypeSlug: t.eventSlug,
    ...owner(t),
    attendee: { name: b.name, email: b.email, timeZone: b.timeZone, ...(b.phoneNumber ? { phoneNumber: b.phoneNumber } : {}) },
    ...(Object.keys(b.fields).length ? { bookingFieldsResponses: b.fields } : {}),
  });
}
