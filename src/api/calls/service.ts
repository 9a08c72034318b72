/**
 * The read side of call records: the filtered, paginated list, one call, deletion.
 *
 * The list is one round trip: the page's ids come from an index-only range scan of one of the
 * `calls_user_*_created_idx` indexes (all end in created_at desc, id desc), so a deep OFFSET
 * skips index entries, not table rows; the full rows are then fetched by primary key; the
 * total is an uncorrelated sub-select evaluated once, over the same index range.
 */
import { and, desc, eq, getTableColumns, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { calls } from '../../db/schema.js';
import { toE164 } from '../../lib/phone.js';
import { LIVE_CALL_STATUSES, type ListCallsQuery } from './schemas.js';

/**
 * The store of call recordings, installed as `ctx.services.recordings` by the engine when it
 * keeps recordings (src/calls/). Deleting a call removes its recording through it; removing
 * one that does not exist is a no-op.
 */
export interface CallRecordings {
  deleteRecording(callId: number): Promise<void>;
}

declare module '../../context.js' {
  interface Services {
    recordings?: CallRecordings;
  }
}

export type CallRowFull = typeof calls.$inferSelect;

export interface CallFilters {
  status?: string;
  type?: string;
  /** The client number as sent; normalised to E.164 when it parses (see `phoneFilterValue`). */
  phoneNumber?: string;
  assistantId?: number;
  campaignId?: number;
  /** Inclusive UTC days, `YYYY-MM-DD`. */
  dateFrom?: string;
  dateTo?: string;
}

export function filtersOf(q: ListCallsQuery): CallFilters {
  return {
    status: q.status,
    type: q.type,
    phoneNumber: q.phone_number,
    assistantId: q.assistant_id,
    campaignId: q.campaign_id,
    dateFrom: q.date_from,
    dateTo: q.date_to,
  };
}

/**
 * The stored form to match `phone_number` against: calls store the client number in E.164,
 * so a number that parses (national formats in `region`) is normalised; anything else is
 * matched exactly as given (and so finds only a call stored with that very text).
 */
export function phoneFilterValue(input: string, region: string): string {
  return toE164(input, region) ?? input;
}

function whereOf(userId: number, f: CallFilters, region: string): SQL {
  const parts: (SQL | undefined)[] = [eq(calls.userId, userId)];
  if (f.status !== undefined) parts.push(eq(calls.status, f.status));
  if (f.type !== undefined) parts.push(eq(calls.type, f.type));
  if (f.phoneNumber !== undefined) parts.push(eq(calls.clientPhoneNumber, phoneFilterValue(f.phoneNumber, region)));
  if (f.assistantId !== undefined) parts.push(eq(calls.assistantId, f.assistantId));
  if (f.campaignId !== undefined) parts.push(eq(calls.campaignId, f.campaignId));
  // Whole UTC days: [date_from 00:00, date_to + 1 day 00:00). Plain constants for the planner.
  if (f.dateFrom !== undefined) parts.push(sql`${calls.createdAt} >= (${f.dateFrom}::date)::timestamp at time zone 'UTC'`);
  if (f.dateTo !== undefined) parts.push(sql`${calls.createdAt} < (${f.dateTo}::date + 1)::timestamp at time zone 'UTC'`);
  return and(...parts)!;
}

const newestFirst = [desc(calls.createdAt), desc(calls.id)];

export interface CallPage {
  total: number;
  rows: CallRowFull[];
}

/** One page of the user's calls, newest first (created_at desc, id desc), and the total. */
export async function listCalls(
  db: Db,
  userId: number,
  filters: CallFilters,
  page: number,
  perPage: number,
  region: string,
): Promise<CallPage> {
  const where = whereOf(userId, filters, region);
  const offset = (page - 1) * perPage;
  const pageIds = db.select({ id: calls.id }).from(calls).where(where).orderBy(...newestFirst).limit(perPage).offset(offset);
  const found = await db
    .select({ ...getTableColumns(calls), total: sql<number>`(select count(*) from ${calls} where ${where})`.mapWith(Number) })
    .from(calls)
    .where(inArray(calls.id, pageIds))
    .orderBy(...newestFirst);
  if (found.length > 0) {
    return { total: found[0].total, rows: found.map(({ total: _total, ...row }) => row) };
  }
  // An empty page: the total is 0 on page 1, else (a page past the end) count it.
  if (page === 1) return { total: 0, rows: [] };
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) }).from(calls).where(where);
  return { total, rows: [] };
}

/** The user's call, or null when it does not exist or is another user's. */
export async function findCall(db: Db, userId: number, id: number): Promise<CallRowFull | null> {
  const [row] = await db.select().from(calls).where(and(eq(calls.id, id), eq(calls.userId, userId)));
  return row ?? null;
}

export type DeleteOutcome = { kind: 'deleted'; row: CallRowFull } | { kind: 'not_found' } | { kind: 'live' };

/**
 * Deletes the user's call unless the engine is still running it (`initiated`, `ringing`,
 * `in-progress`): the status check and the delete are one statement, so a call cannot go
 * live between them. Its webhook delivery log goes with it (foreign key cascade).
 */
export async function deleteCall(db: Db, userId: number, id: number): Promise<DeleteOutcome> {
  const owned = and(eq(calls.id, id), eq(calls.userId, userId));
  const [row] = await db
    .delete(calls)
    .where(and(owned, notInArray(calls.status, [...LIVE_CALL_STATUSES])))
    .returning();
  if (row) return { kind: 'deleted', row };
  const [still] = await db.select({ id: calls.id }).from(calls).where(owned);
  return still ? { kind: 'live' } : { kind: 'not_found' };
}
