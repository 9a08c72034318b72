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
/**
 * Document frequencies are counted up to this: a lexeme in more chunks is common — it ranks
 * (with the low weight its count gives) but does not select candidates.
 */
const DF_CAP = 300;
const CANDIDATE_CAP = 2000;
/** The trigram list is for names, numbers and misspellings: short queries. */
const TRIGRAM_MAX_WORDS = 4;

interface VectorCache {
  stamp: string;
  ids: number[];
  dim: number;
  matrix: Float32Array;
}

/** What search needs to know of a base, kept while its stamp (knowledge_bases.updated_at, bumped by every change of its chunks) holds. */
interface BaseState {
  stamp: string;
  configs: string[];
  total: number;
}

export class KnowledgeSearch {
  private readonly vectors = new Map<number, VectorCache>();
  private readonly states = new Map<number, BaseState>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly caps: Capabilities,
    private readonly embedder: QueryEmbedder | null,
  ) {}

  async search(knowledgeBaseId: number, query: string, limit: number): Promise<SearchHit[]> {
    const q = query.replace(/\u0000/g, '').trim().slice(0, 1000);
    if (!q) return [];
    // The query's embedding is on its way while the database is asked about the base.
    const queryVector = this.embedder ? this.embedder.embed([q]).then(([v]) => v, () => null) : Promise.resolve(null);
    const state = await this.stateOf(knowledgeBaseId);
    if (state.total === 0) return [];
    const [lexical, trigram, semantic] = await Promise.all([
      this.fullText(knowledgeBaseId, state, q),
      this.caps.trigram && q.split(/\s+/).length <= TRIGRAM_MAX_WORDS ? this.trigrams(knowledgeBaseId, q) : Promise.resolve([]),
      this.embedder ? queryVector.then((v) => (v ? this.semantic(knowledgeBaseId, state, v) : [])).catch(() => []) : Promise.resolve([]),
    ]);
    const fused = new Map<number, number>();
    for (const list of [lexical, trigram, semantic]) {
      list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    }
    const top = [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
    if (top.length === 0) return [];
    return this.hits(top, q);
  }

  private async stateOf(kb: number): Promise<BaseState> {
    const { rows: [row] } = await this.pool.query<{ stamp: string }>('SELECT updated_at::text AS stamp FROM knowledge_bases WHERE id = $1', [kb]);
    if (!row) return { stamp: '', configs: [], total: 0 };
    const cached = this.states.get(kb);
    if (cached?.stamp === row.stamp) return cached;
    const { rows } = await this.pool.query<{ language: string; n: number }>(
      'SELECT language, count(*)::int AS n FROM knowledge_chunks WHERE knowledge_base_id = $1 GROUP BY language',
      [kb],
    );
    const state = { stamp: row.stamp, configs: rows.map((r) => r.language), total: rows.reduce((n, r) => n + r.n, 0) };
    this.states.set(kb, state);
    return state;
  }

  /**
   * Two statements: the query's lexemes with their document frequency in the base (counted up to
   * DF_CAP, enough to tell a rare word from a common one), then the chunks holding at least one
   * selective lexeme, scored by every lexeme (idf × ts_rank, headings weighing more). Common
   * lexemes rank but do not select, so a question's "costs" or "Praxis" does not make every
   * chunk a candidate.
   */
  private async fullText(kb: number, state: BaseState, q: string): Promise<number[]> {
    const { rows: terms } = await this.pool.query<{ q: string; df: number }>(
      `WITH lexemes AS (
         SELECT DISTINCT lexeme
           FROM unnest($2::regconfig[]) AS cfg, unnest(tsvector_to_array(to_tsvector(cfg, ${folded(this.caps, '$3::text')}))) AS lexeme
       ), queries AS (
         SELECT ('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS q FROM lexemes
       )
       SELECT q::text AS q,
              (SELECT count(*) FROM (SELECT 1 FROM knowledge_chunks c WHERE c.knowledge_base_id = $1 AND c.tsv @@ queries.q LIMIT ${DF_CAP}) x)::int AS df
         FROM queries`,
      [kb, state.configs, q],
    );
    const present = terms.filter((t) => t.df > 0);
    if (present.length === 0) return [];
    const total = state.total;
    const weighted = present.map((t) => ({ q: t.q, idf: Math.log(1 + (total - t.df + 0.5) / (t.df + 0.5)) }));
    const selective = present.filter((t) => t.df < DF_CAP);
    const selecting = (selective.length > 0 ? selective : present).map((t) => t.q).join(' | ');
    const { rows } = await this.pool.query<{ id: string }>(
      `WITH weighted AS (SELECT w.q::tsquery AS q, w.idf FROM jsonb_to_recordset($3::jsonb) AS w(q text, idf float8))
       SELECT c.id, sum(w.idf * ts_rank('{0.4, 0.5, 0.7, 1.0}', c.tsv, w.q, 1)) AS score
         FROM (SELECT id, tsv FROM knowledge_chunks WHERE knowledge_base_id = $1 AND tsv @@ $2::tsquery LIMIT ${CANDIDATE_CAP}) c
         JOIN weighted w ON c.tsv @@ w.q
        GROUP BY c.id
        ORDER BY score DESC, c.id
        LIMIT ${LIST_DEPTH}`,
      [kb, selecting, JSON.stringify(weighted)],
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

  private async semantic(kb: number, state: BaseState, query: Float32Array): Promise<number[]> {
    const cache = await this.vectorsOf(kb, state.stamp);
    if (cache.ids.length === 0 || query.length !== cache.dim) return [];
    // The best LIST_DEPTH by dot product (vectors are unit length: cosine), kept sorted as they come.
    const best: { row: number; score: number }[] = [];
    for (let row = 0; row < cache.ids.length; row++) {
      let dot = 0;
      const base = row * cache.dim;
      for (let i = 0; i < cache.dim; i++) dot += cache.matrix[base + i] * query[i];
      if (best.length === LIST_DEPTH && dot <= best[best.length - 1].score) continue;
      let at = best.length;
      while (at > 0 && best[at - 1].score < dot) at--;
      best.splice(at, 0, { row, score: dot });
      if (best.length > LIST_DEPTH) best.pop();
    }
    return best.map((b) => cache.ids[b.row]);
  }

  /** The base's vectors, loaded once per stamp. */
  private async vectorsOf(kb: number, stamp: string): Promise<VectorCache> {
    const cached = this.vectors.get(kb);
    if (cached && cached.stamp === stamp) return cached;
    const { rows } = await this.pool.query<{ id: string; embedding: number[] }>(
      'SELECT id, embedding FROM knowledge_chunks WHERE knowledge_base_id = $1 AND embedding IS NOT NULL ORDER BY id',
      [kb],
    );
    const dim = rows[0]?.embedding.length ?? 0;
    const usable = rows.filter((r) => r.embedding.length === dim);
    const matrix = new Float32Array(usable.length * dim);
    usable.forEach((r, i) => matrix.set(r.embedding, i * dim));
    const entry = { stamp, ids: usable.map((r) => Number(r.id)), dim, matrix };
    this.vectors.set(kb, entry);
    return entry;
  }

  private async hits(top: [number, number][], q: string): Promise<SearchHit[]> {
    const ids = top.map(([id]) => id);
    const { rows } = await this.pool.query<{ id: string; document_id: number; name: string; heading: string; content: string; source: string | null; snippet: string }>(
      `SELECT c.id, c.document_id, d.name, c.heading, c.content, c.source,
              ts_headline(c.language::regconfig, c.content, replace(websearch_to_tsquery(c.language::regconfig, replace($2, '"', ' '))::text, ' & ', ' | ')::tsquery,
                          'StartSel="", StopSel="", MaxWords=40, MinWords=20, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
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
