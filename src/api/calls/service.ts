/**
 * The read side of call records: the filtered, paginated list, one call, deletion.
 *
 * The list is one round trip over a range scan of one of the `calls_user_*_created_idx`
 * indexes (all end in created_at desc, id desc): page 1 reads its rows straight off it; a later
 * page takes its keys from it first, so a deep OFFSET skips index entries, not table rows, and
 * then fetches the record's columns by primary key in that order. The total is an uncorrelated
 * sub-select evaluated once: a sum over `call_counts` when the list is filtered by status/type
 * only, else a count over the same index range.
 */
import { and, eq, is, notInArray, Placeholder, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Database, Db } from '../../db/pool.js';
import { callCounts, calls } from '../../db/schema.js';
import { toE164 } from '../../lib/phone.js';
import { LIVE_STATUSES } from '../../calls/state-machine.js';
import { CALL_SORTS, type CallSort, type ListCallsQuery } from './schemas.js';
import type { CallRow, ListedCallRow } from './serializer.js';

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
export const FILTER_KEYS = ['status', 'type', 'phoneNumber', 'assistantId', 'campaignId', 'dateFrom', 'dateTo'] as const;

/**
 * Totals filtered by nothing but status and/or type come from `call_counts` (kept by
 * triggers, a row per status and type once folded, see src/calls/call-counts.ts); any other
 * filter counts its index range.
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
 * The column each order reads. Newest first is spelled `desc nulls last` to match the indexes
 * exactly (drizzle writes index keys as `DESC NULLS LAST`; a plain `DESC` means NULLS FIRST,
 * and the planner would then sort the user's whole range instead of reading the first entries
 * of the index); oldest first is the same index read backwards (`asc nulls first`). Duration
 * and cost have no index of their own: the database picks the page with a top-N sort over the
 * filtered range.
 */
const SORT_COLUMNS = { created_at: calls.createdAt, duration: calls.duration, total_cost: calls.totalCost } as const;

function orderOf(sort: CallSort, key: SQLWrapper, id: SQLWrapper): SQL[] {
  return sort.startsWith('-')
    ? [sql`${key} desc nulls last`, sql`${id} desc nulls last`]
    : [sql`${key} asc nulls first`, sql`${id} asc nulls first`];
}

/**
 * The record's columns (see `CallRow`), in the order the list statement returns them: the list
 * reads only what the record shows, not the engine's bookkeeping columns.
 */
const recordColumns = {
  id: calls.id,
  assistantName: calls.assistantName,
  campaignName: calls.campaignName,
  type: calls.type,
  duration: calls.duration,
  assistantPhoneNumber: calls.assistantPhoneNumber,
  clientPhoneNumber: calls.clientPhoneNumber,
  status: calls.status,
  transcript: calls.transcript,
  variables: calls.variables,
  evaluation: calls.evaluation,
  webhookResponse: calls.webhookResponse,
  carrierCost: calls.carrierCost,
  totalCost: calls.totalCost,
  answeredBy: calls.answeredBy,
  recordingUrl: calls.recordingUrl,
  createdAt: calls.createdAt,
  updatedAt: calls.updatedAt,
} satisfies Record<keyof CallRow, unknown>;
const RECORD_KEYS = Object.keys(recordColumns) as (keyof CallRow)[];

/** A statement compiled once: its name, its text, and the placeholder name of each `$n`. */
interface Compiled {
  name: string;
  text: string;
  params: string[];
}

function compile(name: string, query: { toSQL(): { sql: string; params: unknown[] } }): Compiled {
  const { sql: text, params } = query.toSQL();
  return {
    name,
    text,
    params: params.map((p) => {
      // A literal value here would be frozen into a statement shared by every request.
      if (!is(p, Placeholder)) throw new Error(`${name}: parameter ${String(p)} is not a placeholder`);
      return p.name;
    }),
  };
}

/**
 * The three statements of one filter combination, built with drizzle's query builder and run
 * as named statements on `Database.genericPlans` (see `listCalls`):
 * - `first`: page 1, read straight off the index range with its rows (no OFFSET to skip);
 * - `page`: any later page, its keys first (an OFFSET skips index entries, not table rows),
 *   then the record's columns by primary key — for page 1 that join costs the database about
 *   a third more than `first` (200 vs 147 µs: 15 extra primary-key lookups);
 * - `count`: the total alone, for a page past the end.
 * `first` and `page` carry the total in each row.
 */
