/** Rows → records of the assistant-test API. */
import { isoMicro } from '../../db/time.js';
import { parseScenarioDocument } from '../../assistant-tests/scenario.js';
import { scenarioVerdict } from '../../assistant-tests/run-queue.js';
import type { ResultRow, RunRow, ScenarioRow } from '../../assistant-tests/store.js';

export function serializeScenario(row: ScenarioRow) {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    name: row.name,
    source: row.source,
    created_at: isoMicro(row.createdAt)!,
    updated_at: isoMicro(row.updatedAt)!,
  };
}

type Status = 'queued' | 'running' | 'passed' | 'failed' | 'error';

export function serializeRunSummary(row: RunRow) {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    assistant_version: row.assistantVersion,
    unsaved_changes: row.overrides !== null,
    status: row.status as Status,
    total: row.total,
    passed: row.passed,
    failed: row.failed,
    errored: row.errored,
    error: row.error,
    created_at: isoMicro(row.createdAt)!,
    started_at: isoMicro(row.startedAt),
    finished_at: isoMicro(row.finishedAt),
  };
}

export function serializeRepeat(r: ResultRow) {
  return {
    repeat: r.repeat,
    status: r.status as 'passed' | 'failed' | 'error',
    end_status: r.endStatus,
    transcript: r.transcript,
    tool_requests: r.toolRequests,
    turns: r.turns,
    assertions: r.assertions,
    variables: r.variables,
    error: r.error,
    duration_ms: r.durationMs,
  };
}

/** A run with each scenario's repeats so far; a scenario's status follows its pass_rate once every repeat is in. */
export function serializeRun(row: RunRow, results: readonly ResultRow[]) {
  return {
    ...serializeRunSummary(row),
    assistant_overrides: row.overrides,
    scenarios: row.scenarios.map((entry, position) => {
      const parsed = parseScenarioDocument(entry.source, entry.name);
      const scenario = 'scenarios' in parsed ? (parsed.scenarios[entry.index ?? 0] ?? parsed.scenarios[0]) : undefined;
      const repeat = scenario?.repeat ?? 1;
      const passRate = scenario?.pass_rate ?? 1;
      const mine = results.filter((r) => r.position === position);
      const statuses = mine.map((r) => r.status as 'passed' | 'failed' | 'error');
      const done = statuses.length >= repeat || statuses.includes('error');
      return {
        position,
        name: entry.name,
        scenario_id: entry.scenario_id,
        source: entry.source,
        repeat,
        pass_rate: passRate,
        status: done ? scenarioVerdict(statuses, passRate) : ('pending' as const),
        repeats: mine.map(serializeRepeat),
      };
    }),
  };
}
