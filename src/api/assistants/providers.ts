/**
 * The provider lookups behind an assistant's `synthesizer_provider_id` and
 * `transcriber_provider_id` (issue 20): `[{id, name, code}]`, optionally only those that
 * cover one language of the language list. An unknown `language_id` lists nothing (a filter
 * that matches nothing), as unknown ids do on the other lists.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SYNTHESIZER_PROVIDERS, TRANSCRIBER_PROVIDERS, type CatalogEntry } from '../../providers/catalog.js';
import { listLanguages } from '../reference/service.js';
import { typed, validationSchema } from '../toolkit/route.js';
import { v } from '../toolkit/validation.js';

const providerSchema = z.object({ id: z.number().int(), name: z.string(), code: z.string() });
const query = z.object({ language_id: v.id().optional() });
const invalid = { 422: validationSchema };

export async function providerLookupRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);
  const { db } = app.ctx.database;

  const lookup = async (list: readonly CatalogEntry[], languageId: number | undefined) => {
    let entries = list;
    if (languageId !== undefined) {
      const language = (await listLanguages(db)).find((l) => l.id === languageId);
      entries = language ? list.filter((p) => p.languages.includes(language.iso_2)) : [];
    }
    return entries.map(({ id, name, code }) => ({ id, name, code }));
  };

  r.get('/api/user/assistants/synthesizer-providers', {
    schema: {
      tags: ['assistants'],
      summary: 'Text-to-speech providers an assistant can use (synthesizer_provider_id); optional language_id filter',
      querystring: query,
      response: { 200: z.array(providerSchema), ...invalid },
    },
  }, async (req) => lookup(SYNTHESIZER_PROVIDERS, req.query.language_id));

  r.get('/api/user/assistants/transcriber-providers', {
    schema: {
      tags: ['assistants'],
      summary: 'Speech-to-text providers an assistant can use (transcriber_provider_id); optional language_id filter',
      querystring: query,
      response: { 200: z.array(providerSchema), ...invalid },
    },
  }, async (req) => lookup(TRANSCRIBER_PROVIDERS, req.query.language_id));
}