function buildStatements(mask: number, present: ReadonlySet<string>, sort: CallSort): { first: Compiled; page: Compiled; count: Compiled } {
  const qb = new QueryBuilder();
  const sortColumn = SORT_COLUMNS[sort.replace(/^-/, '') as keyof typeof SORT_COLUMNS];
  // The default order keeps its statement names (bench/calls-list.ts checks their plans).
  const suffix = sort === '-created_at' ? `${mask}` : `${mask}_s${CALL_SORTS.indexOf(sort)}`;
  const where = whereOf(present);
  const total = countedByCounters(present)
    ? sql`(select coalesce(sum(${callCounts.n}), 0) from ${callCounts} where ${and(
      eq(callCounts.userId, sql.placeholder('userId')),
      present.has('status') ? eq(callCounts.status, sql.placeholder('status')) : undefined,
      present.has('type') ? eq(callCounts.type, sql.placeholder('type')) : undefined,
    )})`
    : sql`(select count(*) from ${calls} where ${where})`;
  // The page's keys, in order; the nested loop over them keeps that order, so the join needs
  // neither a Sort nor the HashAggregate an `id IN (…)` would bring.
  const pageKeys = qb
    .select({ id: calls.id, key: sql`${sortColumn}`.as('key') })
    .from(calls)
    .where(where)
    .orderBy(...orderOf(sort, sortColumn, calls.id))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .as('page');
  return {
    first: compile(
      `calls_list_first_${suffix}`,
      qb
        .select({ ...recordColumns, total: sql`${total}`.as('total') })
        .from(calls)
        .where(where)
        .orderBy(...orderOf(sort, sortColumn, calls.id))
        .limit(sql.placeholder('limit')),
    ),
    page: compile(
      `calls_list_page_${suffix}`,
      qb
        .select({ ...recordColumns, total: sql`${total}`.as('total') })
        .from(pageKeys)
        .innerJoin(calls, eq(calls.id, pageKeys.id))
        .orderBy(...orderOf(sort, sql`${pageKeys.key}`, sql`${pageKeys.id}`)),
    ),
    count: compile(`calls_list_count_${suffix}`, qb.select({ total: sql`${total}`.as('total') }).from(sql`(select 1) as one`)),
  };
}

type Statements = ReturnType<typeof buildStatements>;
const statementCache = new Map<string, Statements>();

/** The statements for one combination of filters (`userId` plus FILTER_KEYS) and one order; exported for bench/calls-list.ts's plan check. */
export function statementsFor(present: ReadonlySet<string>, sort: CallSort = '-created_at'): Statements {
  const mask = FILTER_KEYS.reduce((m, k, i) => (present.has(k) ? m | (1 << i) : m), 0);
  const key = `${mask}:${sort}`;
  let st = statementCache.get(key);
  if (!st) statementCache.set(key, (st = buildStatements(mask, present, sort)));
  return st;
}

/**
 * node-postgres's own parsers, except that timestamps and JSON stay text: `sqlDateTime` formats
 * the one, `renderCallRecord` writes the other into the response as it is (parsing it only to
 * serialize it again was a tenth of the service's CPU per page).
 */
const TEXT_KEPT = new Set<number>([pg.types.builtins.TIMESTAMPTZ, pg.types.builtins.JSONB, pg.types.builtins.JSON]);
const keepText = (value: string) => value;
const listTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    TEXT_KEPT.has(oid) ? keepText : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

async function run(pool: pg.Pool, st: Compiled, values: Record<string, unknown>): Promise<unknown[][]> {
  const result = await pool.query<unknown[]>({
    name: st.name,
    text: st.text,
    values: st.params.map((name) => values[name]),
    rowMode: 'array',
    types: listTypes,
  });
  return result.rows;
}

export interface CallPage {
  total: number;
  rows: ListedCallRow[];
}

/**
 * One page of the user's calls in the asked order (by default newest first: created_at desc,
 * id desc), and the total.
 *
 * The statements run on the generic-plan pool: with LIMIT and OFFSET as parameters, PostgreSQL's
 * default plan cache plans them afresh on every execution (half of the database's CPU per
 * list request), while their generic plans are the same ordered index ranges
 * (bench/calls-list.ts checks all 128 filter combinations with EXPLAIN on 1,000,000 calls).
 * The rows are read as arrays straight into `ListedCallRow`s: through drizzle's per-column
 * result mapping a page cost 0.5 ms of the service's CPU, as arrays 0.3 ms.
 */
export async function listCalls(
  database: Database,
  userId: number,
  filters: CallFilters,
  page: number,
  perPage: number,
  region: string,
  sort: CallSort = '-created_at',
): Promise<CallPage> {
  const values: Record<string, unknown> = { userId };
  for (const key of FILTER_KEYS) if (filters[key] !== undefined) values[key] = filters[key];
  if (typeof values.phoneNumber === 'string') values.phoneNumber = phoneFilterValue(values.phoneNumber, region);
  const st = statementsFor(new Set(Object.keys(values)), sort);
  const found = page === 1
    ? await run(database.genericPlans, st.first, { ...values, limit: perPage })
    : await run(database.genericPlans, st.page, { ...values, limit: perPage, offset: (page - 1) * perPage });
  if (found.length > 0) {
    const totalAt = RECORD_KEYS.length;
    return { total: Number(found[0][totalAt]), rows: found.map(recordRow) };
  }
  // An empty page: the total is 0 on page 1, else (a page past the end) count it.
  if (page === 1) return { total: 0, rows: [] };
  const [[total]] = await run(database.genericPlans, st.count, values);
  return { total: Number(total), rows: [] };
}

function recordRow(values: unknown[]): ListedCallRow {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < RECORD_KEYS.length; i++) row[RECORD_KEYS[i]] = values[i];
  return row as unknown as ListedCallRow;
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
