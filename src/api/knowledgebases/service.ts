/**
 * Queries and rules of knowledge bases and their documents (issue 29); every query is scoped to
 * the owner. A document is stored with what processing needs and `processing`; the caller queues
 * its job after the commit (src/knowledge: the job, the search).
 */
import type pg from 'pg';
import { inTransaction } from '../../db/pool.js';
import type { DocumentJob } from '../../knowledge/store.js';
import type { DocumentBody, DocumentUpdate, UploadType } from './schemas.js';
import type { DocumentRow, KnowledgeBaseRow } from './serializer.js';

const KB_COLUMNS = `kb.id, kb.name, kb.description, kb.created_at::text AS created_at, kb.updated_at::text AS updated_at,
  count(d.id)::int AS documents, coalesce(sum(d.chunk_count), 0)::int AS chunks,
  count(d.id) FILTER (WHERE d.status = 'processing')::int AS processing,
  count(d.id) FILTER (WHERE d.status = 'failed')::int AS failed,
  (array_agg(d.error ORDER BY d.updated_at DESC) FILTER (WHERE d.status = 'failed'))[1] AS last_error`;

export async function listKnowledgeBases(pool: pg.Pool, userId: number): Promise<KnowledgeBaseRow[]> {
  const { rows } = await pool.query<KnowledgeBaseRow>(
    `SELECT ${KB_COLUMNS} FROM knowledge_bases kb LEFT JOIN knowledge_documents d ON d.knowledge_base_id = kb.id
      WHERE kb.user_id = $1 GROUP BY kb.id ORDER BY kb.id`,
    [userId],
  );
  return rows;
}

export async function findKnowledgeBase(pool: pg.Pool | pg.PoolClient, userId: number, id: number): Promise<KnowledgeBaseRow | null> {
  const { rows } = await pool.query<KnowledgeBaseRow>(
    `SELECT ${KB_COLUMNS} FROM knowledge_bases kb LEFT JOIN knowledge_documents d ON d.knowledge_base_id = kb.id
      WHERE kb.user_id = $1 AND kb.id = $2 GROUP BY kb.id`,
    [userId, id],
  );
  return rows[0] ?? null;
}

export async function createKnowledgeBase(pool: pg.Pool, userId: number, input: { name: string; description?: string | null }): Promise<KnowledgeBaseRow> {
  const { rows: [{ id }] } = await pool.query<{ id: number }>(
    'INSERT INTO knowledge_bases (user_id, name, description) VALUES ($1, $2, $3) RETURNING id',
    [userId, input.name, input.description ?? null],
  );
  return (await findKnowledgeBase(pool, userId, id))!;
}

export async function updateKnowledgeBase(pool: pg.Pool, userId: number, id: number, input: { name?: string; description?: string | null }): Promise<KnowledgeBaseRow | null> {
  const { rowCount } = await pool.query(
    `UPDATE knowledge_bases SET name = coalesce($3, name), description = CASE WHEN $4 THEN $5 ELSE description END, updated_at = now()
      WHERE id = $2 AND user_id = $1`,
    [userId, id, input.name ?? null, input.description !== undefined, input.description ?? null],
  );
  return rowCount ? findKnowledgeBase(pool, userId, id) : null;
}

/** Deletes a base with its documents and chunks; its assistants lose it (the foreign key sets null). */
export async function deleteKnowledgeBase(pool: pg.Pool, userId: number, id: number): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM knowledge_bases WHERE id = $2 AND user_id = $1', [userId, id]);
  return (rowCount ?? 0) > 0;
}

const DOC_COLUMNS = `id, knowledge_base_id, type, name, url, links, relative_links_limit, file_name,
  coalesce(octet_length(file), octet_length(content)) AS size, status, error, chunk_count, pages,
  processed_at::text AS processed_at, created_at::text AS created_at, updated_at::text AS updated_at`;

export async function listDocuments(pool: pg.Pool, userId: number, kbId: number): Promise<DocumentRow[]> {
  const { rows } = await pool.query<DocumentRow>(
    `SELECT ${DOC_COLUMNS} FROM knowledge_documents WHERE knowledge_base_id = $2 AND user_id = $1 ORDER BY id`,
    [userId, kbId],
  );
  return rows;
}

