/** Request and response shapes of the assistant-test API (scenarios, runs, a call turned into a scenario). */
import { z } from 'zod';
import { pageQuery } from '../toolkit/pagination.js';
import { v } from '../toolkit/validation.js';

/** A scenario document as written (YAML or JSON), at most 64 KiB. */
export const SOURCE_MAX = 65_536;
const source = () => v.filled({ max: SOURCE_MAX });

export const scenarioBody = z.object({ source: source().describe('The scenario document (YAML or JSON), one scenario') });
export const validateBody = z.object({ source: v.string({ max: SOURCE_MAX }).describe('A scenario document to check (YAML or JSON)') });

export const createRunBody = z.object({
  scenarios: v
    .array(z.union([v.string({ max: SOURCE_MAX }), z.record(z.string(), z.unknown())]))
    .min(1)
    .max(50)
    .optional()
    .describe('Scenario documents (YAML/JSON text) or scenario objects; a document may hold several scenarios'),
  scenario_ids: v.array(v.id()).min(1).max(100).optional().describe('Stored scenarios of the assistant to run'),
  version: v.int({ min: 1 }).optional().describe("The assistant's version to run (default: the current one)"),
  assistant_overrides: v.object().optional().describe('Unsaved changes: fields of the update request applied for this run only'),
}).describe('Without scenarios and scenario_ids, every stored scenario of the assistant runs.');

export const listRunsQuery = z.object(pageQuery(15));

export const fromCallBody = z.object({
  name: v.string({ max: 200 }).optional().describe('The scenario name (default: "Call {id} replayed")'),
  save: v.bool().optional().describe("Store it among the assistant's test scenarios"),
});

export const scenarioErrorSchema = z.object({ line: z.number().int(), message: z.string() });

export const scenarioSchema = z.object({
  id: z.number().int(),
  assistant_id: z.number().int(),
  name: z.string(),
  source: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const repeatSchema = z.object({
  repeat: z.number().int(),
  status: z.enum(['passed', 'failed', 'error']),
  end_status: z.string().nullable(),
  transcript: z.array(z.unknown()),
  tool_requests: z.array(z.unknown()),
  turns: z.array(z.unknown()),
  assertions: z.array(z.unknown()),
  variables: z.record(z.string(), z.unknown()),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
});

export const runSummarySchema = z.object({
  id: z.number().int(),
  assistant_id: z.number().int(),
  assistant_version: z.number().int().nullable(),
  unsaved_changes: z.boolean(),
  status: z.enum(['queued', 'running', 'passed', 'failed', 'error']),
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errored: z.number().int(),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

export const runSchema = runSummarySchema.extend({
  assistant_overrides: z.record(z.string(), z.unknown()).nullable(),
  scenarios: z.array(
    z.object({
      position: z.number().int(),
      name: z.string(),
      scenario_id: z.number().int().nullable(),
      source: z.string(),
      repeat: z.number().int(),
      pass_rate: z.number(),
      status: z.enum(['pending', 'passed', 'failed', 'error']),
      repeats: z.array(repeatSchema),
    }),
  ),
});
