/** Request shapes of knowledge bases and their documents (issue 29). */
import { z } from 'zod';
import { pathId } from '../toolkit/route.js';
import { msg, v } from '../toolkit/validation.js';

export const TEXT_MAX = 500_000;
export const DOCUMENT_TYPES = ['website', 'text', 'pdf', 'txt', 'docx'] as const;
export const UPLOAD_TYPES = ['pdf', 'txt', 'docx'] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];

export const knowledgeBaseBody = z.object({
  name: v.filled({ max: 255 }),
  description: v.emptyAsNull(v.string({ max: 5000 })),
});
export const knowledgeBaseUpdateBody = knowledgeBaseBody.partial();

const links = v.array(v.url()).min(1, { error: 'The :attribute field must have at least 1 items.' }).max(50, { error: 'The :attribute field must not have more than 50 items.' });

/** JSON documents: a website or a text. Files (pdf, txt, docx) come as multipart/form-data. */
export const documentBody = z.object({
  type: v.enum(DOCUMENT_TYPES),
  name: v.filled({ max: 255 }).optional(),
  url: v.url().optional(),
  links: links.optional(),
  relative_links_limit: v.int({ min: 1, max: 50 }).optional(),
  content: v.filled({ max: TEXT_MAX }).optional(),
});
export type DocumentBody = z.output<typeof documentBody>;

export const documentUpdateBody = z.object({
  name: v.filled({ max: 255 }).optional(),
  url: v.url().optional(),
  links: links.optional(),
  relative_links_limit: v.int({ min: 1, max: 50 }).optional(),
  content: v.filled({ max: TEXT_MAX }).optional(),
  reprocess: v.bool().optional().describe('process the document again from its source (a website is crawled again)'),
});
export type DocumentUpdate = z.output<typeof documentUpdateBody>;

export const documentParams = z.object({ id: pathId(), documentId: pathId() });

export const searchQuery = z.object({
  q: z.string(msg.string).min(1, { error: msg.required }).max(1000, { error: msg.maxString(1000) }),
  limit: z
    .string(msg.integer)
    .regex(/^-?\d+$/, { error: msg.integer })
    .transform(Number)
    .pipe(v.int({ min: 1, max: 20 }))
    .optional()
    .default(5),
});
