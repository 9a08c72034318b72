/**
 * The account's home page: how its calls went over a period — calls per day by outcome, cost
 * per day, answer rate, average duration, cost, turn latency — overall, per assistant and per
 * campaign (GET /api/user/results). Days are the browser's days (its time zone is sent along).
 * The period and filters live in the address, so a reload or a shared link shows the same.
 */
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { ChartTable, StackedBarChart, type Series } from '../ui/BarChart';
import { Empty, ErrorBanner, Loading, PageTitle, Table } from '../ui/common';
import { Select, TextField } from '../ui/fields';
import { formatCost } from '../ui/format';
import { useLoad } from '../ui/hooks';

type Results = Awaited<ReturnType<typeof fetchResults>>;
type Outcome = Results['outcomes'][number];
type Group = Results['assistants'][number];

const OUTCOME_SERIES: Record<Outcome, Omit<Series, 'key'>> = {
  answered: { label: 'Answered', color: '#067647' },
  voicemail: { label: 'Voicemail', color: '#6941c6' },
  'no-answer': { label: 'No answer', color: '#b54708' },
  busy: { label: 'Busy', color: '#e39a1c' },
  failed: { label: 'Failed', color: '#b42318' },
  'not-connected': { label: 'Not connected', color: '#667085' },
  live: { label: 'In progress', color: '#1d4ed8' },
};
const PERIODS = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
  { value: 'custom', label: 'Custom dates' },
];

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const fetchResults = (api: ReturnType<typeof useApi>, query: Record<string, string>) =>
  unwrap(api.GET('/api/user/results', { params: { query: query as never } }));

