/**
 * Knowledge bases' background side (issue 29): documents are processed on the job queue
 * (pg-boss, queue `knowledge-ingest`, one document at a time per process), and the search the API
 * and the calls use. A process that starts sends a job for every document still `processing`,
 * so a document whose process died (SIGKILL, power cut) mid-way is processed again at once; a run
 * is idempotent (its result replaces the chunks in one transaction, tied to the document's
 * generation), so a duplicate run only costs time; processes starting together queue each such
 * document once (requeueProcessing).
 */
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { OpenAiEmbeddings } from '../providers/embeddings/openai.js';
import { ingestDocument, type IngestSettings } from './ingest.js';
import { KnowledgeSearch } from './search.js';
import { readCapabilities, type DocumentJob } from './store.js';

export const INGEST_QUEUE = 'knowledge-ingest';

export function embedderFromConfig(config: Pick<Config, 'EMBEDDINGS_BASE_URL' | 'EMBEDDINGS_API_KEY' | 'EMBEDDINGS_MODEL'>): OpenAiEmbeddings | null {
  if (!config.EMBEDDINGS_BASE_URL) return null;
  return new OpenAiEmbeddings({ baseUrl: config.EMBEDDINGS_BASE_URL, apiKey: config.EMBEDDINGS_API_KEY, model: config.EMBEDDINGS_MODEL });
}

/** What a search needs of the process: its database and config (a CLI run has no full AppContext). */
export type KnowledgeContext = Pick<AppContext, 'database' | 'config'>;

const searches = new WeakMap<KnowledgeContext, Promise<KnowledgeSearch>>();

/** The process's search (one per context: it caches the bases' vectors). */
export function knowledgeSearch(ctx: KnowledgeContext): Promise<KnowledgeSearch> {
  let s = searches.get(ctx);
  if (!s) {
    s = readCapabilities(ctx.database.pool).then((caps) => new KnowledgeSearch(ctx.database.pool, caps, embedderFromConfig(ctx.config)));
    s.catch(() => searches.delete(ctx));
    searches.set(ctx, s);
  }
  return s;
}

export class KnowledgeIngest {
  constructor(private readonly ctx: AppContext) {}

  /** Queues a document's processing (after the transaction that created or changed it committed). */
  async enqueue(job: DocumentJob): Promise<void> {
    const boss = this.ctx.services.boss;
    if (!boss) return; // an HTTP-only process: the next process with the part picks it up at start
    await boss.send(INGEST_QUEUE, job, { retryLimit: 2, retryDelay: 10 });
  }

  /**
   * Queues again every document left `processing` (its process died, or it was stored by a
   * process without the job queue), once among processes starting together: the job's
   * singletonKey names the document's generation, and pg-boss keeps one job per key in each
   * REQUEUE_WINDOW_SECONDS slot (the second send is dropped). A job still marked active for a
   * dead process has no key, so it never holds the new one back. Returns how many were queued.
   */
  async requeueProcessing(): Promise<number> {
    const boss = this.ctx.services.boss;
    if (!boss) return 0;
    const { rows } = await this.ctx.database.pool.query<{ id: number; knowledge_base_id: number; generation: number }>(
      `SELECT id, knowledge_base_id, generation FROM knowledge_documents WHERE status = 'processing' ORDER BY id`,
    );
    let queued = 0;
    for (const r of rows) {
      const job: DocumentJob = { id: r.id, knowledgeBaseId: r.knowledge_base_id, generation: r.generation };
      const id = await boss.send(INGEST_QUEUE, job, {
        retryLimit: 2,
        retryDelay: 10,
        singletonKey: `requeue:${r.id}:${r.generation}`,
        singletonSeconds: REQUEUE_WINDOW_SECONDS,
      });
      if (id) queued++;
    }
    return queued;
  }
}

/** Processes starting within this many seconds of each other (the same slot) queue a left-over document once. */
export const REQUEUE_WINDOW_SECONDS = 120;

declare module '../context.js' {
  interface Services {
    knowledge?: KnowledgeIngest;
  }
}

export function knowledgePart(ctx: AppContext): BackgroundPart | null {
  const { boss } = ctx.services;
  if (!boss) return null;
  const ingest = new KnowledgeIngest(ctx);
  const settings: IngestSettings = { allowPrivate: ctx.config.ALLOW_PRIVATE_TARGETS, pageTimeoutMs: 10_000, maxPageBytes: 2 * 1024 * 1024 };
  const log = ctx.log.child({ part: 'knowledge' });
  return {
    name: 'knowledge',
    provides: { knowledge: ingest },
    async start() {
      // A crawl of 50 pages at 10 s each fits; a job taken by a dead process is handed out again after that.
      await boss.createQueue(INGEST_QUEUE, { name: INGEST_QUEUE, expireInSeconds: 15 * 60, retryLimit: 2, retryDelay: 10 });
      const caps = await readCapabilities(ctx.database.pool);
      const embedder = embedderFromConfig(ctx.config);
      await boss.work<DocumentJob>(INGEST_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
        const outcome = await ingestDocument(ctx.database.pool, caps, embedder, job.data, settings, log);
        log.info({ documentId: job.data.id, outcome }, 'knowledge document processed');
      });
      const queued = await ingest.requeueProcessing();
      if (queued > 0) log.info({ documents: queued }, 'knowledge documents left processing are processed again');
    },
    async stop() {
      await boss.offWork(INGEST_QUEUE).catch(() => undefined);
    },
  };
}
