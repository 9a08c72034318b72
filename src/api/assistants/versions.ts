/**
 * Assistant versions: every saved state of an assistant, numbered from 1, so that a change
 * can be listed, compared field by field and undone (docs/decisions.md, "Assistant versions").
 *
 * A version holds the assistant's record as the API shows it (secrets masked) plus the
 * stored built-in tools (secrets sealed), so that a restore brings back a calendar key the
 * record only shows masked. Versions are written in the transaction that changes the
 * assistant; `assistants.version` is the number of the newest one, and a call copies it when
 * it is placed (calls.assistant_version).
 */
import { isDeepStrictEqual } from 'node:util';
import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { assistantVersions } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { serializeAssistant, type AssistantRow, type AttachedTool } from './serializer.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Exec = Db | Tx;

export type VersionAction = 'create' | 'update' | 'webhook' | 'restore' | 'baseline';

/** Who made a change: the account's name and the client the request came from. */
export interface VersionAuthor {
  author: string;
  via: 'api' | 'dashboard' | 'cli';
}

export interface VersionChange extends VersionAuthor {
  action: VersionAction;
  restoredFrom?: number;
}

/** The request header the dashboard and the command line name themselves in. */
export const CLIENT_HEADER = 'x-switchboard-client';

export function authorOf(user: { name: string }, headers: Record<string, unknown>): VersionAuthor {
  const client = headers[CLIENT_HEADER];
  const via = client === 'dashboard' || client === 'cli' ? client : 'api';
  return { author: user.name, via };
}

/** Fields that change with every save and say nothing about the assistant's behaviour. */
const NOT_COMPARED = new Set(['updated_at']);

interface StoredVersion {
  record: Record<string, unknown>;
  builtins: AssistantRow['builtinTools'];
}

/** Records `row` (already written, with its new `version`) as that version. */
export async function recordVersion(tx: Exec, row: AssistantRow, tools: AttachedTool[], change: VersionChange): Promise<void> {
  const stored: StoredVersion = { record: serializeAssistant(row, tools) as unknown as Record<string, unknown>, builtins: row.builtinTools };
  await tx
    .insert(assistantVersions)
    .values({
      assistantId: row.id,
      userId: row.userId,
      number: row.version,
      record: stored as unknown as Record<string, unknown>,
      action: change.action,
      restoredFrom: change.restoredFrom ?? null,
      author: change.author,
      via: change.via,
    })
    .onConflictDoNothing();
}

/**
 * Assistants created before versions were kept have none: their state before the first
 * change is recorded as its current number (action `baseline`), so that change can be undone.
 */
export async function ensureBaseline(tx: Exec, row: AssistantRow, tools: AttachedTool[]): Promise<void> {
  const [found] = await tx
    .select({ n: count() })
    .from(assistantVersions)
    .where(and(eq(assistantVersions.assistantId, row.id), eq(assistantVersions.number, row.version)));
  if (Number(found?.n ?? 0) > 0) return;
  await recordVersion(tx, row, tools, { action: 'baseline', author: 'Switchboard', via: 'api' });
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** Field-by-field differences from `before` to `after` (record names, in the record's order). */
export function compareRecords(before: Record<string, unknown> | null, after: Record<string, unknown>): FieldChange[] {
  if (!before) return [];
  const fields = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  return fields
    .filter((f) => !NOT_COMPARED.has(f) && !isDeepStrictEqual(before[f], after[f]))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

type VersionRow = typeof assistantVersions.$inferSelect;

function storedOf(row: VersionRow): StoredVersion {
  return row.record as unknown as StoredVersion;
}

export function serializeVersionSummary(row: VersionRow, previous: VersionRow | null) {
  return {
    number: row.number,
    action: row.action as VersionAction,
    restored_from: row.restoredFrom,
    author: row.author,
    via: row.via as VersionAuthor['via'],
    created_at: isoMicro(row.createdAt)!,
    changed_fields: compareRecords(previous ? storedOf(previous).record : null, storedOf(row).record).map((c) => c.field),
  };
}

/** Versions of one assistant, newest first, each with the one before it (for its changed fields). */
export async function listVersions(db: Db, assistantId: number, page: number, perPage: number) {
  const [{ n }] = await db.select({ n: count() }).from(assistantVersions).where(eq(assistantVersions.assistantId, assistantId));
  const rows = await db
    .select()
    .from(assistantVersions)
    .where(eq(assistantVersions.assistantId, assistantId))
    .orderBy(desc(assistantVersions.number))
    .limit(perPage + 1)
    .offset((page - 1) * perPage);
  const items = rows.slice(0, perPage).map((row, i) => serializeVersionSummary(row, rows[i + 1] ?? null));
  return { total: Number(n), items };
}

export async function findVersion(db: Exec, assistantId: number, number: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(assistantVersions)
    .where(and(eq(assistantVersions.assistantId, assistantId), eq(assistantVersions.number, number)));
  return row ?? null;
}

export function versionRecord(row: VersionRow): Record<string, unknown> {
  return storedOf(row).record;
}

/** Record fields shown as two-decimal strings ("0.70") that an update takes as numbers. */
const DECIMAL_FIELDS = ['llm_temperature', 'voice_stability', 'voice_similarity', 'speech_speed', 'ambient_sound_volume'];

/** A saved record as the body of an update request (what restoring it sends through the update's rules). */
export function updateRequestOf(record: Record<string, unknown>): Record<string, unknown> {
  const body = { ...record };
  for (const field of DECIMAL_FIELDS) if (typeof body[field] === 'string') body[field] = Number(body[field]);
  return body;
}

export function versionBuiltins(row: VersionRow): AssistantRow['builtinTools'] {
  return storedOf(row).builtins ?? [];
}
