/** Queries and rules of mid-call tools; every query is scoped to the owner. */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { tools, users, type ToolHeader, type ToolParam } from '../../db/schema.js';
import { HttpError } from '../toolkit/errors.js';
import type { CreateToolInput, UpdateToolInput } from './schemas.js';
import type { ToolRow } from './serializer.js';

export const DEFAULT_TIMEOUT = 10;

/** 422 `{message}` only (spec 4.1), naming the user's limit. */
export function planLimitError(max: number): HttpError {
  return new HttpError(422, `You have reached the maximum number of tools (${max}) allowed by your plan.`);
}

export async function listTools(db: Db, userId: number): Promise<ToolRow[]> {
  return db.select().from(tools).where(eq(tools.userId, userId)).orderBy(asc(tools.id));
}

export async function findTool(db: Db, userId: number, id: number): Promise<ToolRow | null> {
  const [row] = await db.select().from(tools).where(and(eq(tools.id, id), eq(tools.userId, userId)));
  return row ?? null;
}

/**
 * Creates a tool within the user's plan limit. The user's row is locked (FOR NO KEY UPDATE,
 * which does not block inserts of other rows referencing the user) for the count and the
 * insert, so concurrent creations — also from several instances — cannot exceed the limit.
 * The limit is read from that locked row, not the cached token user, so a changed plan
 * applies at once.
 */
export async function createTool(db: Db, userId: number, input: CreateToolInput): Promise<ToolRow> {
  return db.transaction(async (tx) => {
    const [user] = await tx.select({ maxTools: users.maxTools }).from(users).where(eq(users.id, userId)).for('no key update');
    if (!user) throw new HttpError(401, 'Unauthenticated.');
    const [{ n }] = await tx.select({ n: count() }).from(tools).where(eq(tools.userId, userId));
    if (n >= user.maxTools) throw planLimitError(user.maxTools);
    const [row] = await tx
      .insert(tools)
      .values({
        userId,
        name: input.name,
        description: input.description,
        endpoint: input.endpoint,
        method: input.method,
        timeout: input.timeout ?? DEFAULT_TIMEOUT,
        headers: input.headers ?? [],
        schema: input.schema ?? [],
      })
      .returning();
    return row;
  });
}

const sameHeaders = (a: ToolHeader[], b: ToolHeader[]) =>
  a.length === b.length && a.every((h, i) => h.name === b[i].name && h.value === b[i].value);
const sameParams = (a: ToolParam[], b: ToolParam[]) =>
  a.length === b.length && a.every((p, i) => p.name === b[i].name && p.type === b[i].type && p.description === b[i].description);

/**
 * Applies the supplied fields (null or absent = unchanged) to `current`. Returns the stored
 * row; `updated_at` moves only when a value actually changes. Null when the tool vanished.
 */
export async function updateTool(db: Db, current: ToolRow, input: UpdateToolInput): Promise<ToolRow | null> {
  const changes: Partial<typeof tools.$inferInsert> = {};
  if (input.name != null && input.name !== current.name) changes.name = input.name;
  if (input.description != null && input.description !== current.description) changes.description = input.description;
  if (input.endpoint != null && input.endpoint !== current.endpoint) changes.endpoint = input.endpoint;
  if (input.method != null && input.method !== current.method) changes.method = input.method;
  if (input.timeout != null && input.timeout !== current.timeout) changes.timeout = input.timeout;
  if (input.headers != null && !sameHeaders(input.headers, current.headers)) changes.headers = input.headers;
  if (input.schema != null && !sameParams(input.schema, current.schema)) changes.schema = input.schema;
  if (Object.keys(changes).length === 0) return current;
  const [row] = await db
    .update(tools)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(tools.id, current.id), eq(tools.userId, current.userId)))
    .returning();
  return row ?? null;
}

/** Deletes the tool; its assistant attachments go with it (assistant_tools cascades). */
export async function deleteTool(db: Db, userId: number, id: number): Promise<boolean> {
  const rows = await db.delete(tools).where(and(eq(tools.id, id), eq(tools.userId, userId))).returning({ id: tools.id });
  return rows.length > 0;
}
