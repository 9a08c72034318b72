/**
 * The numbers of an account's results page (GET /api/user/results), summed up by PostgreSQL in
 * two queries run side by side over the account's calls in the period (an index range of
 * calls_user_created_idx, or of the assistant's or campaign's index when filtered):
 *  - the calls: one scan hashed into (day, status, answered, assistant, campaign) groups — a few
 *    thousand rows — each group's outcome, then grouping sets over those: per day (each outcome counted), per assistant, per
 *    campaign and overall: calls, answers, answered seconds, cost;
 *  - the replies' stored first-audio times as a histogram (calls of one assistant and campaign,
 *    one latency in ms → how many replies) through call_turns_reply_latency_idx, from which the
 *    percentiles overall, per assistant and per campaign are worked out here exactly as
 *    percentile_cont would (sorting ~200,000 values three times over cost more than the rest).
 * Both run with a larger work_mem for their own transaction: the per-day groups cannot be
 * estimated (a time zone's day of each call), and with the default the planner sorts 100,000
 * rows on disk instead of hashing a few hundred groups. JIT compilation is off for them: their
 * estimated cost crosses jit_above_cost at about 30,000 calls, and compiling took longer than
 * running (bench/home.ts, 90 days of 100,000 calls on PostgreSQL 15: p50 265 → 155 ms, first
 * request 413 → 249 ms).
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/pool.js';
import { fieldError } from '../toolkit/errors.js';
import { DEFAULT_PERIOD_DAYS, MAX_PERIOD_DAYS, OUTCOMES, type Outcome, type Results, type ResultsQuery } from './schemas.js';

export interface Period {
  dateFrom: string;
  dateTo: string;
  timezone: string;
}

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** Today's date in a time zone, YYYY-MM-DD. */
export function todayIn(timezone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** The period asked for, with its defaults (the last 30 days up to today); 422 when it runs backwards or is too long. */
export function periodOf(q: ResultsQuery, now = new Date()): Period {
  const timezone = q.timezone ?? 'UTC';
  const dateTo = q.date_to ?? (q.date_from ? maxDay(todayIn(timezone, now), q.date_from) : todayIn(timezone, now));
  const dateFrom = q.date_from ?? addDays(dateTo, -(DEFAULT_PERIOD_DAYS - 1));
  if (dateTo < dateFrom) throw fieldError('date_to', 'The date to field must be a date after or equal to date from.');
  const days = (Date.parse(dateTo) - Date.parse(dateFrom)) / DAY_MS + 1;
  if (days > MAX_PERIOD_DAYS) throw fieldError('date_from', `The period must not be longer than ${MAX_PERIOD_DAYS} days.`);
  return { dateFrom, dateTo, timezone };
}

const maxDay = (a: string, b: string) => (a > b ? a : b);

/**
 * Which outcome a call had (see OUTCOMES), from its status, whether it was answered and whether
 * by a machine: worked out per group of calls, not per call (grouping by the plain columns is cheaper).
 */
const OUTCOME_SQL = sql.raw(`case
  when y0.status in ('initiated', 'ringing', 'in-progress') then 'live'
  when y0.was_answered or y0.status in ('completed', 'ended_by_customer', 'ended_by_assistant')
    then case when y0.by_machine then 'voicemail' else 'answered' end
  when y0.status in ('busy', 'no-answer', 'failed') then y0.status
  else 'not-connected' end`);

/** Enough for the hashed groups of a year of days (see the header). */
const WORK_MEM = '32MB';

interface GroupRow {
  by: 'day' | 'assistant' | 'campaign' | 'all';
  day: string | null;
  id: number | null;
  name: string | null;
  calls: number;
  answered: number;
  finished: number;
  answered_seconds: string | null;
  cost: string | null;
  outcomes: Record<Outcome, number>;
}

/** One latency value and how many replies had it, ascending. */
type Histogram = [ms: number, n: number][];

/** The p-quantile of the values a histogram counts, interpolated as percentile_cont does. */
export function quantile(h: Histogram, total: number, p: number): number | null {
  if (total === 0) return null;
  const pos = p * (total - 1);
  const lo = Math.floor(pos);
  const at = (rank: number) => {
    let seen = 0;
    for (const [ms, n] of h) {
      seen += n;
      if (rank < seen) return ms;
    }
    return h[h.length - 1][0];
  };
  const a = at(lo);
  return pos === lo ? a : a + (pos - lo) * (at(lo + 1) - a);
}

function latencyOfHistogram(h: Map<number, number>): Results['totals']['latency'] {
  const sorted: Histogram = [...h.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((n, [, k]) => n + k, 0);
  const p50 = quantile(sorted, total, 0.5);
  const p95 = quantile(sorted, total, 0.95);
  return { turns: total, p50_ms: p50 === null ? null : Math.round(p50), p95_ms: p95 === null ? null : Math.round(p95) };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function accountResults(db: Db, userId: number, q: ResultsQuery, currency: string, now = new Date()): Promise<Results> {
  const period = periodOf(q, now);
  const { dateFrom, dateTo, timezone } = period;
  // The period's bounds as instants: midnight of the first day and of the day after the last,
  // in the zone (sub-selects, so they are worked out once, not for every row).
  const where: SQL[] = [
    sql`c.user_id = ${userId}`,
    sql`c.created_at >= (select (${dateFrom}::date)::timestamp at time zone ${timezone})`,
    sql`c.created_at < (select (${dateTo}::date + 1)::timestamp at time zone ${timezone})`,
  ];
  if (q.assistant_id !== undefined) where.push(sql`c.assistant_id = ${q.assistant_id}`);
  if (q.campaign_id !== undefined) where.push(sql`c.campaign_id = ${q.campaign_id}`);
  const filter = sql.join(where, sql` and `);
  const withWorkMem = (query: SQL) =>
    db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local work_mem = '${WORK_MEM}'; set local jit = off`));
      return tx.execute(query);
    });
  const outcomeCounts = sql.join(OUTCOMES.map((o) => sql.raw(`'${o}', coalesce(sum(y.n) filter (where y.outcome = '${o}'), 0)`)), sql`, `);

  const [groups, latency] = await Promise.all([
    withWorkMem(sql`
      with y0 as (
        select (c.created_at at time zone ${timezone})::date as day, c.status, c.answered_at is not null as was_answered,
               coalesce(c.answered_by = 'machine', false) as by_machine, c.assistant_id, c.campaign_id,
               count(*) as n, sum(c.duration) as seconds, sum(c.total_cost) as cost
          from calls c where ${filter}
         group by 1, 2, 3, 4, 5, 6),
      y as (select y0.day, ${OUTCOME_SQL} as outcome, y0.assistant_id, y0.campaign_id, y0.n, y0.seconds, y0.cost from y0),
      g as (
        select case when grouping(y.day) = 0 then 'day' when grouping(y.assistant_id) = 0 then 'assistant'
                    when grouping(y.campaign_id) = 0 then 'campaign' else 'all' end as by,
               y.day, coalesce(y.assistant_id, y.campaign_id) as gid,
               coalesce(sum(y.n), 0)::int as calls,
               coalesce(sum(y.n) filter (where y.outcome = 'answered'), 0)::int as answered,
               coalesce(sum(y.n) filter (where y.outcome <> 'live'), 0)::int as finished,
               sum(y.seconds) filter (where y.outcome = 'answered')::text as answered_seconds,
               coalesce(sum(y.cost), 0)::text as cost,
               json_build_object(${outcomeCounts}) as outcomes
          from y
         group by grouping sets ((y.day), (y.assistant_id), (y.campaign_id), ()))
      select g.by, to_char(g.day, 'YYYY-MM-DD') as day, g.gid as id, g.calls, g.answered, g.finished, g.answered_seconds, g.cost, g.outcomes,
             case g.by when 'assistant' then a.name when 'campaign' then p.name end as name
        from g
        left join assistants a on g.by = 'assistant' and a.id = g.gid
        left join campaigns p on g.by = 'campaign' and p.id = g.gid`),
    withWorkMem(sql`
      select c.assistant_id, c.campaign_id, t.first_audio_ms as ms, count(*)::int as n
        from calls c join call_turns t on t.call_id = c.id
       where ${filter} and t.kind = 'reply' and t.first_audio_ms is not null
       group by 1, 2, 3`),
  ]);

  // The latency histograms: overall, per assistant, per campaign.
  const histograms = new Map<string, Map<number, number>>();
  const count = (key: string, ms: number, n: number) => {
    let h = histograms.get(key);
    if (!h) histograms.set(key, (h = new Map()));
    h.set(ms, (h.get(ms) ?? 0) + n);
  };
  for (const r of rowsOf<{ assistant_id: number | null; campaign_id: number | null; ms: number; n: number }>(latency)) {
    count('all:null', r.ms, r.n);
    count(`assistant:${r.assistant_id}`, r.ms, r.n);
    count(`campaign:${r.campaign_id}`, r.ms, r.n);
  }
  const noLatency = { turns: 0, p50_ms: null, p95_ms: null };
  const latencyOf = (key: string) => {
    const h = histograms.get(key);
    return h ? latencyOfHistogram(h) : noLatency;
  };
  const summarize = (r: GroupRow) => ({
    calls: r.calls,
    answered: r.answered,
    answer_rate: r.finished > 0 ? round(r.answered / r.finished, 4) : null,
    average_duration: r.answered > 0 ? round(Number(r.answered_seconds ?? 0) / r.answered, 1) : null,
    cost: round(Number(r.cost ?? 0), 8),
    latency: latencyOf(`${r.by}:${r.id}`),
  });

  const groupRows = rowsOf<GroupRow>(groups);
  const all = groupRows.find((r) => r.by === 'all');
  const byCalls = (a: { calls: number; name: string }, b: { calls: number; name: string }) => b.calls - a.calls || a.name.localeCompare(b.name);
  const assistants = groupRows
    .filter((r) => r.by === 'assistant')
    .map((r) => ({ id: r.id, name: r.name ?? 'Deleted assistants', ...summarize(r) }))
    .sort(byCalls);
  const campaigns = groupRows
    .filter((r) => r.by === 'campaign')
    .map((r) => ({ id: r.id, name: r.name ?? 'Outside campaigns', ...summarize(r) }))
    .sort(byCalls);

  // Every day of the period, days without calls as zeros.
  const zeros = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const days = new Map<string, Results['days'][number]>();
  for (let d = dateFrom; d <= dateTo; d = addDays(d, 1)) days.set(d, { day: d, calls: 0, outcomes: zeros(), cost: 0 });
  let voicemail = 0;
  for (const r of groupRows) {
    if (r.by !== 'day' || !r.day) continue;
    voicemail += r.outcomes.voicemail;
    const day = days.get(r.day);
    if (!day) continue;
    day.calls = r.calls;
    day.cost = round(Number(r.cost ?? 0), 8);
    for (const o of OUTCOMES) day.outcomes[o] = r.outcomes[o] ?? 0;
  }

  const totals = all ? summarize(all) : { calls: 0, answered: 0, answer_rate: null, average_duration: null, cost: 0, latency: noLatency };
  return {
    date_from: dateFrom,
    date_to: dateTo,
    timezone,
    currency,
    outcomes: [...OUTCOMES],
    totals: { ...totals, voicemail, finished: all?.finished ?? 0 },
    days: [...days.values()],
    assistants,
    campaigns,
  };
}
