/**
 * The numbers of an account's results page (GET /api/user/results), summed up by PostgreSQL:
 * three aggregate queries run side by side over the account's calls in the period (an index
 * range of calls_user_created_idx, or the assistant's or campaign's index when filtered):
 * calls and cost per day and outcome; calls, answers, durations and cost per assistant and per
 * campaign (one scan, grouping sets); the turn latency percentiles overall, per assistant and
 * per campaign (the replies' stored first-audio times, percentile_cont).
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

/** Which outcome a call row had (see OUTCOMES); `c` is the calls alias. */
const OUTCOME_SQL = sql.raw(`case
  when c.status in ('initiated', 'ringing', 'in-progress') then 'live'
  when c.answered_at is not null or c.status in ('completed', 'ended_by_customer', 'ended_by_assistant')
    then case when c.answered_by = 'machine' then 'voicemail' else 'answered' end
  when c.status in ('busy', 'no-answer', 'failed') then c.status
  else 'not-connected' end`);

interface GroupRow {
  by: 'assistant' | 'campaign' | 'all';
  id: number | null;
  name: string | null;
  calls: number;
  answered: number;
  finished: number;
  answered_seconds: string | null;
  cost: string | null;
}
interface LatencyRow {
  by: 'assistant' | 'campaign' | 'all';
  id: number | null;
  turns: number;
  p50: number | null;
  p95: number | null;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function accountResults(db: Db, userId: number, q: ResultsQuery, currency: string, now = new Date()): Promise<Results> {
  const period = periodOf(q, now);
  const { dateFrom, dateTo, timezone } = period;
  // The period's bounds as instants: midnight of the first day and of the day after the last, in the zone.
  const where: SQL[] = [
    sql`c.user_id = ${userId}`,
    sql`c.created_at >= (${dateFrom}::date)::timestamp at time zone ${timezone}`,
    sql`c.created_at < (${dateTo}::date + 1)::timestamp at time zone ${timezone}`,
  ];
  if (q.assistant_id !== undefined) where.push(sql`c.assistant_id = ${q.assistant_id}`);
  if (q.campaign_id !== undefined) where.push(sql`c.campaign_id = ${q.campaign_id}`);
  const filter = sql.join(where, sql` and `);

  const [perDay, groups, latency] = await Promise.all([
    db.execute(sql`
      select to_char((c.created_at at time zone ${timezone})::date, 'YYYY-MM-DD') as day, ${OUTCOME_SQL} as outcome,
             count(*)::int as n, coalesce(sum(c.total_cost), 0)::text as cost
        from calls c where ${filter}
       group by 1, 2`),
    db.execute(sql`
      with g as (
        select case when grouping(c.assistant_id) = 0 then 'assistant' when grouping(c.campaign_id) = 0 then 'campaign' else 'all' end as by,
               coalesce(c.assistant_id, c.campaign_id) as gid, grouping(c.assistant_id) as ga,
               max(c.assistant_name) as assistant_name, max(c.campaign_name) as campaign_name,
               count(*)::int as calls,
               count(*) filter (where o.outcome = 'answered')::int as answered,
               count(*) filter (where o.outcome <> 'live')::int as finished,
               sum(c.duration) filter (where o.outcome = 'answered')::text as answered_seconds,
               coalesce(sum(c.total_cost), 0)::text as cost
          from calls c cross join lateral (select ${OUTCOME_SQL} as outcome) o
         where ${filter}
         group by grouping sets ((c.assistant_id), (c.campaign_id), ()))
      select g.by, g.gid as id, g.calls, g.answered, g.finished, g.answered_seconds, g.cost,
             case g.by when 'assistant' then coalesce(a.name, g.assistant_name) when 'campaign' then coalesce(p.name, g.campaign_name) end as name
        from g
        left join assistants a on g.by = 'assistant' and a.id = g.gid
        left join campaigns p on g.by = 'campaign' and p.id = g.gid`),
    db.execute(sql`
      select case when grouping(c.assistant_id) = 0 then 'assistant' when grouping(c.campaign_id) = 0 then 'campaign' else 'all' end as by,
             coalesce(c.assistant_id, c.campaign_id) as id,
             count(*)::int as turns,
             percentile_cont(0.5) within group (order by t.first_audio_ms) as p50,
             percentile_cont(0.95) within group (order by t.first_audio_ms) as p95
        from calls c join call_turns t on t.call_id = c.id
       where ${filter} and t.kind = 'reply' and t.first_audio_ms is not null
       group by grouping sets ((c.assistant_id), (c.campaign_id), ())`),
  ]);

  const latencyOf = new Map<string, Results['totals']['latency']>();
  for (const r of rowsOf<LatencyRow>(latency)) {
    latencyOf.set(`${r.by}:${r.id}`, {
      turns: r.turns,
      p50_ms: r.p50 === null ? null : Math.round(Number(r.p50)),
      p95_ms: r.p95 === null ? null : Math.round(Number(r.p95)),
    });
  }
  const noLatency = { turns: 0, p50_ms: null, p95_ms: null };
  const summarize = (r: GroupRow) => ({
    calls: r.calls,
    answered: r.answered,
    answer_rate: r.finished > 0 ? round(r.answered / r.finished, 4) : null,
    average_duration: r.answered > 0 ? round(Number(r.answered_seconds ?? 0) / r.answered, 1) : null,
    cost: round(Number(r.cost ?? 0), 8),
    latency: latencyOf.get(`${r.by}:${r.id}`) ?? noLatency,
  });

  const groupRows = rowsOf<GroupRow>(groups);
  const all = groupRows.find((r) => r.by === 'all');
  const byCalls = (a: { calls: number; name: string }, b: { calls: number; name: string }) => b.calls - a.calls || a.name.localeCompare(b.name);
  const assistants = groupRows
    .filter((r) => r.by === 'assistant')
    .map((r) => ({ id: r.id, name: r.name ?? 'Deleted assistant', ...summarize(r) }))
    .sort(byCalls);
  const campaigns = groupRows
    .filter((r) => r.by === 'campaign')
    .map((r) => ({ id: r.id, name: r.id === null ? 'Outside campaigns' : r.name ?? 'Deleted campaign', ...summarize(r) }))
    .sort(byCalls);

  // Every day of the period, days without calls as zeros.
  const days = new Map<string, Results['days'][number]>();
  for (let d = dateFrom; d <= dateTo; d = addDays(d, 1)) {
    days.set(d, { day: d, calls: 0, outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>, cost: 0 });
  }
  let voicemail = 0;
  for (const r of rowsOf<{ day: string; outcome: Outcome; n: number; cost: string }>(perDay)) {
    const day = days.get(r.day);
    if (r.outcome === 'voicemail') voicemail += r.n;
    if (!day) continue;
    day.calls += r.n;
    day.outcomes[r.outcome] += r.n;
    day.cost = round(day.cost + Number(r.cost), 8);
  }

  const totals = all ? summarize(all) : { calls: 0, answered: 0, answer_rate: null, average_duration: null, cost: 0, latency: noLatency };
  return {
    date_from: dateFrom,
    date_to: dateTo,
    timezone,
    currency,
    outcomes: [...OUTCOMES],
    totals: { ...totals, latency: latencyOf.get('all:null') ?? noLatency, voicemail, finished: all?.finished ?? 0 },
    days: [...days.values()],
    assistants,
    campaigns,
  };
}
