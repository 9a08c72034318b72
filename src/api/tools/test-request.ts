/**
 * "Send a test request" (issue 17): runs one of the caller's tools exactly as a call would —
 * the same ToolRunner, so the same outbound guard, method, headers, timeout and argument
 * handling — with arguments the user types, and shows what the endpoint answered.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { ToolRunner } from '../../calls/tool-runner.js';
import type { tools } from '../../db/schema.js';
import { v } from '../toolkit/validation.js';

export const testRequestBody = z.object({
  arguments: v.object().nullable().optional().describe("the tool's parameters by name, as the LLM would send them; default {}"),
});

export const testRequestResponse = z.object({
  data: z.object({
    ok: z.boolean().describe('the endpoint answered with a 2xx status'),
    status: z.number().int().nullable().describe('HTTP status of the answer; null when there was none'),
    duration_ms: z.number().int(),
    result: z.record(z.string(), z.unknown()).describe('what the LLM would read: {status, body, truncated?} or {error}'),
  }),
});

export async function sendTestRequest(
  tool: typeof tools.$inferSelect,
  args: Record<string, unknown>,
  opts: { allowPrivate: boolean; log: Logger },
): Promise<z.infer<typeof testRequestResponse>['data']> {
  const outcome = await new ToolRunner(opts).run(tool, JSON.stringify(args));
  return {
    ok: outcome.ok,
    status: outcome.status ?? null,
    duration_ms: outcome.durationMs,
    result: JSON.parse(outcome.content) as Record<string, unknown>,
  };
}
