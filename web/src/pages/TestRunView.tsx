/**
 * One test run, polled while it runs: each scenario's outcome, and for a failed repeat its
 * transcript with each failing assertion shown beside the turn it concerns (the line the text
 * appears in, or the last turn when the assertion is about the whole call).
 */
import { useState } from 'react';
import { unwrap, type paths } from '../api';
import { useApi } from '../session';
import { ErrorBanner, Loading, StatusBadge } from '../ui/common';
import { useInterval, useLoad } from '../ui/hooks';

export type TestRun = paths['/api/user/test-runs/{id}']['get']['responses'][200]['content']['application/json']['data'];
type Repeat = TestRun['scenarios'][number]['repeats'][number];
interface Line { role: string; text: string }
interface Assertion { kind: string; line: number; outcome: 'passed' | 'failed' | 'skipped'; expected: unknown; actual: unknown; message: string }

export const RUNNING = ['queued', 'running'];

const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The transcript line a failed assertion belongs beside. */
function lineOf(a: Assertion, lines: Line[]): number {
  const last = lines.length - 1;
  if (a.kind === 'transcript_absent' || a.kind === 'transcript_contains') {
    const needle = typeof a.actual === 'string' && a.kind === 'transcript_absent' ? a.actual : typeof a.expected === 'string' ? a.expected : '';
    const plain = needle.replace(/^\/(.*)\/[a-z]*$/, '$1').toLowerCase();
    const i = plain ? lines.findIndex((l) => l.text.toLowerCase().includes(plain)) : -1;
    if (i >= 0) return i;
  }
  for (let i = last; i >= 0; i--) if (lines[i].role === 'assistant') return i;
  return last;
}

function RepeatView({ repeat, label }: { repeat: Repeat; label: string }) {
  const lines = repeat.transcript as Line[];
  const assertions = repeat.assertions as Assertion[];
  const failed = assertions.filter((a) => a.outcome === 'failed');
  const beside = new Map<number, Assertion[]>();
  for (const a of failed) {
    const i = lineOf(a, lines);
    beside.set(i, [...(beside.get(i) ?? []), a]);
  }
  return (
    <div className="test-repeat">
      <h4>
        {label}: <StatusBadge status={repeat.status} /> {repeat.end_status && <span className="hint">call ended: {repeat.end_status}</span>}
      </h4>
      {repeat.error && (
        <p className="field-error" role="alert">
          Could not run: {repeat.error}
        </p>
      )}
      {lines.length > 0 && (
        <ol className="conversation" aria-label={`Transcript, ${label}`}>
          {lines.map((l, i) => (
            <li key={i} className={`turn turn-${l.role === 'assistant' ? 'ai' : l.role === 'caller' ? 'customer' : 'note'}`}>
              {l.role !== 'note' && <span className="speaker">{l.role === 'assistant' ? 'Assistant' : 'Caller'}</span>}
              <span className="text">{l.text}</span>
              {beside.get(i)?.map((a, j) => (
                <aside key={j} className="assertion-failed" role="note" aria-label="Failed assertion">
                  <strong>Failed: {a.kind}</strong> (line {a.line}): {a.message}
                  <br />
                  expected <code>{shown(a.expected)}</code>, actual <code>{shown(a.actual)}</code>
                </aside>
              ))}
            </li>
          ))}
        </ol>
      )}
      <details>
        <summary>All {assertions.length} assertions</summary>
        <ul>
          {assertions.map((a, i) => (
            <li key={i}>
              {a.outcome} — {a.kind} (line {a.line}): {a.message}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

export function TestRunView({ runId, onFinished }: { runId: number; onFinished?(run: TestRun): void }) {
  const api = useApi();
  const [done, setDone] = useState(false);
  const run = useLoad(async () => {
    const r = (await unwrap(api.GET('/api/user/test-runs/{id}', { params: { path: { id: String(runId) } } }))).data;
    if (!RUNNING.includes(r.status) && !done) {
      setDone(true);
      onFinished?.(r);
    }
    return r;
  }, [runId]);
  useInterval(run.reload, run.data && RUNNING.includes(run.data.status) ? 700 : null);
  if (run.error) return <ErrorBanner error={run.error} />;
  if (!run.data) return <Loading what="the test run" />;
  const r = run.data;
  const finished = r.scenarios.filter((s) => s.status !== 'pending').length;
  return (
    <section className="test-run" aria-labelledby={`run-${r.id}-heading`}>
      <h3 id={`run-${r.id}-heading`}>
        Test run #{r.id}: <StatusBadge status={r.status} />
      </h3>
      <p aria-live="polite" data-testid="run-progress">
        {RUNNING.includes(r.status)
          ? `Running: ${finished} of ${r.total} scenarios finished`
          : `${r.passed} passed, ${r.failed} failed, ${r.errored} could not run — version ${r.assistant_version ?? '—'}${r.unsaved_changes ? ' with unsaved changes' : ''}`}
      </p>
      {r.error && <p className="field-error" role="alert">{r.error}</p>}
      {r.scenarios.map((s) => (
        <div key={s.position} className="test-scenario-result">
          <h4>
            {s.name}: <StatusBadge status={s.status} />
            {s.repeat > 1 && <span className="hint"> ({s.repeats.filter((x) => x.status === 'passed').length} of {s.repeat} repeats passed, pass rate {s.pass_rate})</span>}
          </h4>
          {s.repeats
            .filter((x) => x.status !== 'passed' || s.repeat === 1)
            .slice(0, 3)
            .map((x) => (
              <RepeatView key={x.repeat} repeat={x} label={s.repeat > 1 ? `Repeat ${x.repeat + 1}` : 'Conversation'} />
            ))}
        </div>
      ))}
    </section>
  );
}
