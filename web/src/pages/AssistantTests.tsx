/**
 * An assistant's Tests tab: its stored scenarios, written and edited with the document checked
 * as you type (the service's validate endpoint: every problem with its line), run one or all,
 * the run's live progress, and the history of runs; a failed run opens on its transcript with
 * the failing assertion beside the turn.
 */
import { useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { unwrap } from '../api';
import { useApi } from '../session';
import { BackLink, Empty, ErrorBanner, Loading, Notice, PageTitle, Pager, StatusBadge, Table } from '../ui/common';
import { TextField } from '../ui/fields';
import { useInterval, useLoad, useSubmit } from '../ui/hooks';
import { AssistantTabs } from './AssistantTabs';
import { RUNNING, TestRunView } from './TestRunView';

export const EXAMPLE = `name: greets the caller
caller:
  script:
    - say: "Hello, I'd like to book an appointment."
expect:
  - transcript_contains: "appointment"
  - status: completed
`;

interface Problem { line: number; message: string }

export default function AssistantTests() {
  const id = String(useParams().id);
  const api = useApi();
  const [search, setSearch] = useSearchParams();
  const openRun = search.get('run') ? Number(search.get('run')) : null;
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [source, setSource] = useState('');
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const submit = useSubmit();

  const assistant = useLoad(async () => (await unwrap(api.GET('/api/user/assistant/{id}', { params: { path: { id } } }))).data, [id]);
  const scenarios = useLoad(async () => (await unwrap(api.GET('/api/user/assistants/{id}/test-scenarios', { params: { path: { id } } }))).data, [id]);
  const runs = useLoad(() => unwrap(api.GET('/api/user/assistants/{id}/test-runs', { params: { path: { id }, query: { page: String(page), per_page: '10' } } })), [id, page]);
  useInterval(runs.reload, runs.data?.data.some((r) => RUNNING.includes(r.status)) ? 1000 : null);

  // Checked as the user types, a moment after the last key.
  useEffect(() => {
    if (editing === null) return;
    if (source.trim() === '') {
      setProblems(null);
      return;
    }
    const timer = setTimeout(async () => {
      try {
        const res = await unwrap(api.POST('/api/user/assistants/{id}/test-scenarios/validate', { params: { path: { id } }, body: { source } }));
        setProblems(res.data.errors);
      } catch {
        setProblems(null);
      }
    }, 300);
    return () => clearTimeout(timer);
  }, [source, editing, api, id]);

  const edit = (which: number | 'new') => {
    setNotice(null);
    submit.clear();
    setEditing(which);
    const stored = which === 'new' ? null : scenarios.data?.find((s) => s.id === which);
    setSource(stored ? stored.source : EXAMPLE);
  };

  const save = async () => {
    setNotice(null);
    const res = await submit.run(() =>
      editing === 'new'
        ? unwrap(api.POST('/api/user/assistants/{id}/test-scenarios', { params: { path: { id } }, body: { source } }))
        : unwrap(api.PUT('/api/user/assistants/{id}/test-scenarios/{scenarioId}', { params: { path: { id, scenarioId: String(editing) } }, body: { source } })),
    );
    if (res) {
      setNotice(`${res.message}: ${res.data.name}`);
      setEditing(res.data.id);
      scenarios.reload();
    }
  };

  const remove = async (scenarioId: number, name: string) => {
    if (!window.confirm(`Delete the test scenario "${name}"?`)) return;
    const res = await submit.run(() => unwrap(api.DELETE('/api/user/assistants/{id}/test-scenarios/{scenarioId}', { params: { path: { id, scenarioId: String(scenarioId) } } })));
    if (res) {
      if (editing === scenarioId) setEditing(null);
      scenarios.reload();
    }
  };

  const start = async (body: { scenario_ids?: number[] }) => {
    setNotice(null);
    const res = await submit.run(() => unwrap(api.POST('/api/user/assistants/{id}/test-runs', { params: { path: { id } }, body })));
    if (res) {
      setPage(1);
      runs.reload();
      setSearch({ run: String(res.data.id) });
    }
  };

  if (assistant.error) return <ErrorBanner error={assistant.error} />;
  if (!assistant.data) return <Loading what="the assistant" />;
  const sourceErrors = submit.fieldErrors.source;

  return (
    <>
      <BackLink to="/assistants">All assistants</BackLink>
      <PageTitle>Assistant: {assistant.data.name}</PageTitle>
      <AssistantTabs id={id} current="tests" />
      <ErrorBanner error={scenarios.error ?? runs.error ?? submit.error} />
      {notice && <Notice>{notice}</Notice>}

      <section aria-labelledby="scenarios-heading" className="panel">
        <h2 id="scenarios-heading">Test scenarios</h2>
        <p>
          A scenario is a YAML (or JSON) document: a caller's script or a simulated caller, mocks for tools, and what must happen. Runs are not calls: they are not
          listed, billed or sent to webhooks.
        </p>
        {scenarios.data && scenarios.data.length === 0 && <Empty>No scenarios yet.</Empty>}
        {scenarios.data && scenarios.data.length > 0 && (
          <Table caption="Stored test scenarios" columns={['Scenario', 'Changed (UTC)', '']}>
            {scenarios.data.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>{s.updated_at.replace('T', ' ').slice(0, 19)}</td>
                <td>
                  <button type="button" className="secondary" onClick={() => edit(s.id)}>
                    Edit {s.name}
                  </button>{' '}
                  <button type="button" onClick={() => start({ scenario_ids: [s.id] })} disabled={submit.busy}>
                    Run {s.name}
                  </button>{' '}
                  <button type="button" className="danger" onClick={() => remove(s.id, s.name)} disabled={submit.busy}>
                    Delete {s.name}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
        <p>
          <button type="button" className="secondary" onClick={() => edit('new')}>
            New scenario
          </button>{' '}
          <button type="button" onClick={() => start({})} disabled={submit.busy || !scenarios.data?.length}>
            Run all scenarios
          </button>
        </p>
        {editing !== null && (
          <div className="scenario-editor">
            <h3>{editing === 'new' ? 'New scenario' : 'Edit scenario'}</h3>
            <TextField
              label="Scenario (YAML or JSON)"
              multiline
              rows={14}
              value={source}
              onChange={setSource}
              errors={sourceErrors}
              hint="Checked as you type: each problem names its line."
            />
            <div aria-live="polite" data-testid="scenario-check">
              {problems !== null && problems.length === 0 && <p className="hint">No problems found.</p>}
              {problems !== null && problems.length > 0 && (
                <ul className="field-error">
                  {problems.map((p, i) => (
                    <li key={i}>
                      {p.line > 0 ? `Line ${p.line}: ` : ''}
                      {p.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <button type="button" onClick={save} disabled={submit.busy}>
              {editing === 'new' ? 'Save scenario' : 'Save changes to the scenario'}
            </button>{' '}
            <button type="button" className="secondary" onClick={() => setEditing(null)}>
              Close the editor
            </button>
          </div>
        )}
      </section>

      {openRun !== null && <TestRunView key={openRun} runId={openRun} onFinished={() => runs.reload()} />}

      <section aria-labelledby="runs-heading" className="panel">
        <h2 id="runs-heading">Test runs</h2>
        {runs.data && runs.data.data.length === 0 && <Empty>No runs yet.</Empty>}
        {runs.data && runs.data.data.length > 0 && (
          <>
            <Table caption="Test runs of this assistant" columns={['Run', 'Started (UTC)', 'Version', 'Result', '']}>
              {runs.data.data.map((r) => (
                <tr key={r.id}>
                  <td>#{r.id}</td>
                  <td>{r.created_at.replace('T', ' ').slice(0, 19)}</td>
                  <td>
                    {r.assistant_version ?? '—'}
                    {r.unsaved_changes && <span className="hint"> + unsaved changes</span>}
                  </td>
                  <td>
                    <StatusBadge status={r.status} /> {r.passed} of {r.total} passed
                  </td>
                  <td>
                    <button type="button" className="secondary" onClick={() => setSearch({ run: String(r.id) })} aria-pressed={openRun === r.id}>
                      Open run #{r.id}
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
            <Pager page={page} lastPage={runs.data.last_page} total={runs.data.total} onPage={setPage} label="Test runs" />
          </>
        )}
      </section>
    </>
  );
}
