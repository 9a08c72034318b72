/**
 * Processing one document: its text (extracted, or crawled for a website), chunks with their
 * language, embeddings when a server is configured, then everything in place in one transaction
 * (store.ts). A run is tied to the document's generation: a newer request or a deletion makes
 * an older run write nothing.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { chunkText } from './chunk.js';
import { crawl, CrawlError } from './crawl.js';
import { docxText, ExtractionError, NO_TEXT, pdfText, plainText } from './extract.js';
import { detectLanguage } from './language.js';
import type { QueryEmbedder } from './search.js';
import { failDocument, replaceChunks, type Capabilities, type ChunkRow, type DocumentJob } from './store.js';

export interface IngestSettings {
  allowPrivate: boolean;
  pageTimeoutMs: number;
  maxPageBytes: number;
}

interface SourceRow {
  id: number;
  knowledge_base_id: number;
  generation: number;
  type: string;
  url: string | null;
  links: string[] | null;
  relative_links_limit: number | null;
  content: string | null;
  file: Buffer | null;
}

interface Extracted {
  /** Sections of text, each with where it came from (a page's URL). */
  parts: { text: string; source: string | null }[];
  pages: string[] | null;
}

async function extract(doc: SourceRow, settings: IngestSettings): Promise<Extracted> {
  switch (doc.type) {
    case 'text':
      return { parts: [{ text: plainText(doc.content ?? ''), source: null }], pages: null };
    case 'txt':
      return { parts: [{ text: plainText(doc.file ?? Buffer.alloc(0)), source: null }], pages: null };
    case 'pdf':
      return { parts: [{ text: await pdfText(doc.file ?? Buffer.alloc(0)), source: null }], pages: null };
    case 'docx':
      return { parts: [{ text: await docxText(doc.file ?? Buffer.alloc(0)), source: null }], pages: null };
    case 'website': {
      const follow = !doc.links || doc.links.length === 0;
      const { pages } = await crawl({
        urls: follow ? [doc.url!] : doc.links!,
        follow,
        limit: doc.relative_links_limit ?? 10,
        allowPrivate: settings.allowPrivate,
        pageTimeoutMs: settings.pageTimeoutMs,
        maxPageBytes: settings.maxPageBytes,
      });
      const parts = pages
        .filter((p) => /[\p{L}\p{N}]/u.test(p.text))
        .map((p) => ({ text: p.title && !p.text.startsWith('# ') ? `# ${p.title}\n\n${p.text}` : p.text, source: p.url }));
      if (parts.length === 0) throw new ExtractionError(NO_TEXT);
      return { parts, pages: pages.map((p) => p.url) };
    }
    default:
      throw new ExtractionError(`Unknown document type ${doc.type}.`);
  }
}

export type IngestOutcome = 'ready' | 'failed' | 'superseded';

export async function ingestDocument(
  pool: pg.Pool,
  caps: Capabilities,
  embedder: QueryEmbedder | null,
  job: DocumentJob,
  settings: IngestSettings,
  log: Logger,
): Promise<IngestOutcome> {
  const { rows: [doc] } = await pool.query<SourceRow>(
    `SELECT id, knowledge_base_id, generation, type, url, links, relative_links_limit, content, file
       FROM knowledge_documents WHERE id = $1 AND generation = $2 AND status = 'processing'`,
    [job.id, job.generation],
  );
  if (!doc) return 'superseded';
  let extracted: Extracted;
  try {
    extracted = await extract(doc, settings);
  } catch (err) {
    if (!(err instanceof ExtractionError || err instanceof CrawlError)) throw err;
    log.info({ documentId: doc.id, reason: err.message }, 'knowledge document failed');
    return (await failDocument(pool, job, err.message)) ? 'failed' : 'superseded';
  }
  const chunks: ChunkRow[] = extracted.parts.flatMap((part) =>
    chunkText(part.text).map((c) => ({ ...c, source: part.source, language: detectLanguage(`${c.heading} ${c.content}`), embedding: null as number[] | null })),
  );
  if (chunks.length === 0) return (await failDocument(pool, job, NO_TEXT)) ? 'failed' : 'superseded';
  if (embedder) {
    try {
      const vectors = await embedder.embed(chunks.map((c) => (c.heading ? `${c.heading}\n${c.content}` : c.content)));
      vectors.forEach((v, i) => (chunks[i].embedding = Array.from(v)));
    } catch (err) {
      // Full-text search still works without vectors: the document is indexed, the log says why not embedded.
      log.warn({ documentId: doc.id, err: (err as Error).message }, 'knowledge document indexed without embeddings');
    }
  }
  const text = extracted.parts.map((p) => p.text).join('\n\n');
  return (await replaceChunks(pool, caps, job, chunks, text, extracted.pages)) ? 'ready' : 'superseded';
}
