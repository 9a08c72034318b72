/**
 * `switchboard test … --url URL --token TOKEN --assistant ID`: the scenarios run on a running
 * service through its API — `POST /api/user/assistants/{id}/test-runs` with the files' text,
 * then `GET /api/user/test-runs/{id}` once a second until the run is over — and come back in
 * the shape a local run reports (report, JUnit XML, --json).
 */
import type { RunResult, RunStatus, ScenarioResult, SuiteResult } from '../assistant-tests/runner.js';
import type { Scenario } from '../assistant-tests/scenario.js';
import { CliError } from './session.js';

interface RemoteRepeat {
  repeat: number;
  status: RunStatus;
  end_status: string | null;
  transcript: RunResult['transcript'];
  tool_requests: RunResult['toolRequests'];
  turns: RunResult['turns'];
  assertions: RunResult['assertions'];
  variables: Record<string, unknown>;
  error: string | null;
  duration_ms: number;
}

interface RemoteRun {
  id: number;
  assistant_id: number;
  assistant_version: number | null;
  status: 'queued' | 'running' | RunStatus;
  error: string | null;
  scenarios: { position: number; name: string; pass_rate: number; status: 'pending' | RunStatus; repeats: RemoteRepeat[] }[];
}

async function call(url: string, token: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'x-switchboard-client': 'cli', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new CliError(`cannot reach ${url}: ${(err as Error).message}`, 2);
  }
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text.slice(0, 200) };
  }
  return { status: res.status, body: parsed };
}

function refusal(what: string, res: { status: number; body: any }): CliError {
  const errors = res.body?.errors ? `\n${JSON.stringify(res.body.errors, null, 2)}` : '';
  return new CliError(`${what}: ${res.status} ${res.body?.message ?? ''}${errors}`, res.status >= 500 ? 1 : 2);
}

export async function runRemotely(
  base: string,
  token: string,
  assistantId: number,
  sources: string[],
  local: Scenario[],
  { pollMs = 1000, timeoutMs = 30 * 60_000 }: { pollMs?: number; timeoutMs?: number } = {},
): Promise<SuiteResult> {
  const root = base.replace(/\/+$/, '');
  const started = performance.now();
  const created = await call(`${root}/api/user/assistants/${assistantId}/test-runs`, token, 'POST', { scenarios: sources });
  if (created.status !== 201 && created.status !== 202 && created.status !== 200) throw refusal('the service refused the run', created);
  const id = created.body?.data?.id;
  let run: RemoteRun;
  for (;;) {
    const res = await call(`${root}/api/user/test-runs/${id}`, token, 'GET');
    if (res.status !== 200) throw refusal(`reading test run ${id} failed`, res);
    run = res.body.data as RemoteRun;
    if (run.status !== 'queued' && run.status !== 'running') break;
    if (performance.now() - started > timeoutMs) throw new CliError(`test run ${id} did not finish within ${Math.round(timeoutMs / 60_000)} minutes`, 1);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  const scenarios: ScenarioResult[] = run.scenarios.map((s) => {
    const mine = local[s.position];
    const runs: RunResult[] = s.repeats.map((r) => ({
      scenario: s.position,
      repeat: r.repeat,
      status: r.status,
      endStatus: r.end_status,
      transcript: r.transcript,
      toolRequests: r.tool_requests,
      turns: r.turns,
      assertions: r.assertions,
      variables: r.variables,
      error: r.error,
      durationMs: r.duration_ms,
    }));
    const passedRuns = runs.filter((r) => r.status === 'passed').length;
    const status: RunStatus = s.status === 'pending' ? 'error' : s.status;
    const firstFailure = runs.flatMap((r) => r.assertions.filter((a) => a.outcome === 'failed'))[0];
    const rate = `${passedRuns} of ${runs.length} run(s) passed (pass_rate ${s.pass_rate})`;
    const summary = status === 'passed' ? rate : status === 'error' ? (runs.find((r) => r.error)?.error ?? run.error ?? 'the run could not finish') : `${rate}${firstFailure ? `; line ${firstFailure.line}: ${firstFailure.message}` : ''}`;
    return { index: s.position, name: s.name, file: mine?.file ?? `run ${id}`, line: mine?.line ?? 0, status, runs, passedRuns, passRate: runs.length ? passedRuns / runs.length : 0, requiredPassRate: s.pass_rate, summary };
  });
  const count = (st: RunStatus) => scenarios.filter((s) => s.status === st).length;
  return {
    status: run.status === 'error' || count('error') > 0 ? 'error' : count('failed') > 0 ? 'failed' : 'passed',
    assistant: { id: run.assistant_id, name: `assistant ${run.assistant_id}`, version: run.assistant_version },
    scenarios,
    total: scenarios.length,
    passed: count('passed'),
    failed: count('failed'),
    errored: count('error'),
    durationMs: Math.round(performance.now() - started),
  };
}
