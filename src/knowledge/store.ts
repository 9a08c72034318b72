/**
 * The knowledge tables as processing and search use them (raw SQL on the pool): which contrib
 * extensions the database has, replacing a document's chunks in one transaction, and the
 * outcome of a processing run.
 */
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import type { TextSearchConfig } from './language.js';

export interface Capabilities {
  unaccent: boolean;
  trigram: boolean;
}

export async function readCapabilities(pool: pg.Pool): Promise<Capabilities> {
  const { rows } = await pool.query<{ extname: string }>(`SELECT extname FROM pg_extension WHERE extname IN ('unaccent', 'pg_trgm')`);
  const names = new Set(rows.map((r) => r.extname));
  return { unaccent: names.has('unaccent'), trigram: names.has('pg_trgm') };
}

/** SQL that folds accents of an expression when unaccent is installed. */
export const folded = (caps: Capabilities, expr: string) => (caps.unaccent ? `unaccent(${expr})` : expr);

export interface ChunkRow {
  heading: string;
  content: string;
  source: string | null;
  language: TextSearchConfig;
  embedding: number[] | null;
}

export interface DocumentJob {
  id: number;
  knowledgeBaseId: number;
  generation: number;
}

/**
 * Puts a document's new chunks in place of its old ones and marks it ready, in one transaction,
 * only if the document still exists at the generation the job was started for: a search never
 * sees half a document, and a run superseded by a newer request (or a deleted document) writes
 * nothing. Returns false when nothing was written for that reason.
 */
export async function replaceChunks(pool: pg.Pool, caps: Capabilities, doc: DocumentJob, chunks: ChunkRow[], text: string, pages: string[] | null): Promise<boolean> {
  const written = await writeChunks(pool, caps, doc, chunks, text, pages);
  if (written && chunks.length > 0) await flushSearchIndex(pool);
  return written;
}

/**
 * Moves the entries waiting in the full-text index's pending list (GIN's fast update: new rows'
 * words are appended there, and merged when the list passes 4 MB or autovacuum runs) into the
 * index proper. While a few thousand chunks' words wait there, the planner costs the index scan
 * high and search reads every chunk of the base instead, detoasting each tsvector: 50–140 ms
 * instead of 1 ms on 10,000 chunks, until autovacuum came by (docs/decisions.md "Knowledge search
 * speed, part 2"). Merging in bulk costs about 0.1–0.3 s per 10,000 chunks; turning fast update
 * off would have made every insert slower instead (2–3× for a 10,000-chunk document). Best effort:
 * a role that does not own the index (or a standby) leaves it to autovacuum.
 */
export async function flushSearchIndex(pool: pg.Pool): Promise<void> {
  await pool.query(`SELECT gin_clean_pending_list('knowledge_chunks_tsv_idx'::regclass)`).catch(() => undefined);
}

async function writeChunks(pool: pg.Pool, caps: Capabilities, doc: DocumentJob, chunks: ChunkRow[], text: string, pages: string[] | null): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    // The base first, then the document: the order a base's DELETE takes them in (its cascade),
    // so deleting a base while one of its documents finishes waits instead of deadlocking.
    const base = await client.query('SELECT 1 FROM knowledge_bases WHERE id = $1 FOR NO KEY UPDATE', [doc.knowledgeBaseId]);
    if (base.rows.length === 0) return false;
    const { rows } = await client.query('SELECT 1 FROM knowledge_documents WHERE id = $1 AND generation = $2 FOR UPDATE', [doc.id, doc.generation]);
    if (rows.length === 0) return false;
    await client.query('DELETE FROM knowledge_chunks WHERE document_id = $1', [doc.id]);
    // Large documents go in slices so no single statement carries hundreds of megabytes.
    for (let start = 0; start < chunks.length; start += 500) {
      // Vectors as PostgreSQL array literals ('{0.1,…}'): parsed by real[]'s input function, not element by element.
      const slice = chunks.slice(start, start + 500).map((c, i) => ({ ...c, position: start + i, embedding: c.embedding ? `{${c.embedding.join(',')}}` : null }));
      await client.query(
        `INSERT INTO knowledge_chunks (document_id, knowledge_base_id, position, heading, content, source, language, tsv, embedding)
         SELECT $1, $2, c.position, c.heading, c.content, c.source, c.language,
                setweight(to_tsvector(c.language::regconfig, ${folded(caps, 'c.heading')}), 'A')
                  || to_tsvector(c.language::regconfig, ${folded(caps, 'c.content')}),
                c.embedding::real[]
           FROM jsonb_to_recordset($3::jsonb) AS c(position int, heading text, content text, source text, language text, embedding text)`,
        [doc.id, doc.knowledgeBaseId, JSON.stringify(slice)],
      );
    }
    // The base's stamp: search reloads what it caches of the base (src/knowledge/search.ts).
    await client.query('UPDATE knowledge_bases SET updated_at = now() WHERE id = $1', [doc.knowledgeBaseId]);
    await client.query(
      `UPDATE knowledge_documents SET status = 'ready', error = NULL, text = $2, pages = $3::jsonb, chunk_count = $4,
              processed_at = now(), updated_at = now() WHERE id = $1`,
      [doc.id, text, pages === null ? null : JSON.stringify(pages), chunks.length],
    );
    return true;
  });
}

/**
 * Marks a document failed with its reason. Nothing else changes: a document that was ready before
 * keeps the chunks of its last successful processing (search goes on finding them).
 */
export async function failDocument(pool: pg.Pool, doc: DocumentJob, reason: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM knowledge_documents WHERE id = $1 AND generation = $2 FOR UPDATE', [doc.id, doc.generation]);
    if (rows.length === 0) return false;
    await client.query(
      `UPDATE knowledge_documents SET status = 'failed', error = $2, processed_at = now(), updated_at = now() WHERE id = $1`,
      [doc.id, reason.slice(0, 1000)],
    );
    return true;
  });
}
