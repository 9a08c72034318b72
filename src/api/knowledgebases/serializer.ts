/** Knowledge base and document rows → their records (issue 29). */
import { z } from 'zod';
import { isoMicro } from '../../db/time.js';
import { DOCUMENT_TYPES } from './schemas.js';

export interface KnowledgeBaseRow {
  id: number;
  name: string;
  description: string | null;
  documents: number;
  chunks: number;
  processing: number;
  failed: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export const knowledgeBaseSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(['empty', 'processing', 'ready', 'failed']).describe(
    'empty: no documents; processing: a document is being processed; failed: every document failed (see error); else ready',
  ),
  error: z.string().nullable().describe('why, when status is failed'),
  documents_count: z.number().int(),
  chunks_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type KnowledgeBaseRecord = z.infer<typeof knowledgeBaseSchema>;

export function serializeKnowledgeBase(row: KnowledgeBaseRow): KnowledgeBaseRecord {
  const docs = Number(row.documents);
  const failed = Number(row.failed);
  const status = docs === 0 ? 'empty' : Number(row.processing) > 0 ? 'processing' : failed === docs ? 'failed' : 'ready';
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status,
    error: status === 'failed' ? row.last_error : null,
    documents_count: docs,
    chunks_count: Number(row.chunks),
    created_at: isoMicro(row.created_at)!,
    updated_at: isoMicro(row.updated_at)!,
  };
}

export interface DocumentRow {
  id: number;
  knowledge_base_id: number;
  type: string;
  name: string;
  url: string | null;
  links: string[] | null;
  relative_links_limit: number | null;
  file_name: string | null;
  size: number | null;
  status: string;
  error: string | null;
  chunk_count: number;
  pages: string[] | null;
  processed_at: string | null;
  created_at: string;
  updated_at: string;
}

export const documentSchema = z.object({
  id: z.number().int(),
  knowledgebase_id: z.number().int(),
  type: z.enum(DOCUMENT_TYPES),
  name: z.string(),
  url: z.string().nullable().describe('website: the start page'),
  links: z.array(z.string()).nullable().describe('website: the pages read, when given as a list'),
  relative_links_limit: z.number().int().nullable().describe('website: pages followed from the start page, 1-50'),
  file_name: z.string().nullable(),
  size: z.number().int().nullable().describe('bytes of the uploaded file or the text'),
  status: z.enum(['processing', 'ready', 'failed']),
  error: z.string().nullable().describe('why processing failed'),
  chunks_count: z.number().int(),
  pages: z.array(z.string()).nullable().describe('website: the pages that were read'),
  processed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DocumentRecord = z.infer<typeof documentSchema>;

export function serializeDocument(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    knowledgebase_id: row.knowledge_base_id,
    type: row.type as DocumentRecord['type'],
    name: row.name,
    url: row.url,
    links: row.links,
    relative_links_limit: row.relative_links_limit,
    file_name: row.file_name,
    size: row.size === null ? null : Number(row.size),
    status: row.status as DocumentRecord['status'],
    error: row.error,
    chunks_count: row.chunk_count,
    pages: row.pages,
    processed_at: isoMicro(row.processed_at),
    created_at: isoMicro(row.created_at)!,
    updated_at: isoMicro(row.updated_at)!,
  };
}

export const searchHitSchema = z.object({
  document_id: z.number().int(),
  document_name: z.string(),
  chunk_id: z.number().int(),
  heading: z.string().describe('the headings above the passage, joined by ›'),
  snippet: z.string().describe('the best-matching part of the passage'),
  content: z.string().describe('the whole passage'),
  source: z.string().nullable().describe('the page a website passage was read from'),
  score: z.number(),
});
