import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, Empty, ErrorBanner, Loading, Notice, PageTitle, StatusBadge, Table } from '../ui/common';
import { formatCost, parseUtc, useCostCurrency, When } from '../ui/format';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';
import { TurnKnowledge } from './TurnKnowledge';
import { TurnTimings } from './TurnTimings';
import { TurnToolCalls } from './TurnToolCalls';

const LIVE = ['initiated', 'ringing', 'in-progress'];

/** The transcript's lines as turns: `AI: …` and `Customer: …`; any other line is a note. */
function turnsOf(transcript: string): { who: 'AI' | 'Customer' | 'note'; text: string }[] {
  return transcript
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const m = /^(AI|Customer):\s?(.*)$/.exec(line);
      return m ? { who: m[1] as 'AI' | 'Customer', text: m[2] } : { who: 'note', text: line };
    });
}

/** m:ss since a UTC time. */
function elapsed(utc: string, now: number): string {
  const start = parseUtc(utc)?.getTime() ?? now;
  const s = Math.max(0, Math.floor((now - start) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * While a call runs, its transcript is not written yet: the turns finished so far (they are
 * stored as each ends) stand in for it, refreshed with the page.
 */
function LiveTranscript({ turns }: { turns: { caller_text: string | null; assistant_text: string }[] }) {
  const lines = turns.flatMap((t) => [
    ...(t.caller_text ? [{ who: 'Customer' as const, text: t.caller_text }] : []),
    ...(t.assistant_text ? [{ who: 'AI' as const, text: t.assistant_text }] : []),
  ]);
  if (lines.length === 0) return <Empty>The call is running; nothing has been said yet.</Empty>;
  return (
    <>
      <p className="hint">The call is running: its turns so far (the full transcript is written when it ends).</p>
      <ol className="conversation" data-testid="live-call-transcript" aria-live="polite">
        {lines.map((l, i) => (
          <li key={i} className={`turn turn-${l.who.toLowerCase()}`}>
            <span className="speaker">{l.who === 'AI' ? 'Assistant' : 'Customer'}</span>
            <span className="text">{l.text}</span>
          </li>
        ))}
      </ol>
    </>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <>—</>;
  if (typeof value === 'object') return <code>{JSON.stringify(value)}</code>;
  return <>{String(value)}</>;
}

/** Named values (evaluation, variables) as a two-column table. */
function KeyValues({ caption, entries, empty }: { caption: string; entries: [string, unknown][]; empty: string }) {
  if (entries.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>
              <Value value={v} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function CallDetail() {
  const id = Number(useParams().id);
  const api = useApi();
  const navigate = useNavigate();
  const call = useLoad(() => unwrap(api.GET('/api/user/calls/{id}', { params: { path: { id: String(id) } } })), [id]);
  const turns = useLoad(async () => (await unwrap(api.GET('/api/user/calls/{id}/turns', { params: { path: { id: String(id) } } }))).data, [id]);
  const deliveries = useLoad(async () => (await unwrap(api.GET('/api/user/calls/{id}/webhook-deliveries', { params: { path: { id: String(id) } } }))).data, [id]);
  const action = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);
  const [madeTest, setMadeTest] = useState<{ assistantId: number; name: string } | null>(null);
  const currency = useCostCurrency();
  const live = call.data ? LIVE.includes(call.data.status) : false;
  // A running call's clock ticks each second.
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), live ? 1000 : null);
  useInterval(() => {
    call.reload();
    turns.reload();
    deliveries.reload();
  }, call.data && LIVE.includes(call.data.status) ? 2000 : null);

  if (call.error) return <ErrorBanner error={call.error} />;
  if (!call.data) return <Loading what="the call" />;
  const c = call.data;
  const evaluation = Object.entries(c.evaluation ?? {});
  const variables = Object.entries(c.variables ?? {});

  const resend = async () => {
    setNotice(null);
    const res = await action.run(() => unwrap(api.POST('/api/user/calls/{id}/webhook-deliveries/resend', { params: { path: { id: String(id) } } })));
    if (res) {
      setNotice(`${res.message}: ${res.data.map((d) => d.url).join(', ')}`);
      setTimeout(deliveries.reload, 1500);
    }
  };
  const makeTest = async () => {
    setMadeTest(null);
    const res = await action.run(() => unwrap(api.POST('/api/user/calls/{id}/test-scenario', { params: { path: { id: String(id) } }, body: { save: true } })));
    if (res) setMadeTest({ assistantId: res.data.assistant_id, name: res.data.name });
  };
  const remove = async () => {
    if (!window.confirm(`Delete call #${id} and its recording?`)) return;
    const res = await action.run(() => unwrap(api.DELETE('/api/user/calls/{id}', { params: { path: { id: String(id) } } })));
    if (res) navigate('/calls');
  };

  return (
    <>
      <BackLink to="/calls">All calls</BackLink>
      <PageTitle
        actions={
          <>
            <button type="button" className="secondary" onClick={makeTest} disabled={action.busy || LIVE.includes(c.status)}>
              Make a test from this call
            </button>{' '}
            <button type="button" className="danger" onClick={remove} disabled={action.busy || LIVE.includes(c.status)}>Delete call</button>
          </>
        }
      >
        Call #{c.id}
      </PageTitle>
      {madeTest && (
        <Notice>
          Test scenario "{madeTest.name}" saved. <Link to={`/assistants/${madeTest.assistantId}/tests`}>Open the assistant's tests</Link>
        </Notice>
      )}
      {!madeTest && action.error && <ErrorBanner error={action.error} />}
      <dl className="facts">
        <div><dt>Status</dt><dd><StatusBadge status={c.status} /></dd></div>
        <div><dt>Type</dt><dd>{c.type}</dd></div>
        <div><dt>Customer</dt><dd className="mono">{c.client_phone_number}</dd></div>
        <div><dt>Assistant</dt><dd>{c.assistant_name} {c.assistant_phone_number && <span className="mono">({c.assistant_phone_number})</span>}</dd></div>
        <div><dt>Campaign</dt><dd>{c.campaign_name ?? '—'}</dd></div>
        <div><dt>Answered by</dt><dd>{c.answered_by}</dd></div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="call-duration">{live ? <>running for {elapsed(c.created_at, now)}</> : `${c.duration} s`}</dd>
        </div>
        <div><dt>Cost</dt><dd data-testid="call-cost">{formatCost(c.total_cost, currency)} (carrier {formatCost(c.carrier_cost, currency)})</dd></div>
        <div><dt>Started</dt><dd><When utc={c.created_at} /></dd></div>
      </dl>

      <section aria-labelledby="recording-heading">
        <h2 id="recording-heading">Recording</h2>
        {c.recording_url ? (
          <audio controls preload="none" src={c.recording_url} aria-label={`Recording of call ${c.id}`}>
            <a href={c.recording_url}>Download the recording</a>
          </audio>
        ) : (
          <Empty>No recording for this call.</Empty>
        )}
      </section>

      <section aria-labelledby="transcript-heading">
        <h2 id="transcript-heading">Transcript</h2>
        {c.transcript.trim() === '' && live ? (
          <LiveTranscript turns={turns.data ?? []} />
        ) : c.transcript.trim() === '' ? (
          <Empty>Nothing was said.</Empty>
        ) : (
          <ol className="conversation" data-testid="transcript">
            {turnsOf(c.transcript).map((t, i) => (
              <li key={i} className={`turn turn-${t.who.toLowerCase()}`}>
                {t.who !== 'note' && <span className="speaker">{t.who === 'AI' ? 'Assistant' : 'Customer'}</span>}
                <span className="text">{t.text}</span>
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="turns-heading">
        <h2 id="turns-heading">Turns and timings</h2>
        {turns.data ? <TurnTimings turns={turns.data} /> : <Loading what="the turns" />}
        {turns.data && <TurnToolCalls turns={turns.data} />}
        {turns.data && <TurnKnowledge turns={turns.data} />}
      </section>

      <section aria-labelledby="evaluation-heading">
        <h2 id="evaluation-heading">Evaluation and extracted data</h2>
        <KeyValues caption="Evaluation" entries={evaluation} empty="No evaluation." />
        <h3>Input variables</h3>
        <KeyValues caption="Input variables" entries={variables} empty="None." />
      </section>

      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Webhook deliveries</h2>
        <ErrorBanner error={deliveries.error ?? action.error} />
        {notice && <Notice>{notice}</Notice>}
        {deliveries.data && deliveries.data.length === 0 && <Empty>No webhook was sent for this call.</Empty>}
        {deliveries.data && deliveries.data.length > 0 && (
          <Table caption="Delivery attempts" columns={['When (UTC)', 'Kind', 'Attempt', 'URL', 'Answer', 'Time']}>
              {deliveries.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <When utc={d.created_at} />
                  </td>
                  <td>{d.kind}</td>
                  <td>{d.attempt}</td>
                  <td className="mono small">{d.url}</td>
                  <td>{d.status_code ?? d.error ?? '—'}</td>
                  <td>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
                </tr>
              ))}
          </Table>
        )}
        {c.webhook_response && Object.keys(c.webhook_response).length > 0 && (
          <>
            <h3>Stored answer of the receiver</h3>
            <pre>{JSON.stringify(c.webhook_response, null, 2)}</pre>
          </>
        )}
        <button type="button" onClick={resend} disabled={action.busy || LIVE.includes(c.status)}>
          Send the webhooks again
        </button>
      </section>
    </>
  );
}
