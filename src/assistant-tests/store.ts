/**
 * Stored scenarios and test runs in the database (tables assistant_test_scenarios,
 * assistant_test_runs, assistant_test_results). Every read and write names the owner, so an id
 * of another account is simply not found. Runs are not calls: nothing here touches `calls`.
 */
import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { assistantTestResults, assistantTestRuns, assistantTestScenarios } from '../db/schema.js';

export type ScenarioRow = typeof assistantTestScenarios.$inferSelect;
export type RunRow = typeof assistantTestRuns.$inferSelect;
export type ResultRow = typeof assistantTestResults.$inferSelect;
export type RunStatus = 'queued' | 'running' | 'passed' | 'failed' | 'error';
export interface RunScenarioEntry {
  name: string;
  source: string;
  scenario_id: number | null;
  /** Which scenario of the document (a document may hold several). */
  index?: number;
}

// ---------------------------------------------------------------- scenarios

export async function listScenarios(db: Db, userId: number, assistantId: number): Promise<ScenarioRow[]> {
  return db
    .select()
    .from(assistantTestScenarios)
    .where(and(eq(assistantTestScenarios.userId, userId), eq(assistantTestScenarios.assistantId, assistantId)))
    .orderBy(asc(assistantTestScenarios.id));
}

export async function findScenario(db: Db, userId: number, assistantId: number, id: number): Promise<ScenarioRow | null> {
  const [row] = await db
    .select()
    .from(assistantTestScenarios)
    .where(and(eq(assistantTestScenarios.id, id), eq(assistantTestScenarios.userId, userId), eq(assistantTestScenarios.assistantId, assistantId)));
  return row ?? null;
}

export async function findScenarios(db: Db, userId: number, assistantId: number, ids: readonly number[]): Promise<ScenarioRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(assistantTestScenarios)
    .where(and(inArray(assistantTestScenarios.id, [...ids]), eq(assistantTestScenarios.userId, userId), eq(assistantTestScenarios.assistantId, assistantId)));
}

export async function insertScenario(db: Db, input: { userId: number; assistantId: number; name: string; source: string }): Promise<ScenarioRow> {
  const [row] = await db.insert(assistantTestScenarios).values(input).returning();
  return row!;
}

export async function updateScenario(db: Db, userId: number, assistantId: number, id: number, change: { name: string; source: string }): Promise<ScenarioRow | null> {
  const [row] = await db
    .update(assistantTestScenarios)
    .set({ ...change, updatedAt: sql`now()` })
    .where(and(eq(assistantTestScenarios.id, id), eq(assistantTestScenarios.userId, userId), eq(assistantTestScenarios.assistantId, assistantId)))
    .returning();
  return row ?? null;
}

export async function deleteScenario(db: Db, userId: number, assistantId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(assistantTestScenarios)
    .where(and(eq(assistantTestScenarios.id, id), eq(assistantTestScenarios.userId, userId), eq(assistantTestScenarios.assistantId, assistantId)))
    .returning({ id: assistantTestScenarios.id });
  return rows.length > 0;
}

// ---------------------------------------------------------------- runs

export async function insertRun(
  db: Db,
  input: { userId: number; assistantId: number; assistantVersion: number | null; overrides: Record<string, unknown> | null; scenarios: RunScenarioEntry[]; total: number; ownerInstance: string },
): Promise<RunRow> {
  const [row] = await db.insert(assistantTestRuns).values(input).returning();
  return row!;
}

export async function findRun(db: Db, userId: number, id: number): Promise<RunRow | null> {
  const [row] = await db.select().from(assistantTestRuns).where(and(eq(assistantTestRuns.id, id), eq(assistantTestRuns.userId, userId)));
  return row ?? null;
}

export async function listRuns(db: Db, userId: number, assistantId: number, page: number, perPage: number): Promise<{ total: number; rows: RunRow[] }> {
  const where = and(eq(assistantTestRuns.userId, userId), eq(assistantTestRuns.assistantId, assistantId));
  const [{ n }] = (await db.select({ n: count() }).from(assistantTestRuns).where(where)) as [{ n: number }];
  const rows = await db
    .select()
    .from(assistantTestRuns)
    .where(where)
    .orderBy(desc(assistantTestRuns.createdAt), desc(assistantTestRuns.id))
    .limit(perPage)
    .offset((page - 1) * perPage);
  return { total: Number(n), rows };
}

export async function resultsOf(db: Db, runId: number): Promise<ResultRow[]> {
  return db.select().from(assistantTestResults).where(eq(assistantTestResults.runId, runId)).orderBy(asc(assistantTestResults.position), asc(assistantTestResults.repeat));
}

/** queued → running; false when the run is not queued any more (or gone). */
export async function startRun(db: Db, id: number): Promise<boolean> {
  const rows = await db
    .update(assistantTestRuns)
    .set({ status: 'running', startedAt: sql`now()` })
    .where(and(eq(assistantTestRuns.id, id), eq(assistantTestRuns.status, 'queued')))
    .returning({ id: assistantTestRuns.id });
  return rows.length > 0;
}

export interface RepeatRecord {
  status: 'passed' | 'failed' | 'error';
  endStatus: string | null;
  transcript: unknown[];
  toolRequests: unknown[];
  turns: unknown[];
  assertions: unknown[];
  variables: Record<string, unknown>;
  error: string | null;
  durationMs: number;
}

export async function saveResult(db: Db, runId: number, position: number, repeat: number, r: RepeatRecord): Promise<void> {
  await db
    .insert(assistantTestResults)
    .values({ runId, position, repeat, ...r, durationMs: Math.round(r.durationMs) })
    .onConflictDoNothing();
}

/** A running run's outcome; only a run still running is moved (one that was marked error meanwhile stays so). */
export async function finishRun(db: Db, id: number, outcome: { status: RunStatus; passed: number; failed: number; errored: number; error?: string | null }): Promise<void> {
  await db
    .update(assistantTestRuns)
    .set({ ...outcome, error: outcome.error ?? null, finishedAt: sql`now()` })
    .where(and(eq(assistantTestRuns.id, id), inArray(assistantTestRuns.status, ['queued', 'running'])));
}

/**
 * Runs left queued or running by a process that is gone (no fresh heartbeat in `instances`, or
 * none at all) end as `error`: a run executes in the process that accepted it, so nothing would
 * ever finish them. Returns how many.
 */
export async function failOrphanedRuns(db: Db, ownInstance: string, staleAfterSeconds: number): Promise<number> {
  const res = await db.execute(sql`
    UPDATE assistant_test_runs SET status = 'error', finished_at = now(),
      error = 'The service stopped before this run finished; run it again.'
    WHERE status IN ('queued', 'running')
      AND owner_instance IS DISTINCT FROM ${ownInstance}
      AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = assistant_test_runs.owner_instance
                      AND i.heartbeat_at > now() - make_interval(secs => ${staleAfterSeconds}))`);
  return res.rowCount ?? 0;
}
