/**
 * Knowledge-base retrieval (issue 29): quality and speed of the search calls use, at default
 * settings, on a fictional clinic's website (8 pages, EN + DE, crawled from a local server by the
 * real crawler) and its price list (a text document), with the checked-in question set
 * bench/knowledge/questions.json (each question names text the right passage contains).
 *
 * - recall@5: share of questions with a right passage among the first five results; MRR: mean of
 *   1/rank of the first right passage (0 when none in the first five).
 * - full-text: PostgreSQL full-text + trigram lists (no embeddings server configured).
 * - hybrid: the same plus an embeddings server — here the local /v1/embeddings double
 *   (test/support/doubles/embeddings.ts: deterministic feature hashing, no model), lists fused
 *   by reciprocal rank.
 * - latency: the same questions against a base of 10,000 chunks (the corpus plus generated
 *   filler passages in EN and DE), each search timed end to end in this process (SQL round trips,
 *   and for hybrid the query's embedding request and scoring the 10,000 vectors), one at a time.
 *   The embedding request's own time is a row of its own: the double answers in this process
 *   (hashing a question's words, a JSON answer of 512 numbers), so it shares the CPU with search.
 *
 *   npm run bench knowledge                 # embedded PostgreSQL in a temporary folder (the default install)
 *   BENCH_KNOWLEDGE_DB=external npm run bench knowledge   # BENCH_DATABASE_URL / TEST_DATABASE_URL
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createUser } from '../src/accounts/users.js';
import { runMigrations } from '../src/db/migrate.js';
import { connect } from '../src/db/pool.js';
import { ingestDocument } from '../src/knowledge/ingest.js';
import { detectLanguage } from '../src/knowledge/language.js';
import { KnowledgeSearch, type QueryEmbedder } from '../src/knowledge/search.js';
import { readCapabilities, replaceChunks, type ChunkRow } from '../src/knowledge/store.js';
import { OpenAiEmbeddings } from '../src/providers/embeddings/openai.js';
import { EmbeddingsDouble } from '../test/support/doubles/embeddings.js';
import { loadConfig } from '../src/config.js';
import { benchDatabase, benchLogger, printTable, root, settingsNote, type Row } from './lib.js';

const DIR = path.join(root, 'bench', 'knowledge');
const TARGET_CHUNKS = Number(process.env.BENCH_KNOWLEDGE_CHUNKS ?? 10_000);
const TARGETS = { recallFts: 0.9, recallHybrid: 0.95, p95Ms: 50 };

interface Question {
  q: string;
  lang: 'en' | 'de';
  answers: string[];
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

function serveSite(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x').pathname;
    if (url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const file = url.endsWith('/') ? `${url}index.html` : `${url}.html`;
    const full = path.join(DIR, 'site', path.normalize(file));
    if (!full.startsWith(path.join(DIR, 'site')) || !fs.existsSync(full)) return res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fs.readFileSync(full));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Filler passages that answer none of the questions, shaped like real text: each language's
 * stop words, a few common clinic words, and a long tail of 3,000 made-up words drawn with
 * Zipf-like frequencies (so a word is in a few chunks, as in real documents, not in all).
 */
function filler(n: number): string[] {
  let seed = 42;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const syllables = 'ka to ri ne mo la su pe vi ga do ru ten mar sol bek fin lu ho za'.split(' ');
  const tail = Array.from({ length: 3000 }, () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => syllables[Math.floor(rand() * syllables.length)]).join(''));
  const common = {
    en: 'the and of to in is for with you we our on this that patient practice visit tooth care team week report'.split(' '),
    de: 'der die das und ist für mit sie wir unser auf bei von zu Patient Praxis Besuch Zahn Pflege Team Woche Bericht'.split(' '),
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = common[i % 2 === 0 ? 'en' : 'de'];
    const s: string[] = [];
    for (let w = 0; w < 120; w++) {
      const word = rand() < 0.5 ? words[Math.floor(rand() * words.length)] : tail[Math.floor(tail.length * rand() ** 2)];
      s.push(word + (w % 12 === 11 ? '.' : ''));
    }
    out.push(s.join(' '));
  }
  return out;
}

