/**
 * Search over one knowledge base. Always: PostgreSQL full-text search — the query's words in
 * every text-search configuration the base's chunks use (accent-folded when unaccent is
 * installed), OR-ed, each weighted by its rarity in the base (BM25's idf) with headings counting
 * more than body text; a word the base does not know (a misspelt name, another form of a word)
 * stands for the base's lexemes spelt most like it (trigram similarity, as pg_trgm's). When an
 * embeddings server is configured, a second list by cosine similarity, scored here in the
 * process. The lists are fused by reciprocal rank (k = 60).
 *
 * Speed (10,000 chunks, `npm run bench knowledge`; docs/decisions.md "Knowledge search speed"):
 * a search is three round trips — the base's stamp with the query's lexemes, the full-text list,
 * the snippets of the results only. Document frequencies and the trigrams come from the base's
 * lexicon kept in the process (ts_stat over the base, reloaded when its stamp moves) instead of
 * an index scan per word and pg_trgm's word_similarity over chunk texts (a question's common
 * trigrams made thousands of chunks candidates, each rechecked over its whole text: seconds).
 * Vectors and lexicons are kept per base under a size budget (least recently used out first).
 * The candidates come from the GIN index on tsv, which processing keeps merged (store.ts
 * flushSearchIndex); the vectors are scored by a WebAssembly SIMD kernel (vectors.ts), about 3 ms
 * for 10,000 × 512 on the shared 2-core machine, while the full-text list is in the database.
 */
import type pg from 'pg';
import { SizedLru } from './cache.js';
import { Lexicon } from './lexicon.js';
import { folded, type Capabilities } from './store.js';
import { realArray, VectorMatrix } from './vectors.js';

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
/** A query's words looked at (a question, not a document). */
const MAX_WORDS = 64;
/** Words the base does not know stand for at most this many lexemes each, spelt at least this alike (pg_trgm's similarity). */
const SPELLING_PER_WORD = 2;
const SPELLING_SIMILARITY = 0.4;
const SPELLING_MAX_WORDS = 4;
/** How long a search waits for a base's lexicon to load before doing without. */
const LEXICON_WAIT_MS = 1000;

/** How much of the process search may keep, in bytes: the bases' vectors, and their lexicons. */
export interface SearchCacheLimits {
  vectorBytes: number;
  lexiconBytes: number;
}
export const DEFAULT_CACHE_LIMITS: SearchCacheLimits = { vectorBytes: 256 * 1024 * 1024, lexiconBytes: 64 * 1024 * 1024 };

interface VectorCache {
  stamp: string;
  ids: number[];
  matrix: VectorMatrix;
}

/** What search needs to know of a base, kept while its stamp (knowledge_bases.updated_at, bumped by every change of its chunks) holds. */
interface BaseState {
  stamp: string;
  configs: string[];
  total: number;
}

/** A lexeme the query searches for: one of its own (weight 1) or one spelt like a word the base does not know. */
interface Term {
  lexeme: string;
  df: number;
  weight: number;
}

/** A lexeme as a tsquery matching it alone (quoted: no operator, no further normalisation). */
const lexemeQuery = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

export class KnowledgeSearch {
  private readonly vectors: SizedLru<number, VectorCache>;
  private readonly lexicons: SizedLru<number, Lexicon>;
  private readonly states = new SizedLru<number, BaseState>(10_000);
  private readonly loading = new Map<number, { promise: Promise<Lexicon | null>; until: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly caps: Capabilities,
    private readonly embedder: QueryEmbedder | null,
    limits: SearchCacheLimits = DEFAULT_CACHE_LIMITS,
  ) {
    this.vectors = new SizedLru(limits.vectorBytes);
    this.lexicons = new SizedLru(limits.lexiconBytes);
  }

