/**
 * The read side of call records: the filtered, paginated list, one call, deletion.
 *
 * The list is one round trip: the page's ids come from an index-only range scan of one of the
 * `calls_user_*_created_idx` indexes (all end in created_at desc, id desc), so a deep OFFSET
 * skips index entries, not table rows; the full rows are then fetched by primary key; the
 * total is an uncorrelated sub-select evaluated once: a sum over `call_counts` when the list
 * is filtered by status/type only, else a count over the same index range.
 */
import { and, eq, getTableColumns, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { callCounts, calls } from '../../db/schema.js';
import { toE164 } from '../../lib/phone.js';
import { LIVE_STATUSES } from '../../calls/state-machine.js';
import type { ListCallsQuery } from './schemas.js';

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

/** The filters in a fixed order; a bit each in the statement key. */
const FILTER_KEYS = ['status', 'type', 'phoneNumber', 'assistantId', 'campaignId', 'dateFrom', 'dateTo'] as const;

/**
 * Totals filtered by nothing but status and/or type come from `call_counts` (a handful of
 * rows per user, kept by triggers); any other filter counts its index range.
 */
function countedByCounters(present: ReadonlySet<string>): boolean {
  return [...present].every((k) => k === 'userId' || k === 'status' || k === 'type');
}

/** The condition for one combination of filters, with placeholders named like the filters. */
function whereOf(present: ReadonlySet<string>): SQL {
  const p = (name: string) => sql.placeholder(name);
  const parts: SQL[] = [eq(calls.userId, p('userId'))];
  if (present.has('status')) parts.push(eq(calls.status, p('status')));
  if (present.has('type')) parts.push(eq(calls.type, p('type')));
  if (present.has('phoneNumber')) parts.push(eq(calls.clientPhoneNumber, p('phoneNumber')));
  if (present.has('assistantId')) parts.push(eq(calls.assistantId, p('assistantId')));
  if (present.has('campaignId')) parts.push(eq(calls.campaignId, p('campaignId')));
  // Whole UTC days: [date_from 00:00, date_to + 1 day 00:00), computed once per execution.
  if (present.has('dateFrom')) parts.push(sql`${calls.createdAt} >= (${p('dateFrom')}::date)::timestamp at time zone 'UTC'`);
  if (present.has('dateTo')) parts.push(sql`${calls.createdAt} < (${p('dateTo')}::date + 1)::timestamp at time zone 'UTC'`);
  return and(...parts)!;
}

/**
 * Newest first. Spelled `desc nulls last` to match the indexes exactly (drizzle writes index
 * keys as `DESC NULLS LAST`; a plain `DESC` means NULLS FIRST, and the planner would then sort
 * the user's whole range instead of reading the first entries of the index).
 */
const newestFirst = [sql`${calls.createdAt} desc nulls last`, sql`${calls.id} desc nulls last`];

/**
 * The two statements of one filter combination, prepared once per connection (named
 * statements): planning costs about as much as running them, and the generic plans are the
 * ordered index ranges (checked with EXPLAIN on 1,000,000 calls, bench/calls-list.ts).
 */
function buildStatements(db: Db, mask: number, present: ReadonlySet<string>) {
  const where = whereOf(present);
  const total = countedByCounters(present)
    ? sql<number>`(select coalesce(sum(${callCounts.n}), 0) from ${callCounts} where ${and(
      eq(callCounts.userId, sql.placeholder('userId')),
      present.has('status') ? eq(callCounts.status, sql.placeholder('status')) : undefined,
      present.has('type') ? eq(callCounts.type, sql.placeholder('type')) : undefined,
    )})`.mapWith(Number)
    : sql<number>`(select count(*) from ${calls} where ${where})`.mapWith(Number);
  const pageIds = db
    .select({ id: calls.id })
    .from(calls)
    .where(where)
    .orderBy(...newestFirst)
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'));
  const page = db
    .select({ ...getTableColumns(calls), total })
    .from(calls)
    .where(inArray(calls.id, pageIds))
    .orderBy(...newestFirst)
    .prepare(`calls_list_page_${mask}`);
  const count = db.select({ total }).from(sql`(select 1) as one`).prepare(`calls_list_count_${mask}`);
  return { page, count };
}

type Statements = ReturnType<typeof buildStatements>;
const statementCache = new WeakMap<Db, Map<number, Statements>>();

function statementsFor(db: Db, present: ReadonlySet<string>): Statements {
  let perDb = statementCache.get(db);
  if (!perDb) statementCache.set(db, (perDb = new Map()));
  const mask = FILTER_KEYS.reduce((m, k, i) => (present.has(k) ? m | (1 << i) : m), 0);
  let st = perDb.get(mask);
  if (!st) perDb.set(mask, (st = buildStatements(db, mask, present)));
  return st;
}

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
  const values: Record<string, unknown> = { userId };
  for (const key of FILTER_KEYS) if (filters[key] !== undefined) values[key] = filters[key];
  if (typeof values.phoneNumber === 'string') values.phoneNumber = phoneFilterValue(values.phoneNumber, region);
  const st = statementsFor(db, new Set(Object.keys(values)));
  const found = await st.page.execute({ ...values, limit: perPage, offset: (page - 1) * perPage });
  if (found.length > 0) {
    return { total: found[0].total, rows: found.map(({ total: _total, ...row }) => row) };
  }
  // An empty page: the total is 0 on page 1, else (a page past the end) count it.
  if (page === 1) return { total: 0, rows: [] };
  const [{ total }] = await st.count.execute(values);
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
    .where(and(owned, notInArray(calls.status, [...LIVE_STATUSES])))
    .returning();
  if (row) return { kind: 'deleted', row };
  const [still] = await db.select({ id: calls.id }).from(calls).where(owned);
  return still ? { kind: 'live' } : { kind: 'not_found' };
}
