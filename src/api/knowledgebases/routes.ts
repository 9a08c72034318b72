/**
 * Knowledge bases and their documents (issue 29): `/api/user/knowledgebases…`. Websites and
 * texts are JSON; files (pdf, txt, docx) are multipart/form-data uploads. Documents are processed
 * on the job queue (src/knowledge); `…/search` is the search the calls use.
 */
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { knowledgeSearch } from '../../knowledge/index.js';
import type { DocumentJob } from '../../knowledge/store.js';
import { BlockedTargetError, checkTarget } from '../../lib/outbound.js';
import { ErrorBag, HttpError, notFound, ValidationError } from '../toolkit/errors.js';
import { idParam, messageSchema, typed, validationSchema } from '../toolkit/route.js';
import { laravelErrors } from '../toolkit/validation.js';
import {
  documentBody,
  documentParams,
  documentUpdateBody,
  knowledgeBaseBody,
  knowledgeBaseUpdateBody,
  searchQuery,
  UPLOAD_TYPES,
  type DocumentBody,
  type UploadType,
} from './schemas.js';
import { documentSchema, knowledgeBaseSchema, searchHitSchema, serializeDocument, serializeKnowledgeBase } from './serializer.js';
import {
  createDocument,
  createKnowledgeBase,
  deleteDocument,
  deleteKnowledgeBase,
  findDocument,
  findKnowledgeBase,
  listDocuments,
  listKnowledgeBases,
  updateDocument,
  updateKnowledgeBase,
  type NewDocument,
} from './service.js';

const tags = ['knowledge bases'];
const KB_NOT_FOUND = 'Knowledge base not found.';
const DOC_NOT_FOUND = 'Document not found.';
const INVALID = 'The given data was invalid.';

/** A file's first bytes say what it is; the declared type must match them. */
function checkFile(type: UploadType, bytes: Buffer): string | null {
  if (bytes.length === 0) return 'The file is empty.';
  if (type === 'pdf' && bytes.subarray(0, 1024).indexOf('%PDF-') < 0) return 'The file is not a PDF.';
  if (type === 'docx' && !(bytes[0] === 0x50 && bytes[1] === 0x4b)) return 'The file is not a DOCX document.';
  if (type === 'txt') {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return 'The file is not UTF-8 text.';
    }
    if (bytes.includes(0)) return 'The file is not UTF-8 text.';
  }
  return null;
}

function typeFromName(name: string): UploadType | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'pdf' || ext === 'docx') return ext;
  if (ext === 'txt' || ext === 'text' || ext === 'md') return 'txt';
  return null;
}

