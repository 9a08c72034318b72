/**
 * A suite's own assistant: `assistant.yaml` (or `.json`) beside the scenarios, so a suite runs
 * without a database (the command line uses it when no `--assistant` is given). Its fields are
 * the assistant record's names; mid-call tools are written out (the tools API's fields) and
 * built-ins are `{type, data}` items as stored:
 *
 *   name, system_prompt, initial_message, variables, llm_model, llm_temperature, language (ISO 639-1),
 *   wait_for_customer, max_duration, max_silence_duration, reengagement_interval, end_call_description,
 *   post_call_schema [{name, type, description}], post_call_evaluation, timezone,
 *   tools [{name, description, endpoint, method, timeout, headers, schema}], builtin_tools [{type, data}]
 */
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { StoredBuiltinTool } from '../db/schema.js';
import { DEFAULT_MODEL } from '../calls/call-settings.js';
import type { TestAssistant } from './assistant.js';
import { BUILTIN_TYPES } from './builtins.js';
import { Lines, zodIssues, type ScenarioError } from './scenario.js';

export const ASSISTANT_FILES = ['assistant.yaml', 'assistant.yml', 'assistant.json'];

const toolSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z_]*$/, 'a tool name is letters and underscores').min(2).max(32),
  description: z.string().min(1).max(1000),
  endpoint: z.url(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
  timeout: z.int().min(1).max(60).default(10),
  headers: z.array(z.strictObject({ name: z.string().min(1), value: z.string() })).default([]),
  schema: z.array(z.strictObject({ name: z.string().min(1), type: z.enum(['string', 'number', 'boolean']), description: z.string().default('') })).default([]),
});

const fileSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  system_prompt: z.string().default(''),
  initial_message: z.string().default(''),
  variables: z.record(z.string(), z.unknown()).default({}),
  llm_model: z.string().min(1).default(DEFAULT_MODEL),
  llm_temperature: z.number().min(0).max(2).default(0.1),
  language: z.string().regex(/^[a-z]{2}$/, 'language is a two-letter ISO 639-1 code').default('en'),
  wait_for_customer: z.boolean().default(false),
  max_duration: z.int().min(10).max(7200).default(600),
  max_silence_duration: z.int().min(1).max(3600).default(40),
  reengagement_interval: z.int().min(1).max(3600).default(30),
  end_call_description: z.string().nullable().default(null),
  post_call_schema: z.array(z.strictObject({ name: z.string().min(1), type: z.enum(['string', 'number', 'bool']), description: z.string().default('') })).default([]),
  post_call_evaluation: z.boolean().default(false),
  timezone: z.string().default('UTC'),
  tools: z.array(toolSchema).default([]),
  builtin_tools: z.array(z.strictObject({ type: z.enum(BUILTIN_TYPES), data: z.record(z.string(), z.unknown()).default({}) })).default([]),
});

/** Reads an assistant file; errors name the line like a scenario's. */
export function parseAssistantFile(text: string): { assistant: TestAssistant } | { errors: ScenarioError[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) return { errors: doc.errors.map((e) => ({ line: counter.linePos(e.pos[0]).line, message: e.message.split('\n')[0]! })) };
  const parsed = fileSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const lines = new Lines(doc, counter);
    return { errors: zodIssues(parsed.error, []).map((i) => ({ line: lines.at(i.path, i.atKey), message: i.message })) };
  }
  const f = parsed.data;
  return {
    assistant: {
      id: null,
      name: f.name,
      version: null,
      assistant_variables: f.variables,
      system_prompt: f.system_prompt,
      initial_message: f.initial_message,
      wait_for_customer: f.wait_for_customer,
      end_call_on_voicemail: false,
      voice_mail_message: null,
      language_iso2: f.language,
      silence_goodbye_message: null,
      max_duration: f.max_duration,
      max_silence_duration: f.max_silence_duration,
      reengagement_interval: f.reengagement_interval,
      model: f.llm_model,
      llm_temperature: f.llm_temperature.toFixed(2),
      tools: f.tools.map((t, i) => ({ id: -(i + 1), ...t })),
      end_call_tool_description: f.end_call_description,
      fillers: false,
      filler_config: { neutral: [], negative: [], positive: [], question: [] },
      builtin_tools: f.builtin_tools as unknown as StoredBuiltinTool[],
      post_call_schema: f.post_call_schema,
      post_call_evaluation: f.post_call_evaluation,
      timezone: f.timezone,
      mode: 'pipeline',
    },
  };
}
