import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BarChart } from '../ui/BarChart';
import { CallTable } from '../ui/CallTable';
import { BackLink, ErrorBanner, Loading, Notice, PageTitle, Pager, StatusBadge } from '../ui/common';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';
import { fills, placeholders } from '../ui/placeholders';

/** Leads read to check the placeholders before a start (10 pages of 100). */
const PREFLIGHT_LEADS = 1000;

const LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const;

export default function CampaignDetail() {
  const id = Number(useParams().id);
  const api = useApi();
  const navigate = useNavigate();
  const campaign = useLoad(async () => (await unwrap(api.GET('/api/user/campaign/{id}', { params: { path: { id: String(id) } } }))).data, [id]);
  const progress = useLoad(async () => (await unwrap(api.GET('/api/user/campaign/{id}/progress', { params: { path: { id: String(id) } } }))).data, [id]);
  const [callsPage, setCallsPage] = useState(1);
  const calls = useLoad(() => unwrap(api.GET('/api/user/calls', { params: { query: { campaign_id: String(id), page: String(callsPage), per_page: '15' } } })), [id, callsPage]);
  const action = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);
  /** What a start would get wrong, said before it: no leads (nothing to start), or placeholders the leads leave empty. */
  const [preflight, setPreflight] = useState<{ problems: string[]; canStart: boolean } | null>(null);
  const running = progress.data?.status === 'in-progress' || campaign.data?.status === 'in-progress';
  useInterval(() => {
    progress.reload();
    calls.reload();
  }, running ? 2000 : null);

  if (campaign.error) return <ErrorBanner error={campaign.error} />;
  if (!campaign.data) return <Loading what="the campaign" />;
  const c = campaign.data;
  const p = progress.data;
  const status = p?.status ?? c.status;

  const change = async (what: 'start' | 'stop') => {
    setNotice(null);
    const res = await action.run(() => unwrap(api.POST('/api/user/campaigns/update-status', { body: { campaign_id: id, action: what } })));
    if (res) setNotice(res.message);
    campaign.reload();
    progress.reload();
  };
  /** Checks the leads against the assistant's placeholders, then starts, or says what is wrong first. */
  const start = async () => {
    setNotice(null);
    setPreflight(null);
    const checked = await action.run(async () => {
      const total = progress.data?.leads.total ?? (await unwrap(api.GET('/api/user/campaign/{id}/progress', { params: { path: { id: String(id) } } }))).data.leads.total;
      if (total === 0) return { problems: ['This campaign has no leads: there is nobody to call. Import or add leads first.'], canStart: false };
      const a = (await unwrap(api.GET('/api/user/assistant/{id}', { params: { path: { id: String(c.assistant_id) } } }))).data;
      const names = placeholders(a.initial_message, a.system_prompt).filter((n) => !fills(a.variables as Record<string, unknown> | null, n));
      if (names.length === 0) return { problems: [], canStart: true };
      const leads: { status: string; variables?: Record<string, unknown> | null }[] = [];
      for (let page = 1; leads.length < Math.min(total, PREFLIGHT_LEADS); page++) {
        const res = await unwrap(api.GET('/api/user/campaign/{id}/leads', { params: { path: { id: String(id) }, query: { page: String(page), per_page: '100' } } }));
        leads.push(...(res.data as typeof leads));
        if (page >= res.last_page) break;
      }
      const waiting = leads.filter((l) => l.status === 'created');
      const of = `${waiting.length.toLocaleString('en')} waiting lead${waiting.length === 1 ? '' : 's'}${total > leads.length ? ` (of the first ${leads.length.toLocaleString('en')})` : ''}`;
      const problems = names.flatMap((n) => {
        const missing = waiting.filter((l) => !fills(l.variables, n)).length;
        return missing > 0 ? [`{{${n}}} is empty for ${missing.toLocaleString('en')} of ${of}: ${a.name} will leave it out of what it says to them.`] : [];
      });
      return { problems, canStart: true };
    });
    if (!checked) return;
    if (checked.problems.length === 0) await change('start');
    else setPreflight(checked);
  };
  const remove = async () => {
    if (!window.confirm(`Delete the campaign "${c.name}" and its leads? Its calls stay.`)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/user/campaign/{id}', { params: { path: { id: String(id) } } })));
    if (res) navigate('/campaigns');
  };

  return (
    <>
      <BackLink to="/campaigns">All campaigns</BackLink>
      <PageTitle
        actions={
          <>
            {status === 'in-progress' ? (
              <button type="button" onClick={() => change('stop')} disabled={action.busy}>
                Stop campaign
              </button>
            ) : (
              <button type="button" onClick={start} disabled={action.busy}>
                Start campaign
              </button>
            )}
            <Link className="button secondary" to={`/campaigns/${id}/edit`}>
              Change settings
            </Link>
            <button type="button" className="danger" onClick={remove} disabled={action.busy}>
              Delete campaign
            </button>
          </>
        }
      >
        Campaign: {c.name}
      </PageTitle>
      <p>
        Status: <StatusBadge status={status} /> · calls {c.allowed_hours_start_time}–{c.allowed_hours_end_time} ({c.timezone}) on {c.allowed_days.join(', ')} · up to{' '}
        {c.max_calls_in_parallel} at once · {c.max_retries} attempts per number, {c.retry_interval} minutes apart
      </p>
      <ErrorBanner error={action.error ?? progress.error} />
      {notice && <Notice>{notice}</Notice>}
      {preflight && (
        <div className="callout" role="alert" data-testid="start-warnings">
          <p>{preflight.canStart ? 'Before this campaign starts:' : 'This campaign cannot start yet.'}</p>
          <ul>
            {preflight.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          <div className="actions">
            {preflight.canStart && (
              <button type="button" onClick={() => { setPreflight(null); void change('start'); }} disabled={action.busy}>
                Start anyway
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setPreflight(null)}>
              {preflight.canStart ? 'Cancel' : 'Close'}
            </button>
          </div>
        </div>
      )}

      <section aria-labelledby="progress-heading" className="panel">
        <h2 id="progress-heading">Progress</h2>
        {!p && <Loading what="progress" />}
        {p && (
          <div className="progress-grid">
            <div>
              <h3>Leads by status</h3>
              <dl className="stats" aria-live="polite">
                <div>
                  <dt>All leads</dt>
                  <dd data-testid="leads-total">{p.leads.total}</dd>
                </div>
                {LEAD_STATUSES.map((s) => (
                  <div key={s}>
                    <dt>{s}</dt>
                    <dd data-testid={`leads-${s}`}>{p.leads[s]}</dd>
                  </div>
                ))}
                <div>
                  <dt>Calls in flight</dt>
                  <dd data-testid="calls-in-flight">{p.calls_in_flight}</dd>
                </div>
              </dl>
              {p.leads.total > 0 && (
                <progress max={p.leads.total} value={p.leads.total - p.leads.created} aria-label="Leads finished">
                  {p.leads.total - p.leads.created} of {p.leads.total}
                </progress>
              )}
            </div>
            <BarChart
              title="Calls finished per minute, last 15 minutes"
              unit="calls"
              bars={p.calls_finished_per_minute.map((m) => ({ label: m.minute.slice(11, 16), value: m.count }))}
            />
          </div>
        )}
        <p>
          <Link to={`/leads?campaign=${id}`}>See its leads</Link> · <Link to={`/leads/import?campaign=${id}`}>Import leads from a CSV file</Link>
        </p>
      </section>

      <section aria-labelledby="calls-heading">
        <h2 id="calls-heading">Its calls</h2>
        {calls.error && <ErrorBanner error={calls.error} />}
        {calls.data && (
          <>
            <CallTable calls={calls.data.data} caption={`Calls of ${c.name}`} />
            {calls.data.total > 0 && <Pager label="Campaign calls" page={calls.data.current_page} lastPage={calls.data.last_page} total={calls.data.total} onPage={setCallsPage} />}
          </>
        )}
      </section>
    </>
  );
}