export async function knowledgeBaseRoutes(app: FastifyInstance): Promise<void> {
  const maxBytes = Math.round(app.ctx.config.KNOWLEDGE_MAX_DOCUMENT_MB * 1024 * 1024);
  const tooLarge = `The file may be at most ${app.ctx.config.KNOWLEDGE_MAX_DOCUMENT_MB} MB.`;
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 12, fieldSize: 64 * 1024 } });
  const r = typed(app);
  const { pool } = app.ctx.database;

  const enqueue = async (req: FastifyRequest, job: DocumentJob | null) => {
    if (!job) return;
    // The document is committed as `processing`: a failed send is picked up by the next start's sweep.
    await app.ctx.services.knowledge?.enqueue(job).catch((err: unknown) => req.log.warn({ err, documentId: job.id }, 'queueing a knowledge document failed'));
  };
  const ownedKb = async (userId: number, id: number) => {
    const kb = await findKnowledgeBase(pool, userId, id);
    if (!kb) throw notFound(KB_NOT_FOUND);
    return kb;
  };
  const guardTargets = async (urls: { field: string; url: string }[], errors: ErrorBag) => {
    for (const { field, url } of urls) {
      try {
        await checkTarget(url, app.ctx.config.ALLOW_PRIVATE_TARGETS);
      } catch (err) {
        if (err instanceof BlockedTargetError) errors.add(field, err.message);
        // A host that does not resolve now may later: the crawl reports it.
      }
    }
  };

  // ---------------------------------------------------------------- knowledge bases

  r.get('/api/user/knowledgebases', {
    schema: { tags, summary: "The caller's knowledge bases, oldest first", response: { 200: z.object({ data: z.array(knowledgeBaseSchema) }) } },
  }, async (req) => ({ data: (await listKnowledgeBases(pool, req.user.id)).map(serializeKnowledgeBase) }));

  r.post('/api/user/knowledgebases', {
    schema: {
      tags,
      summary: 'Create a knowledge base (empty until documents are added)',
      body: knowledgeBaseBody,
      response: { 201: z.object({ message: z.string(), data: knowledgeBaseSchema }), 422: validationSchema },
    },
  }, async (req, reply) => {
    const row = await createKnowledgeBase(pool, req.user.id, req.body);
    return reply.code(201).send({ message: 'Knowledge base created.', data: serializeKnowledgeBase(row) });
  });

  r.get('/api/user/knowledgebases/:id', {
    schema: { tags, summary: 'Read one of the caller\'s knowledge bases', params: idParam, response: { 200: z.object({ data: knowledgeBaseSchema }), 404: messageSchema } },
    config: { notFoundMessage: KB_NOT_FOUND },
  }, async (req) => ({ data: serializeKnowledgeBase(await ownedKb(req.user.id, req.params.id)) }));

  r.put('/api/user/knowledgebases/:id', {
    schema: {
      tags,
      summary: 'Rename a knowledge base or change its description',
      params: idParam,
      body: knowledgeBaseUpdateBody,
      response: { 200: z.object({ message: z.string(), data: knowledgeBaseSchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: KB_NOT_FOUND },
  }, async (req) => {
    const row = await updateKnowledgeBase(pool, req.user.id, req.params.id, req.body);
    if (!row) throw notFound(KB_NOT_FOUND);
    return { message: 'Knowledge base updated.', data: serializeKnowledgeBase(row) };
  });

  r.delete('/api/user/knowledgebases/:id', {
    schema: {
      tags,
      summary: 'Delete a knowledge base with its documents; assistants that used it no longer have one',
      params: idParam,
      response: { 200: messageSchema, 404: messageSchema },
    },
    config: { notFoundMessage: KB_NOT_FOUND },
  }, async (req) => {
    if (!(await deleteKnowledgeBase(pool, req.user.id, req.params.id))) throw notFound(KB_NOT_FOUND);
    return { message: 'Knowledge base deleted.' };
  });

  r.get('/api/user/knowledgebases/:id/search', {
    schema: {
      tags,
      summary: 'Search a knowledge base as a call does: the best passages for a question',
      description:
        'Full-text search in PostgreSQL (every language the documents are in, accents folded, rare words weighing more, headings ' +
        'more than body text, a word the documents do not have standing for the words spelt most like it, by trigrams); with EMBEDDINGS_BASE_URL set, also by embedding similarity, ' +
        'the lists fused by reciprocal rank.',
      params: idParam,
      querystring: searchQuery,
      response: { 200: z.object({ data: z.array(searchHitSchema) }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: KB_NOT_FOUND },
  }, async (req) => {
    await ownedKb(req.user.id, req.params.id);
    const search = await knowledgeSearch(app.ctx);
    const hits = await search.search(req.params.id, req.query.q, req.query.limit);
    return {
      data: hits.map((h) => ({
        document_id: h.documentId,
        document_name: h.documentName,
        chunk_id: h.chunkId,
        heading: h.heading,
        snippet: h.snippet,
        content: h.content,
        source: h.source,
        score: Number(h.score.toFixed(6)),
      })),
    };
  });

  // ---------------------------------------------------------------- documents

  r.get('/api/user/knowledgebases/:id/documents', {
    schema: { tags, summary: 'The documents of a knowledge base, oldest first', params: idParam, response: { 200: z.object({ data: z.array(documentSchema) }), 404: messageSchema } },
    config: { notFoundMessage: KB_NOT_FOUND },
  }, async (req) => {
    await ownedKb(req.user.id, req.params.id);
    return { data: (await listDocuments(pool, req.user.id, req.params.id)).map(serializeDocument) };
  });

  r.post('/api/user/knowledgebases/:id/documents', {
    schema: {
      tags,
      summary: 'Add a document: a website or a text as JSON, or a file (pdf, txt, docx) as multipart/form-data',
      description:
        'JSON: `{"type": "website", "url": …, "relative_links_limit": 1-50 (default 10)}` crawls the site from that page, staying on ' +
        'its origin and obeying robots.txt; `{"type": "website", "links": [...]}` reads exactly those pages; `{"type": "text", "content": …}`. ' +
        'multipart/form-data: a part `file` (at most KNOWLEDGE_MAX_DOCUMENT_MB, default 20 MB; 413 when larger), optional fields `type` ' +
        '(pdf, txt, docx; else from the file name) and `name`. The document is processed in the background: its status is ' +
        '`processing`, then `ready` or `failed` with the reason. Addresses the service may not reach (private, link-local, metadata) are a 422.',
      params: idParam,
      body: documentBody,
      response: { 201: z.object({ message: z.string(), data: documentSchema }), 404: messageSchema, 413: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: KB_NOT_FOUND },
    attachValidation: true,
  }, async (req, reply) => {
    if (req.validationError && (req.validationError as { validationContext?: string }).validationContext === 'params') throw notFound(KB_NOT_FOUND);
    await ownedKb(req.user.id, req.params.id);
    let doc: NewDocument;
    if (req.isMultipart()) {
      doc = await readUpload(req, maxBytes, tooLarge);
    } else {
      if (req.validationError) {
        const parsed = documentBody.safeParse(req.body ?? {}, { reportInput: true });
        throw new ValidationError(parsed.success ? {} : laravelErrors(parsed.error.issues), INVALID);
      }
      doc = await jsonDocument(req.body, guardTargets);
    }
    const { row, job } = await createDocument(pool, req.user.id, req.params.id, doc);
    await enqueue(req, job);
    return reply.code(201).send({ message: 'Document added; it is being processed.', data: serializeDocument(row) });
  });

  r.get('/api/user/knowledgebases/:id/documents/:documentId', {
    schema: { tags, summary: 'Read one document of a knowledge base', params: documentParams, response: { 200: z.object({ data: documentSchema }), 404: messageSchema } },
    config: { notFoundMessage: DOC_NOT_FOUND },
  }, async (req) => {
    const row = await findDocument(pool, req.user.id, req.params.id, req.params.documentId);
    if (!row) throw notFound(DOC_NOT_FOUND);
    return { data: serializeDocument(row) };
  });

  r.put('/api/user/knowledgebases/:id/documents/:documentId', {
    schema: {
      tags,
      summary: 'Rename a document, change its source (text, URL, links) or process it again; its chunks are replaced at once when done',
      params: documentParams,
      body: documentUpdateBody,
      response: { 200: z.object({ message: z.string(), data: documentSchema }), 404: messageSchema, 422: validationSchema },
    },
    config: { notFoundMessage: DOC_NOT_FOUND },
  }, async (req) => {
    const current = await findDocument(pool, req.user.id, req.params.id, req.params.documentId);
    if (!current) throw notFound(DOC_NOT_FOUND);
    const errors = new ErrorBag();
    const b = req.body;
    if (current.type !== 'text' && b.content !== undefined) errors.add('content', 'The content field is only for text documents.');
    if (current.type !== 'website') {
      websiteOnly(b, errors);
    }
    await guardTargets(websiteTargets(b, errors), errors);
    errors.throwIfAny(INVALID);
    const { row, job } = await updateDocument(pool, current, req.user.id, b);
    await enqueue(req, job);
    return { message: job ? 'Document updated; it is being processed again.' : 'Document updated.', data: serializeDocument(row) };
  });

  r.delete('/api/user/knowledgebases/:id/documents/:documentId', {
    schema: { tags, summary: 'Delete a document and its passages', params: documentParams, response: { 200: messageSchema, 404: messageSchema } },
    config: { notFoundMessage: DOC_NOT_FOUND },
  }, async (req) => {
    if (!(await deleteDocument(pool, req.user.id, req.params.id, req.params.documentId))) throw notFound(DOC_NOT_FOUND);
    return { message: 'Document deleted.' };
  });
}

type WebsiteFields = { url?: string; links?: string[]; relative_links_limit?: number };

/** The fields only a website document has, refused on other types. */
function websiteOnly(body: WebsiteFields, errors: ErrorBag): void {
  for (const f of ['url', 'links', 'relative_links_limit'] as const) if (body[f] !== undefined) errors.add(f, `The ${f.replace(/_/g, ' ')} field is only for website documents.`);
}

/** A website's addresses, each with the field it came in (url or links.N); url and links exclude each other. */
function websiteTargets(body: WebsiteFields, errors: ErrorBag): { field: string; url: string }[] {
  if (body.url !== undefined && body.links !== undefined) errors.add('links', 'The links field is prohibited when url is present.');
  return [...(body.url ? [{ field: 'url', url: body.url }] : []), ...(body.links ?? []).map((url, i) => ({ field: `links.${i}`, url }))];
}

async function jsonDocument(
  body: DocumentBody,
  guardTargets: (urls: { field: string; url: string }[], errors: ErrorBag) => Promise<void>,
): Promise<NewDocument> {
  const errors = new ErrorBag();
  if ((UPLOAD_TYPES as readonly string[]).includes(body.type)) {
    errors.add('file', `The file field is required when type is ${body.type}: send it as multipart/form-data.`);
  } else if (body.type === 'website') {
    if (body.url === undefined && body.links === undefined) errors.add('url', 'The url field is required when links is not present.');
    if (body.content !== undefined) errors.add('content', 'The content field is only for text documents.');
    await guardTargets(websiteTargets(body, errors), errors);
  } else {
    if (body.content === undefined) errors.add('content', 'The content field is required when type is text.');
    websiteOnly(body, errors);
  }
  errors.throwIfAny(INVALID);
  if (body.type === 'website') {
    const first = body.url ?? body.links![0];
    return {
      type: 'website',
      name: body.name ?? first.replace(/^https?:\/\//, '').slice(0, 255),
      url: body.url ?? null,
      links: body.links ?? null,
      relativeLinksLimit: body.url ? (body.relative_links_limit ?? 10) : null,
    };
  }
  return { type: 'text', name: body.name ?? body.content!.replace(/\s+/g, ' ').trim().slice(0, 60), content: body.content! };
}

async function readUpload(req: FastifyRequest, maxBytes: number, tooLarge: string): Promise<NewDocument> {
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; name: string } | null = null;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const f = part as MultipartFile;
        if (f.fieldname !== 'file' || file) {
          f.file.resume();
          continue;
        }
        file = { bytes: await f.toBuffer(), name: f.filename || 'upload' };
      } else if (typeof part.value === 'string') {
        fields[part.fieldname] = part.value;
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE' || (file?.bytes.length ?? 0) > maxBytes) throw new HttpError(413, tooLarge);
    if (code?.startsWith('FST_')) throw new HttpError(400, `The upload could not be read: ${(err as Error).message}`);
    throw err;
  }
  const errors = new ErrorBag();
  if (!file) errors.add('file', 'The file field is required.');
  const declared = fields.type;
  if (declared !== undefined && !(UPLOAD_TYPES as readonly string[]).includes(declared)) errors.add('type', 'The selected type is invalid.');
  const name = fields.name?.trim();
  if (name !== undefined && name.length > 255) errors.add('name', 'The name field must not be greater than 255 characters.');
  errors.throwIfAny(INVALID);
  const type = (declared as UploadType | undefined) ?? typeFromName(file!.name);
  if (!type) throw new ValidationError({ type: ['The type field is required when the file name does not end in .pdf, .docx or .txt.'] }, INVALID);
  const problem = checkFile(type, file!.bytes);
  if (problem) throw new ValidationError({ file: [problem] }, INVALID);
  const fileName = file!.name.replace(/\u0000/g, '').slice(0, 255);
  return { type, name: name || fileName, file: { bytes: file!.bytes, name: fileName, type } };
}