export async function findDocument(pool: pg.Pool | pg.PoolClient, userId: number, kbId: number, id: number): Promise<DocumentRow | null> {
  const { rows } = await pool.query<DocumentRow>(
    `SELECT ${DOC_COLUMNS} FROM knowledge_documents WHERE id = $3 AND knowledge_base_id = $2 AND user_id = $1`,
    [userId, kbId, id],
  );
  return rows[0] ?? null;
}

export interface NewDocument {
  type: DocumentBody['type'];
  name: string;
  url?: string | null;
  links?: string[] | null;
  relativeLinksLimit?: number | null;
  content?: string | null;
  file?: { bytes: Buffer; name: string; type: UploadType } | null;
}

export async function createDocument(pool: pg.Pool, userId: number, kbId: number, doc: NewDocument): Promise<{ row: DocumentRow; job: DocumentJob }> {
  return inTransaction(pool, async (client) => {
    const { rows: [created] } = await client.query<{ id: number; generation: number }>(
      `INSERT INTO knowledge_documents (knowledge_base_id, user_id, type, name, url, links, relative_links_limit, content, file, file_name)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) RETURNING id, generation`,
      [kbId, userId, doc.type, doc.name, doc.url ?? null, doc.links ? JSON.stringify(doc.links) : null, doc.relativeLinksLimit ?? null,
        doc.content ?? null, doc.file?.bytes ?? null, doc.file?.name ?? null],
    );
    await client.query('UPDATE knowledge_bases SET updated_at = now() WHERE id = $1', [kbId]);
    const row = (await findDocument(client, userId, kbId, created.id))!;
    return { row, job: { id: created.id, knowledgeBaseId: kbId, generation: created.generation } };
  });
}

/**
 * Changes a document. A change to its source (text, URL, links, link limit) or `reprocess`
 * starts a new generation: it is `processing` again and the caller queues it; its current
 * chunks stay searchable until the new ones replace them.
 */
export async function updateDocument(pool: pg.Pool, current: DocumentRow, userId: number, input: DocumentUpdate): Promise<{ row: DocumentRow; job: DocumentJob | null }> {
  const sourceChanged = input.content !== undefined || input.url !== undefined || input.links !== undefined || input.relative_links_limit !== undefined;
  const again = sourceChanged || input.reprocess === true;
  return inTransaction(pool, async (client) => {
    const { rows: [updated] } = await client.query<{ generation: number }>(
      `UPDATE knowledge_documents SET
          name = coalesce($2, name),
          content = coalesce($3, content),
          url = CASE WHEN $4::text IS NOT NULL THEN $4 WHEN $5::jsonb IS NOT NULL THEN NULL ELSE url END,
          links = CASE WHEN $5::jsonb IS NOT NULL THEN $5::jsonb WHEN $4::text IS NOT NULL THEN NULL ELSE links END,
          relative_links_limit = coalesce($6, relative_links_limit),
          generation = generation + CASE WHEN $7 THEN 1 ELSE 0 END,
          status = CASE WHEN $7 THEN 'processing' ELSE status END,
          error = CASE WHEN $7 THEN NULL ELSE error END,
          updated_at = now()
        WHERE id = $1 RETURNING generation`,
      [current.id, input.name ?? null, input.content ?? null, input.url ?? null, input.links ? JSON.stringify(input.links) : null,
        input.relative_links_limit ?? null, again],
    );
    const row = (await findDocument(client, userId, current.knowledge_base_id, current.id))!;
    return { row, job: again ? { id: current.id, knowledgeBaseId: current.knowledge_base_id, generation: updated.generation } : null };
  });
}

export async function deleteDocument(pool: pg.Pool, userId: number, kbId: number, id: number): Promise<boolean> {
  // The base's updated_at is its search stamp (src/knowledge/search.ts): it moves with its chunks.
  const { rowCount } = await pool.query(
    `WITH gone AS (DELETE FROM knowledge_documents WHERE id = $3 AND knowledge_base_id = $2 AND user_id = $1 RETURNING knowledge_base_id)
     UPDATE knowledge_bases SET updated_at = now() WHERE id IN (SELECT knowledge_base_id FROM gone)`,
    [userId, kbId, id],
  );
  return (rowCount ?? 0) > 0;
}
