/** Rows the assistant tests need from other areas, inserted directly (tools, private voices). */
import { tools, voices } from '../../../src/db/schema.js';
import type { TestService } from '../../support/service.js';

export async function insertTool(t: TestService, userId: number, name = 'lookup_order', description = 'Looks up an order') {
  const [row] = await t.service.ctx.database.db
    .insert(tools)
    .values({ userId, name, description, endpoint: 'https://example.test/hook', method: 'POST' })
    .returning();
  return row;
}

export async function insertVoice(t: TestService, userId: number | null, mode: 'pipeline' | 'multimodal' = 'pipeline') {
  const [row] = await t.service.ctx.database.db.insert(voices).values({ name: `Voice ${mode}`, mode, userId }).returning();
  return row;
}

/** Public seeded voices (migration 0001): 1-4 pipeline, 5-7 multimodal. */
export const PIPELINE_VOICE = 1;
export const MULTIMODAL_VOICE = 5;

export const minimalCreate = { assistant_name: 'Support', voice_id: PIPELINE_VOICE, calls_direction: 'make' } as const;
