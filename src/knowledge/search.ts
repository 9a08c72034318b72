/**
 * Search over one knowledge base. Always: PostgreSQL full-text search — the query's words in
 * every text-search configuration the base's chunks use (accent-folded when unaccent is
 * installed), OR-ed, each weighted by its rarity in the base (BM25's idf) with headings counting
 * more than body text — and, with pg_trgm, a trigram list for names, numbers and misspellings.
 * When an embeddings server is configured, a third list by cosine similarity, scored here in the
 * process (vectors cached per base). The lists are fused by reciprocal rank (k = 60).
 */
import type pg from 'pg';
import { folded, type Capabilities } from './store.js';

export interface SearchHit {
  chunkId: number;
  documentId: number;
  documentName: string;
  heading: string;
  content: string;
  snippet: string;
  source: string | null;
  score: number;
}

export interface QueryEmbedder {
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

const RRF_K = 60;
const LIST_DEPTH = 50;

interface VectorCache {
  stamp: string;
  ids: number[];
  dim: number;
  matrix: Float32Array;
}

export class KnowledgeSearch {
  private readonly vectors = new Map<number, VectorCache>();
  private readonly languages = new Map<number, { at: number; configs: string[] }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly caps: Capabilities,
    private readonly embedder: QueryEmbedder | null,
  ) {}

  async search(knowledgeBaseId: number, query: string, limit: number): Promise<SearchHit[]> {
    const q = query.replace(/\u0000/g, '').trim().slice(0, 1000);
    if (!q) return [];
    const [lexical, trigram, semantic] = await Promise.all([
      this.fullText(knowledgeBaseId, q),
      this.caps.trigram ? this.trigrams(knowledgeBaseId, q) : Promise.resolve([]),
      this.embedder ? this.semantic(knowledgeBaseId, q).catch(() => []) : Promise.resolve([]),
    ]);
    const fused = new Map<number, number>();
    for (const list of [lexical, trigram, semantic]) {
      list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    }
    const top = [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
    if (top.length === 0) return [];
    return this.hits(top, q);
  }

  /** The text-search configurations the base's chunks were indexed with (cached a few seconds). */
  private async configs(kb: number): Promise<string[]> {
    const cached = this.languages.get(kb);
    if (cached && Date.now() - cached.at < 5_000) return cached.configs;
    const { rows } = await this.pool.query<{ language: string }>('SELECT DISTINCT language FROM knowledge_chunks WHERE knowledge_base_id = $1', [kb]);
    const configs = rows.map((r) => r.language);
    this.languages.set(kb, { at: Date.now(), configs });
    return configs;
  }

  private async fullText(kb: number, q: string): Promise<number[]> {
    const configs = await this.configs(kb);
    if (configs.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>(
      `WITH terms AS (
         SELECT DISTINCT lexeme
           FROM unnest($2::regconfig[]) AS cfg, unnest(tsvector_to_array(to_tsvector(cfg, ${folded(this.caps, '$3::text')}))) AS lexeme
       ), queries AS (
         SELECT ('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS q FROM terms
       ), weighted AS (
         SELECT q, ln(1 + (n.total - d.df + 0.5) / (d.df + 0.5)) AS idf
           FROM queries,
                LATERAL (SELECT count(*)::float8 AS df FROM knowledge_chunks c WHERE c.knowledge_base_id = $1 AND c.tsv @@ queries.q) AS d,
                (SELECT count(*)::float8 AS total FROM knowledge_chunks WHERE knowledge_base_id = $1) AS n
          WHERE d.df > 0
       ), candidates AS (
         SELECT c.id, c.tsv FROM knowledge_chunks c
          WHERE c.knowledge_base_id = $1 AND c.tsv @@ (SELECT tsquery_or_agg FROM (SELECT string_agg(q::text, ' | ')::tsquery AS tsquery_or_agg FROM weighted) x)
       )
       SELECT candidates.id, sum(w.idf * ts_rank('{0.4, 0.5, 0.7, 1.0}', candidates.tsv, w.q, 1)) AS score
         FROM candidates, weighted w
        WHERE candidates.tsv @@ w.q
        GROUP BY candidates.id
        ORDER BY score DESC, candidates.id
        LIMIT ${LIST_DEPTH}`,
      [kb, configs, q],
    );
    return rows.map((r) => Number(r.id));
  }

  private async trigrams(kb: number, q: string): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM knowledge_chunks WHERE knowledge_base_id = $1 AND $2 <% content
        ORDER BY word_similarity($2, content) DESC, id LIMIT 20`,
      [kb, q],
    );
    return rows.map((r) => Number(r.id));
  }

  private async semantic(kb: number, q: string): Promise<number[]> {
    const cache = await this.vectorsOf(kb);
    if (!cache || cache.ids.length === 0) return [];
    const [query] = await this.embedder!.embed([q]);
    if (query.length !== cache.dim) return [];
    const scores = new Float32Array(cache.ids.length);
    for (let row = 0; row < cache.ids.length; row++) {
      let dot = 0;
      const base = row * cache.dim;
      for (let i = 0; i < cache.dim; i++) dot += cache.matrix[base + i] * query[i];
      scores[row] = dot;
    }
    const order = [...scores.keys()].sort((a, b) => scores[b] - scores[a]).slice(0, LIST_DEPTH);
    return order.map((i) => cache.ids[i]);
  }

  /** The base's vectors, reloaded when its chunks changed (new chunks get new ids). */
  private async vectorsOf(kb: number): Promise<VectorCache | null> {
    const { rows: [stamp] } = await this.pool.query<{ stamp: string }>(
      `SELECT coalesce(max(id), 0) || ':' || count(*) AS stamp FROM knowledge_chunks WHERE knowledge_base_id = $1 AND embedding IS NOT NULL`,
      [kb],
    );
    const cached = this.vectors.get(kb);
    if (cached && cached.stamp === stamp.stamp) return cached;
    const { rows } = await this.pool.query<{ id: string; embedding: number[] }>(
      'SELECT id, embedding FROM knowledge_chunks WHERE knowledge_base_id = $1 AND embedding IS NOT NULL ORDER BY id',
      [kb],
    );
    const dim = rows[0]?.embedding.length ?? 0;
    const usable = rows.filter((r) => r.embedding.length === dim);
    const matrix = new Float32Array(usable.length * dim);
    usable.forEach((r, i) => matrix.set(r.embedding, i * dim));
    const entry = { stamp: stamp.stamp, ids: usable.map((r) => Number(r.id)), dim, matrix };
    this.vectors.set(kb, entry);
    return entry;
  }

  private async hits(top: [number, number][], q: string): Promise<SearchHit[]> {
    const ids = top.map(([id]) => id);
    const { rows } = await this.pool.query<{ id: string; document_id: number; name: string; heading: string; content: string; source: string | null; snippet: string }>(
      `SELECT c.id, c.document_id, d.name, c.heading, c.content, c.source,
              ts_headline(c.language::regconfig, c.content, replace(websearch_to_tsquery(c.language::regconfig, replace($2, '"', ' '))::text, ' & ', ' | ')::tsquery,
                          'StartSel=, StopSel=, MaxWords=40, MinWords=20, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
         FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
        WHERE c.id = ANY($1::bigint[])`,
      [ids, q],
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return top.flatMap(([id, score]) => {
      const r = byId.get(id);
      if (!r) return [];
      return [{ chunkId: id, documentId: r.document_id, documentName: r.name, heading: r.heading, content: r.content, snippet: r.snippet, source: r.source, score }];
    });
  }
}
