/**
 * Request schemas of the calls API (spec 4.13, CONTRACT §3 and §6).
 *
 * Query values arrive as strings. An empty value (`?status=`) counts as not sent, as in
 * Laravel (ConvertEmptyStringsToNull), so a client that always sends every filter key works.
 */
import { z } from 'zod';
import { CALL_STATUSES } from '../../calls/state-machine.js';
import { pageQuery } from '../toolkit/pagination.js';
import { isCalendarDate, isStorableText, msg, optionalQuery, queryId as idString, v } from '../toolkit/validation.js';

/** The ten statuses of spec 3.3 and the live ones come from the state machine (one place). */
export { CALL_STATUSES };
/** Re-exported: the calendar-date rule lives in the toolkit (the results query uses it too). */
export { isCalendarDate };

export const CALL_TYPES = ['inbound', 'outbound', 'web'] as const;

/**
 * The list's orders: a column, descending with a leading `-`. Not sent means `-created_at`,
 * newest first, the order every client of this API expects; ties go by id in the same direction.
 */
export const CALL_SORTS = ['-created_at', 'created_at', '-duration', 'duration', '-total_cost', 'total_cost'] as const;
export type CallSort = (typeof CALL_SORTS)[number];





const dateString = z.string().refine(isCalendarDate, { error: msg.dateFormat('Y-m-d') });

/**
 * `phone_number`: the client's number. A '+' sent unencoded in a query string arrives as a
 * space; a value that starts with one followed by digits is read as '+…' again.
 */
const phoneString = z
  .string()
  .max(64, { error: msg.maxString(64) })
  .refine(isStorableText, { error: msg.format })
  .transform((s) => (/^ [\d\s().-]+$/.test(s) ? `+${s.slice(1)}` : s).trim());

/** Spec 4.13: 15 calls a page by default. */
export const CALLS_PER_PAGE = 15;
// The shared page rules (pageQuery), without their defaults so that '' can mean "not sent" here too.
const paging = pageQuery(CALLS_PER_PAGE);

export const listCallsQuery = z
  .object({
    status: optionalQuery(v.enum(CALL_STATUSES)),
    type: optionalQuery(v.enum(CALL_TYPES)),
    phone_number: optionalQuery(phoneString),
    assistant_id: optionalQuery(idString),
    campaign_id: optionalQuery(idString),
    date_from: optionalQuery(dateString),
    date_to: optionalQuery(dateString),
    page: optionalQuery(paging.page.unwrap().unwrap()).transform((p) => p ?? 1),
    per_page: optionalQuery(paging.per_page.unwrap().unwrap()).transform((p) => p ?? CALLS_PER_PAGE),
    sort: optionalQuery(v.enum(CALL_SORTS))
      .transform((s): CallSort => s ?? '-created_at')
      .describe('Order of the list: created_at, duration or total_cost, descending with a leading "-"; default -created_at (newest first). Ties are ordered by id in the same direction.'),
  })
  .superRefine((q, ctx) => {
    if (q.date_from && q.date_to && q.date_to < q.date_from) {
      ctx.addIssue({
        code: 'custom',
        path: ['date_to'],
        message: 'The :attribute field must be a date after or equal to date from.',
        input: q.date_to,
      });
    }
  });
export type ListCallsQuery = z.output<typeof listCallsQuery>;