  async search(knowledgeBaseId: number, query: string, limit: number): Promise<SearchHit[]> {
    const q = query.replace(/\u0000/g, '').trim().slice(0, 1000);
    if (!q) return [];
    const kb = knowledgeBaseId;
    // The query's embedding is on its way while the database is asked about the base.
    const queryVector = this.embedder ? this.embedder.embed([q]).then(([v]) => v, () => null) : Promise.resolve(null);
    const words = q.split(/\s+/).slice(0, MAX_WORDS);
    let state = this.states.get(kb);
    let read = await this.readQuery(kb, words, state?.configs ?? []);
    if (read.stamp === null) return [];
    if (!state || state.stamp !== read.stamp) {
      const fresh = await this.loadState(kb);
      if (!fresh) return [];
      if (fresh.configs.join() !== (state?.configs ?? []).join()) read = await this.readQuery(kb, words, fresh.configs);
      state = fresh;
    }
    if (state.total === 0) return [];
    const lexemes = [...new Set(read.lexemes.map(([, , l]) => l))];
    const lexicon = await this.lexiconOf(kb, state);
    const df = lexicon
      ? new Map(lexemes.map((l) => [l, Math.min(lexicon.frequency(l), DF_CAP)]))
      : await this.countFrequencies(kb, lexemes);
    const terms: Term[] = lexemes.map((l) => ({ lexeme: l, df: df.get(l) ?? 0, weight: 1 }));
    if (lexicon) {
      // Words the base does not know (a misspelt name, another form of a word) stand for the
      // lexemes spelt most like them, weighed by how alike: words with lexemes in every
      // configuration (a stop word in one is no name), none of them in the base.
      const unknown = words.filter((word, i) => {
        const own = read.lexemes.filter(([w]) => w === i + 1);
        return word.replace(/[^\p{L}\p{N}]/gu, '').length >= 3 && new Set(own.map(([, c]) => c)).size === state.configs.length
          && own.every(([, , l]) => (df.get(l) ?? 0) === 0);
      }).slice(0, SPELLING_MAX_WORDS);
      for (const word of unknown) {
        for (const c of lexicon.similar(word, SPELLING_SIMILARITY, SPELLING_PER_WORD)) {
          if (!terms.some((t) => t.lexeme === c.lexeme)) terms.push({ lexeme: c.lexeme, df: Math.min(lexicon.frequency(c.lexeme), DF_CAP), weight: c.similarity });
        }
      }
    }
    const [lexical, semantic] = await Promise.all([
      this.fullText(kb, state, terms),
      this.embedder ? queryVector.then((v) => (v ? this.semantic(kb, state, v) : [])).catch(() => []) : Promise.resolve([]),
    ]);
    const fused = new Map<number, number>();
    for (const list of [lexical, semantic]) {
      list.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    }
    const top = [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
    if (top.length === 0) return [];
    return this.hits(top, q);
  }

  /**
   * Loads what search keeps of a base (its lexicon, and its vectors with an embeddings server)
   * and resolves when it is in place: what the first search after a change would start.
   */
  async warm(kb: number): Promise<void> {
    const state = await this.loadState(kb);
    if (!state || state.total === 0) return;
    const loading = this.loading.get(kb);
    if (!(await loading?.promise) && this.lexicons.get(kb)?.stamp !== state.stamp) await this.loadLexicon(kb);
    if (this.embedder) await this.vectorsOf(kb, state.stamp);
  }

  /**
   * One round trip before any search: the base's stamp (null: no such base) and the lexemes of
   * each of the query's words (1-based word number, configuration, lexeme) in the configurations the base uses.
   */
  private async readQuery(kb: number, words: string[], configs: string[]): Promise<{ stamp: string | null; lexemes: [number, string, string][] }> {
    const { rows: [row] } = await this.pool.query<{ stamp: string | null; lexemes: [number, string, string][] }>(
      `SELECT (SELECT updated_at::text FROM knowledge_bases WHERE id = $1) AS stamp,
              (SELECT coalesce(json_agg(json_build_array(w.i, cfg::text, l.lexeme)), '[]'::json)
                 FROM unnest($2::text[]) WITH ORDINALITY AS w(word, i), unnest($3::regconfig[]) AS cfg,
                      unnest(tsvector_to_array(to_tsvector(cfg, ${folded(this.caps, 'w.word')}))) AS l(lexeme)) AS lexemes`,
      [kb, words, configs],
    );
    return { stamp: row.stamp, lexemes: row.lexemes.map(([i, c, l]) => [Number(i), c, l]) };
  }

  private async loadState(kb: number): Promise<BaseState | null> {
    const { rows: [row] } = await this.pool.query<{ stamp: string | null; langs: { language: string; n: number }[] }>(
      `SELECT (SELECT updated_at::text FROM knowledge_bases WHERE id = $1) AS stamp,
              (SELECT coalesce(json_agg(json_build_object('language', language, 'n', n) ORDER BY language), '[]'::json)
                 FROM (SELECT language, count(*)::int AS n FROM knowledge_chunks WHERE knowledge_base_id = $1 GROUP BY language) x) AS langs`,
      [kb],
    );
    if (row.stamp === null) return null;
    const state = { stamp: row.stamp, configs: row.langs.map((r) => r.language), total: row.langs.reduce((n, r) => n + r.n, 0) };
    this.states.set(kb, state, 1);
    return state;
  }

  /**
   * The base's lexicon as of its stamp: kept in the process, or loaded now (ts_stat over the
   * base's chunks). A load that takes longer than LEXICON_WAIT_MS (a very large base, a busy
   * database) goes on in the background and this search does without it (null).
   */
  private async lexiconOf(kb: number, state: BaseState): Promise<Lexicon | null> {
    const kept = this.lexicons.get(kb);
    if (kept?.stamp === state.stamp) return kept;
    let loading = this.loading.get(kb);
    if (!loading) {
      const promise = this.loadLexicon(kb).finally(() => this.loading.delete(kb));
      loading = { promise, until: Date.now() + LEXICON_WAIT_MS };
      this.loading.set(kb, loading);
    }
    // Searches during a load wait until the same moment, not each one LEXICON_WAIT_MS more.
    const wait = loading.until - Date.now();
    if (wait <= 0) return null;
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([loading.promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), wait)))]);
    clearTimeout(timer);
    return waited?.stamp === state.stamp ? waited : null;
  }

  /** Every lexeme of the base with the number of chunks holding it, read with the stamp they belong to. */
  private async loadLexicon(kb: number): Promise<Lexicon | null> {
    try {
      const { rows: [row] } = await this.pool.query<{ stamp: string | null; df: Record<string, number> }>(
        `SELECT (SELECT updated_at::text FROM knowledge_bases WHERE id = $1) AS stamp,
                (SELECT coalesce(json_object_agg(word, ndoc), '{}'::json)
                   FROM ts_stat(format('SELECT tsv FROM knowledge_chunks WHERE knowledge_base_id = %s', $1::int))) AS df`,
        [kb],
      );
      if (row.stamp === null) return null;
      const lexicon = new Lexicon(row.stamp, new Map(Object.entries(row.df)));
      this.lexicons.set(kb, lexicon, lexicon.bytes);
      return lexicon;
    } catch {
      return null; // the next search tries again; this one counts its own words
    }
  }

  /** Without the lexicon: the lexemes' document frequencies counted in the database (up to DF_CAP). */
  private async countFrequencies(kb: number, lexemes: string[]): Promise<Map<string, number>> {
    if (lexemes.length === 0) return new Map();
    const { rows } = await this.pool.query<{ df: number }>(
      `SELECT (SELECT count(*) FROM (SELECT 1 FROM knowledge_chunks c WHERE c.knowledge_base_id = $1 AND c.tsv @@ q::tsquery LIMIT ${DF_CAP}) x)::int AS df
         FROM unnest($2::text[]) WITH ORDINALITY AS t(q, i) ORDER BY i`,
      [kb, lexemes.map(lexemeQuery)],
    );
    return new Map(lexemes.map((l, i) => [l, rows[i].df]));
  }

  /**
   * The chunks holding at least one selective lexeme, scored by every lexeme (idf × ts_rank,
   * headings weighing more). Common lexemes (DF_CAP chunks or more) rank but do not select, so a
   * question's "costs" or "Praxis" does not make every chunk a candidate.
   */
  private async fullText(kb: number, state: BaseState, terms: Term[]): Promise<number[]> {
    const present = terms.filter((t) => t.df > 0).map((t) => ({ ...t, q: lexemeQuery(t.lexeme) }));
    if (present.length === 0) return [];
    const total = state.total;
    const weighted = present.map((t) => ({ q: t.q, idf: t.weight * Math.log(1 + (total - t.df + 0.5) / (t.df + 0.5)) }));
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

  private async semantic(kb: number, state: BaseState, query: Float32Array): Promise<number[]> {
    const cache = await this.vectorsOf(kb, state.stamp);
    if (cache.ids.length === 0 || query.length !== cache.matrix.dim) return [];
    return cache.matrix.top(query, LIST_DEPTH).map((b) => cache.ids[b.row]);
  }

  /** The base's vectors, loaded once per stamp. */
  private async vectorsOf(kb: number, stamp: string): Promise<VectorCache> {
    const cached = this.vectors.get(kb);
    if (cached && cached.stamp === stamp) return cached;
    // In real[]'s binary form: a quarter of the time of its text (3.3 s → 0.8 s for 10,000 × 512).
    const { rows } = await this.pool.query<{ id: string; embedding: Buffer }>(
      'SELECT id, array_send(embedding) AS embedding FROM knowledge_chunks WHERE knowledge_base_id = $1 AND embedding IS NOT NULL ORDER BY id',
      [kb],
    );
    const vectors = rows.map((r) => ({ id: Number(r.id), vector: realArray(r.embedding) }));
    const dim = vectors[0]?.vector?.length ?? 0;
    const usable = vectors.filter((v): v is { id: number; vector: Float32Array } => v.vector?.length === dim);
    const matrix = new VectorMatrix(dim, usable.map((v) => v.vector));
    const entry = { stamp, ids: usable.map((v) => v.id), matrix };
    this.vectors.set(kb, entry, matrix.bytes + entry.ids.length * 8 + 64);
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