/** The hybrid search's query embeddings, timed (request to the double and back): their share of the hybrid figure. */
class TimedEmbedder implements QueryEmbedder {
  readonly times: number[] = [];
  constructor(private readonly inner: QueryEmbedder) {}
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const started = performance.now();
    try {
      return await this.inner.embed(texts, signal);
    } finally {
      this.times.push(performance.now() - started);
    }
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function evaluate(search: KnowledgeSearch, kb: number, questions: Question[]) {
  let found = 0;
  let rr = 0;
  const times: number[] = [];
  const misses: string[] = [];
  for (const question of questions) {
    const started = performance.now();
    const hits = await search.search(kb, question.q, 5);
    times.push(performance.now() - started);
    const rank = hits.findIndex((h) => question.answers.some((a) => norm(`${h.heading} ${h.content}`).includes(norm(a))));
    if (rank >= 0) {
      found++;
      rr += 1 / (rank + 1);
    } else misses.push(question.q);
  }
  return { recall: found / questions.length, mrr: rr / questions.length, times, misses };
}

/** Ingestion and search run in this process as the service runs them, at the default log level. */
export const settings = settingsNote({ ALLOW_PRIVATE_TARGETS: 'true (the clinic site is on 127.0.0.1)', EMBEDDINGS_BASE_URL: 'the embeddings double (hybrid rows only)' });

export async function run(): Promise<Row[]> {
  const questions = JSON.parse(fs.readFileSync(path.join(DIR, 'questions.json'), 'utf8')) as Question[];
  const database = await benchDatabase(process.env.BENCH_KNOWLEDGE_DB !== 'external', 'knowledge');
  const site = await serveSite();
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const double = await new EmbeddingsDouble(null).start();
  const logs = benchLogger(loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL }).LOG_LEVEL);
  const log = logs.log;
  try {
    await runMigrations(database.url);
    const db = connect(database.url, { max: 4 });
    const { pool } = db;
    try {
      const caps = await readCapabilities(pool);
      const embedder: QueryEmbedder = new OpenAiEmbeddings({ baseUrl: double.baseUrl, model: 'hash-512' });
      const userId = (await createUser(db.db, { name: 'Bench', email: 'bench-knowledge@example.test' })).user.id;
      const priceList = fs.readFileSync(path.join(DIR, 'price-list.txt'), 'utf8');

      /** A base holding the site and the price list, processed as the job does. */
      const base = async (name: string, withEmbeddings: boolean) => {
        const { rows: [kb] } = await pool.query<{ id: number }>('INSERT INTO knowledge_bases (user_id, name) VALUES ($1, $2) RETURNING id', [userId, name]);
        const docs = await pool.query<{ id: number; generation: number }>(
          `INSERT INTO knowledge_documents (knowledge_base_id, user_id, type, name, url, relative_links_limit, content)
           VALUES ($1, $2, 'website', 'site', $3, 20, NULL), ($1, $2, 'text', 'prices', NULL, NULL, $4) RETURNING id, generation`,
          [kb.id, userId, siteUrl, priceList],
        );
        for (const d of docs.rows) {
          const outcome = await ingestDocument(pool, caps, withEmbeddings ? embedder : null, { id: d.id, knowledgeBaseId: kb.id, generation: d.generation },
            { allowPrivate: true, pageTimeoutMs: 10_000, maxPageBytes: 2 * 1024 * 1024 }, log);
          if (outcome !== 'ready') throw new Error(`corpus document ${d.id}: ${outcome}`);
        }
        return kb.id;
      };
      const ftsKb = await base('clinic (full text)', false);
      const hybridKb = await base('clinic (hybrid)', true);
      const { rows: [{ n: corpusChunks }] } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_chunks WHERE knowledge_base_id = $1', [ftsKb]);

      const fts = new KnowledgeSearch(pool, caps, null);
      const queryEmbedder = new TimedEmbedder(embedder);
      const hybrid = new KnowledgeSearch(pool, caps, queryEmbedder);
      const qFts = await evaluate(fts, ftsKb, questions);
      const qHybrid = await evaluate(hybrid, hybridKb, questions);

      // ---- 10,000 chunks: the hybrid base plus filler (with embeddings), searched both ways
      const fillerTexts = filler(Math.max(0, TARGET_CHUNKS - corpusChunks));
      const vectors = await embedder.embed(fillerTexts);
      const { rows: [fillDoc] } = await pool.query<{ id: number; generation: number }>(
        `INSERT INTO knowledge_documents (knowledge_base_id, user_id, type, name, content) VALUES ($1, $2, 'text', 'filler', '') RETURNING id, generation`,
        [hybridKb, userId],
      );
      const rows: ChunkRow[] = fillerTexts.map((content, i) => ({ heading: `Note ${i}`, content, source: null, language: detectLanguage(content), embedding: Array.from(vectors[i]) }));
      await replaceChunks(pool, caps, { id: fillDoc.id, knowledgeBaseId: hybridKb, generation: fillDoc.generation }, rows, '', null);
      await pool.query('ANALYZE knowledge_chunks');
      const { rows: [{ n: bigChunks }] } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_chunks WHERE knowledge_base_id = $1', [hybridKb]);
      // warm, as a running service is after a change of the base: its lexicon and vectors loaded once
      // (each configuration's search keeps its own; the load's time is a row of its own)
      let started = performance.now();
      await fts.warm(hybridKb);
      const lexiconMs = performance.now() - started;
      started = performance.now();
      await hybrid.warm(hybridKb);
      const hybridWarmMs = performance.now() - started;
      await evaluate(hybrid, hybridKb, questions.slice(0, 5));
      await evaluate(fts, hybridKb, questions.slice(0, 5));
      const bigFts = await evaluate(fts, hybridKb, [...questions, ...questions]);
      queryEmbedder.times.length = 0;
      const bigHybrid = await evaluate(hybrid, hybridKb, [...questions, ...questions]);
      const embedTimes = [...queryEmbedder.times];

      const fmt = (x: number) => x.toFixed(3);
      const ms = (x: number) => `${x.toFixed(1)} ms`;
      const out: Row[] = [
        { measure: `recall@5, full-text (${questions.length} questions, ${corpusChunks} chunks)`, value: fmt(qFts.recall), target: `≥ ${TARGETS.recallFts}`, met: qFts.recall >= TARGETS.recallFts ? 'yes' : 'NO' },
        { measure: 'MRR, full-text', value: fmt(qFts.mrr), target: '', met: '' },
        { measure: 'recall@5, hybrid (embeddings double)', value: fmt(qHybrid.recall), target: `≥ ${TARGETS.recallHybrid}`, met: qHybrid.recall >= TARGETS.recallHybrid ? 'yes' : 'NO' },
        { measure: 'MRR, hybrid', value: fmt(qHybrid.mrr), target: '', met: '' },
        { measure: `search p50 / p95, full-text, ${bigChunks} chunks`, value: `${ms(percentile(bigFts.times, 50))} / ${ms(percentile(bigFts.times, 95))}`, target: `p95 < ${TARGETS.p95Ms} ms`, met: percentile(bigFts.times, 95) < TARGETS.p95Ms ? 'yes' : 'NO' },
        { measure: `search p50 / p95, hybrid, ${bigChunks} chunks`, value: `${ms(percentile(bigHybrid.times, 50))} / ${ms(percentile(bigHybrid.times, 95))}`, target: `p95 < ${TARGETS.p95Ms} ms`, met: percentile(bigHybrid.times, 95) < TARGETS.p95Ms ? 'yes' : 'NO' },
        { measure: 'hybrid, of which the query embedding round trip (double, in this process) p50 / p95', value: `${ms(percentile(embedTimes, 50))} / ${ms(percentile(embedTimes, 95))}`, target: '(informative)', met: '' },
        { measure: `loading a base after a change (${bigChunks} chunks): lexicon / lexicon + vectors`, value: `${ms(lexiconMs)} / ${ms(hybridWarmMs)}`, target: '(once per change, per process)', met: '' },
        { measure: `recall@5 among ${bigChunks} chunks: full-text / hybrid`, value: `${fmt(bigFts.recall)} / ${fmt(bigHybrid.recall)}`, target: '(informative)', met: '' },
        { measure: 'database', value: database.name, target: '', met: '' },
        // The machine's load while the latencies were taken: on a shared machine the CPU, not the query, sets the tail.
        { measure: 'load average (1 min) / cores', value: `${os.loadavg()[0].toFixed(1)} / ${os.cpus().length}`, target: '', met: '' },
      ];
      if (process.env.BENCH_KNOWLEDGE_MISSES) {
        console.log('full-text misses:', qFts.misses);
        console.log('hybrid misses:', qHybrid.misses);
      }
      return out;
    } finally {
      await db.close();
    }
  } finally {
    logs.close();
    await double.close();
    site.close();
    await database.cleanup();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(root, 'bench', 'knowledge.ts')) {
  printTable('Knowledge bases: retrieval quality and search latency', await run(), settings);
  process.exit(0);
}