/** YYYY-MM-DD of a day `back` days before today, in the browser's zone. */
function dayBefore(back: number): string {
  const d = new Date();
  d.setDate(d.getDate() - back);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** "Nov 3" for a YYYY-MM-DD day. */
const shortDay = (day: string) => new Date(`${day}T12:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const longDay = (day: string) => new Date(`${day}T12:00:00Z`).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(rate >= 0.995 || rate === 0 ? 0 : 1)} %`);
/** 75.4 s → "1:15"; over an hour "1:02:05". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
const ms = (n: number | null) => (n === null ? '—' : n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`);

export default function Home() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const period = params.get('period') ?? '30';
  const assistant = params.get('assistant_id') ?? '';
  const campaign = params.get('campaign_id') ?? '';
  const [from, setFrom] = useState(params.get('date_from') ?? dayBefore(29));
  const [to, setTo] = useState(params.get('date_to') ?? dayBefore(0));
  const timezone = browserZone();

  const query: Record<string, string> = { timezone };
  if (period === 'custom') {
    query.date_from = params.get('date_from') ?? from;
    query.date_to = params.get('date_to') ?? to;
  } else {
    const days = Number(period) || 30;
    query.date_from = dayBefore(days - 1);
    query.date_to = dayBefore(0);
  }
  if (assistant) query.assistant_id = assistant;
  if (campaign) query.campaign_id = campaign;
  const key = JSON.stringify(query);
  const results = useLoad(() => fetchResults(api, query), [key]);
  const refs = useLoad(async () => {
    const [assistants, campaigns] = await Promise.all([
      unwrap(api.GET('/api/user/assistants/get', { params: { query: { per_page: '100' } } })),
      unwrap(api.GET('/api/user/campaigns')),
    ]);
    return { assistants: assistants.data, campaigns };
  }, []);

  const update = (change: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(change)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };
  const applyDates = (e: FormEvent) => {
    e.preventDefault();
    update({ period: 'custom', date_from: from, date_to: to });
  };
  const errors = results.error?.errors ?? {};
  const data = results.data;

  return (
    <>
      <PageTitle>Results</PageTitle>
      <form className="filters" onSubmit={applyDates} aria-label="Choose the period and calls">
        <Select
          label="Period"
          value={period}
          onChange={(v) => update(v === 'custom' ? { period: v, date_from: from, date_to: to } : { period: v, date_from: '', date_to: '' })}
          options={PERIODS}
        />
        {period === 'custom' && (
          <>
            <TextField label="From (date)" type="date" value={from} onChange={setFrom} errors={errors.date_from} />
            <TextField label="To (date)" type="date" value={to} onChange={setTo} errors={errors.date_to} />
            <div className="filter-buttons">
              <button type="submit">Show these dates</button>
            </div>
          </>
        )}
        <Select
          label="Assistant"
          value={assistant}
          onChange={(v) => update({ assistant_id: v })}
          errors={errors.assistant_id}
          options={[{ value: '', label: 'All assistants' }, ...(refs.data?.assistants ?? []).map((a) => ({ value: String(a.id), label: a.name }))]}
        />
        <Select
          label="Campaign"
          value={campaign}
          onChange={(v) => update({ campaign_id: v })}
          errors={errors.campaign_id}
          options={[{ value: '', label: 'All campaigns' }, ...(refs.data?.campaigns ?? []).map((c) => ({ value: String(c.id), label: c.name }))]}
        />
      </form>
      <ErrorBanner error={results.error} />
      {results.loading && !data && <Loading what="results" />}
      {data && <ResultsView data={data} busy={results.loading} />}
    </>
  );
}

function ResultsView({ data, busy }: { data: Results; busy: boolean }) {
  const money = (n: number) => formatCost(n, data.currency);
  const t = data.totals;
  const labels = data.days.map((d) => shortDay(d.day));
  const dayLabels = data.days.map((d) => longDay(d.day));
  // Only the outcomes that occur in the period get a colour in the legend and a column in the table.
  const present = data.outcomes.filter((o) => data.days.some((d) => d.outcomes[o] > 0));
  const series = present.map((o) => ({ key: o, ...OUTCOME_SERIES[o] }));
  const callValues = data.days.map((d) => present.map((o) => d.outcomes[o]));
  const costSeries = [{ key: 'cost', label: `Cost (${data.currency})`, color: '#1d4ed8' }];
  const costValues = data.days.map((d) => [d.cost]);
  const busiest = data.days.reduce((a, b) => (b.calls > a.calls ? b : a), data.days[0]);
  return (
    <div aria-busy={busy} data-testid="results">
      <p className="hint" data-testid="period">
        {longDay(data.date_from)} – {longDay(data.date_to)}, days in{' '}
        <abbr title={`Each day runs from midnight to midnight in ${data.timezone}; the service stores times in UTC`}>{data.timezone}</abbr>
      </p>
      {t.calls === 0 ? (
        <Empty>
          No calls in this period — call a number from an <Link to="/assistants">assistant's page</Link>, or start a{' '}
          <Link to="/campaigns">campaign</Link>.
        </Empty>
      ) : (
        <>
          <dl className="stats summary-cards" data-testid="summary">
            <div>
              <dt>Calls</dt>
              <dd data-testid="total-calls">{t.calls.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Answer rate</dt>
              <dd data-testid="answer-rate">{percent(t.answer_rate)}</dd>
            </div>
            <div>
              <dt>Average duration (answered)</dt>
              <dd data-testid="average-duration">{formatDuration(t.average_duration)}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd data-testid="total-cost">{money(t.cost)}</dd>
            </div>
            <div>
              <dt>Reply latency p50 / p95</dt>
              <dd data-testid="latency">
                {ms(t.latency.p50_ms)} / {ms(t.latency.p95_ms)}
              </dd>
            </div>
          </dl>

          <section aria-labelledby="calls-chart-heading">
            <h2 id="calls-chart-heading">Calls per day</h2>
            <StackedBarChart
              title="Calls per day by outcome"
              testId="calls-chart"
              labels={labels}
              series={series}
              values={callValues}
              integer
              summary={`${t.calls} calls from ${dayLabels[0]} to ${dayLabels.at(-1)}; the busiest day ${longDay(busiest.day)} with ${busiest.calls}. ${present.map((o) => `${OUTCOME_SERIES[o].label}: ${data.days.reduce((n, d) => n + d.outcomes[o], 0)}`).join(', ')}.`}
            >
              <ChartTable caption="Calls per day by outcome" first="Day" labels={dayLabels} series={series} values={callValues} format={(n) => n.toLocaleString()} total="Calls" />
            </StackedBarChart>
          </section>

          <section aria-labelledby="cost-chart-heading">
            <h2 id="cost-chart-heading">Cost per day</h2>
            <StackedBarChart
              title={`Cost per day in ${data.currency}`}
              testId="cost-chart"
              labels={labels}
              series={costSeries}
              values={costValues}
              format={money}
              summary={`${money(t.cost)} in total from ${dayLabels[0]} to ${dayLabels.at(-1)}.`}
            >
              <ChartTable caption="Cost per day" first="Day" labels={dayLabels} series={costSeries} values={costValues} format={money} />
            </StackedBarChart>
          </section>

          <GroupTable title="Per assistant" caption="Results per assistant" first="Assistant" rows={data.assistants} money={money} link={(id) => `/assistants/${id}`} />
          <GroupTable title="Per campaign" caption="Results per campaign" first="Campaign" rows={data.campaigns} money={money} link={(id) => `/campaigns/${id}`} />
        </>
      )}
    </div>
  );
}

function GroupTable({ title, caption, first, rows, money, link }: { title: string; caption: string; first: string; rows: Group[]; money(n: number): string; link(id: number): string }) {
  const id = `${first.toLowerCase()}-results-heading`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <Table caption={caption} columns={[first, 'Calls', 'Answer rate', 'Average duration', 'Cost', 'Latency p50 / p95']}>
        {rows.map((r) => (
          <tr key={r.id ?? 'none'}>
            <td>{r.id === null ? r.name : <Link to={link(r.id)}>{r.name}</Link>}</td>
            <td>{r.calls.toLocaleString()}</td>
            <td>{percent(r.answer_rate)}</td>
            <td>{formatDuration(r.average_duration)}</td>
            <td>{money(r.cost)}</td>
            <td>
              {ms(r.latency.p50_ms)} / {ms(r.latency.p95_ms)}
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
