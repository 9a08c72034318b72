/** Tool row → the tool object of spec 2.2. */
import { z } from 'zod';
import type { tools } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { PARAM_TYPES, TOOL_METHODS } from './schemas.js';

export type ToolRow = typeof tools.$inferSelect;

export function serializeTool(row: ToolRow): Tool {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    endpoint: row.endpoint,
    method: row.method as Tool['method'], // stored only through the method enum
    timeout: row.timeout,
    // fixed key order (jsonb stores keys in its own order)
    headers: row.headers.map((h) => ({ name: h.name, value: h.value })),
    schema: row.schema.map((p) => ({ name: p.name, type: p.type, description: p.description })),
    created_at: isoMicro(row.createdAt)!, // not-null columns
    updated_at: isoMicro(row.updatedAt)!,
  };
}

export const toolSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  endpoint: z.string(),
  method: z.enum(TOOL_METHODS),
  timeout: z.number().int().describe('seconds, 1-30'),
  headers: z.array(z.object({ name: z.string(), value: z.string() })),
  schema: z.array(z.object({ name: z.string(), type: z.enum(PARAM_TYPES), description: z.string() })),
  created_at: z.string().describe('ISO 8601 with microseconds, e.g. 2026-11-22T10:30:00.123456Z'),
  updated_at: z.string().describe('ISO 8601 with microseconds'),
});

export type Tool = z.infer<typeof toolSchema>;
