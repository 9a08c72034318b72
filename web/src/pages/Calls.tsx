import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { CallTable } from '../ui/CallTable';
import { ErrorBanner, Loading, PageTitle, Pager } from '../ui/common';
import { Select, TextField } from '../ui/fields';
import { useInterval, useLoad } from '../ui/hooks';
import { callListKey, callListQuery, takePrefetched } from '../prefetch';
import { download, toCsv } from '../ui/csv';

/** Calls one export reads at most (100 pages of 100). */
const EXPORT_MAX = 10_000;
const EXPORT_COLUMNS = ['id', 'created_at', 'status', 'type', 'client_phone_number', 'assistant_phone_number', 'assistant_name', 'campaign_name', 'duration', 'answered_by', 'carrier_cost', 'total_cost'] as const;

const STATUSES = ['initiated', 'ringing', 'busy', 'in-progress', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'];
const FILTERS = ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

export default function Calls() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Filters;
  const [draft, setDraft] = useState<Filters>(applied);
  const refs = useLoad(async () => {
    const [assistants, campaigns] = await Promise.all([
      unwrap(api.GET('/api/user/assistants/get', { params: { query: { per_page: '100' } } })),
      unwrap(api.GET('/api/user/campaigns')),
    ]);
    return { assistants: assistants.data, campaigns };
  }, []);
  const key = params.toString();
  const list = useLoad(() => {
    const query = callListQuery(params);
    type Page = Awaited<ReturnType<typeof fetchPage>>;
    const fetchPage = () => unwrap(api.GET('/api/user/calls', { params: { query: query as never } }));
    return takePrefetched<Page>(callListKey(query)) ?? fetchPage();
  }, [key]);

  // Calls still running on this page: the page refreshes by itself until they are over.
  const live = list.data?.data.some((c) => ['initiated', 'ringing', 'in-progress'].includes(c.status)) ?? false;
  useInterval(() => list.reload(), live ? 3000 : null);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const filters = Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ''));
    setParams(params.get('sort') ? { ...filters, sort: params.get('sort')! } : filters);
  };
  const set = (k: keyof Filters) => (v: string) => setDraft({ ...draft, [k]: v });
  const [exporting, setExporting] = useState<string | null>(null);
  const sort = params.get('sort') ?? '-created_at';
  const SORT_WORDS: Record<string, string> = {
    '-created_at': 'newest first', created_at: 'oldest first', '-duration': 'longest first',
    duration: 'shortest first', '-total_cost': 'dearest first', total_cost: 'cheapest first',
  };
  /** A new order starts again at page 1; the filters stay. */
  const sortBy = (next: string) => {
    const kept = Object.fromEntries([...params].filter(([k]) => k !== 'page' && k !== 'sort'));
    setParams(next === '-created_at' ? kept : { ...kept, sort: next });
  };
  /** Every call the applied filters find (in the list's order, up to EXPORT_MAX), as a CSV file. */
  const exportCsv = async () => {
    const query = Object.fromEntries([...params].filter(([k]) => k !== 'page' && k !== 'per_page'));
    const rows: (string | number | null)[][] = [];
    let total = 0;
    try {
      for (let page = 1; rows.length < EXPORT_MAX; page++) {
        setExporting(`Reading calls… ${rows.length.toLocaleString('en')}`);
        const res = await unwrap(api.GET('/api/user/calls', { params: { query: { ...query, page: String(page), per_page: '100' } as never } }));
        total = res.total;
        for (const c of res.data) rows.push(EXPORT_COLUMNS.map((k) => (c as unknown as Record<string, string | number | null>)[k] ?? null));
        if (page >= res.last_page) break;
      }
      download(`calls-${new Date().toISOString().slice(0, 10)}.csv`, toCsv([...EXPORT_COLUMNS], rows));
      setExporting(`Exported ${rows.length.toLocaleString('en')} calls${total > rows.length ? ` (the first ${rows.length.toLocaleString('en')} of ${total.toLocaleString('en')})` : ''}.`);
    } catch (err) {
      setExporting(`The export failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const errors = list.error?.errors ?? {};

  return (
    <>
      <PageTitle>Calls</PageTitle>
      <form className="filters" onSubmit={apply} aria-label="Filter calls">
        <Select label="Status" value={draft.status} onChange={set('status')} errors={errors.status} options={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]} />
        <Select label="Type" value={draft.type} onChange={set('type')} errors={errors.type} options={[{ value: '', label: 'Any' }, ...['inbound', 'outbound', 'web'].map((s) => ({ value: s, label: s }))]} />
        <TextField label="Customer number" value={draft.phone_number} onChange={set('phone_number')} errors={errors.phone_number} />
        <Select
          label="Assistant"
          value={draft.assistant_id}
          onChange={set('assistant_id')}
          errors={errors.assistant_id}
          options={[{ value: '', label: 'Any' }, ...(refs.data?.assistants ?? []).map((a) => ({ value: String(a.id), label: a.name }))]}
        />
        <Select
          label="Campaign"
          value={draft.campaign_id}
          onChange={set('campaign_id')}
          errors={errors.campaign_id}
          options={[{ value: '', label: 'Any' }, ...(refs.data?.campaigns ?? []).map((c) => ({ value: String(c.id), label: c.name }))]}
        />
        <TextField label="From (date)" type="date" value={draft.date_from} onChange={set('date_from')} errors={errors.date_from} />
        <TextField label="To (date)" type="date" value={draft.date_to} onChange={set('date_to')} errors={errors.date_to} />
        <Select label="Order" value={sort} onChange={sortBy} errors={errors.sort} options={Object.entries(SORT_WORDS).map(([value, words]) => ({ value, label: words[0].toUpperCase() + words.slice(1) }))} />
        <div className="filter-buttons">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft(Object.fromEntries(FILTERS.map((k) => [k, ''])) as Filters);
              setParams({});
            }}
          >
            Clear filters
          </button>
          <button type="button" className="secondary" onClick={exportCsv} disabled={!list.data || list.data.total === 0}>
            Export CSV
          </button>
        </div>
        {exporting && (
          <p role="status" data-testid="export-status">
            {exporting}
          </p>
        )}
      </form>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading what="calls" />}
      {list.data && (
        <>
          <CallTable calls={list.data.data} caption={`Your calls, ${SORT_WORDS[sort] ?? 'newest first'}`} sort={sort} onSort={sortBy} />
          {list.data.total > 0 && (
            <Pager
              label="Call list"
              page={list.data.current_page}
              lastPage={list.data.last_page}
              total={list.data.total}
              onPage={(p) => setParams({ ...Object.fromEntries(params), page: String(p) })}
            />
          )}
        </>
      )}
    </>
  );
}
