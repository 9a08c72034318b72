/**
 * Post-call processing: extraction of the assistant's `post_call_schema` values and, with
 * `post_call_evaluation`, `status` (goal met) and `summary`, via the LLM with a JSON-schema
 * answer; the duration and the costs from the per-minute rates; the recording URL.
 */
import type { Logger } from 'pino';
import type { PostCallField } from '../db/schema.js';
import type { JsonSchema, LlmProvider } from '../providers/llm/types.js';
import type { SessionResult } from './session.js';

export interface PostCallInput {
  callId: number;
  postCallSchema: PostCallField[];
  postCallEvaluation: boolean;
  record: boolean;
  model: string;
  temperature: number;
  variables: Record<string, unknown>;
  result: SessionResult;
  llm: LlmProvider;
  rates: { carrierPerMinute: number; platformPerMinute: number };
  /** What the carrier charged for the call, when it reported it (used instead of the per-minute rate). */
  carrierPrice?: number | null;
  log: Logger;
  /** Limit of the extraction request (default 30 s). */
  timeoutMs?: number;
}

export interface PostCallOutput {
  evaluation: Record<string, unknown>;
  durationSec: number;
  /** Decimal strings with 8 decimals (numeric(16,8) columns). */
  carrierCost: string;
  totalCost: string;
  recordingUrl: string | null;
}

const round8 = (n: number) => Math.round(n * 1e8) / 1e8;

export function callCosts(durationSec: number, rates: PostCallInput['rates'], carrierPrice?: number | null): { carrierCost: string; totalCost: string } {
  const minutes = durationSec / 60;
  const carrier = round8(carrierPrice ?? minutes * rates.carrierPerMinute);
  const total = round8(carrier + minutes * rates.platformPerMinute);
  return { carrierCost: carrier.toFixed(8), totalCost: total.toFixed(8) };
}

/** The JSON schema of the extraction answer. */
export function extractionSchema(fields: PostCallField[], evaluation: boolean): JsonSchema {
  const properties: Record<string, unknown> = {};
  for (const f of fields) properties[f.name] = { type: f.type === 'bool' ? 'boolean' : f.type, description: f.description };
  if (evaluation) {
    properties.status = { type: 'boolean', description: 'Whether the goal of the call was met.' };
    properties.summary = { type: 'string', description: 'A short summary of the call.' };
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

function typed(value: unknown, type: string): unknown {
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    return null;
  }
  if (type === 'number') {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
    return null;
  }
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export async function runPostCall(input: PostCallInput): Promise<PostCallOutput> {
  const { result } = input;
  const durationSec = result.connected ? Math.round(result.talkMs / 1000) : 0;
  const costs = callCosts(durationSec, input.rates, input.carrierPrice);
  // Only a recording the carrier actually made is linked: never a URL that serves nothing.
  const recordingUrl = result.connected && input.record ? (result.recordingUrl ?? null) : null;
  let evaluation: Record<string, unknown> = {};
  const wanted = input.postCallSchema.length > 0 || input.postCallEvaluation;
  if (result.connected && wanted) evaluation = await extract(input);
  return { evaluation, durationSec, ...costs, recordingUrl };
}

async function extract(input: PostCallInput): Promise<Record<string, unknown>> {
  const schema = extractionSchema(input.postCallSchema, input.postCallEvaluation);
  const fieldLines = input.postCallSchema.map((f) => `- ${f.name} (${f.type}): ${f.description}`);
  if (input.postCallEvaluation) {
    fieldLines.push('- status (boolean): whether the goal of the call was met');
    fieldLines.push('- summary (string): a short summary of the call');
  }
  const { result } = input;
  try {
    const raw = await input.llm.extract({
      model: input.model,
      temperature: input.temperature,
      schema,
      signal: AbortSignal.timeout(input.timeoutMs ?? 30_000),
      messages: [
        {
          role: 'system',
          content:
            'You analyse a finished phone call between an AI assistant and a customer. Answer with a JSON object holding exactly the requested fields, taken from the transcript; use null when the transcript does not tell.',
        },
        { role: 'user', content: `Fields:\n${fieldLines.join('\n')}\n\nTranscript:\n${result.transcript || '(empty)'}` },
      ],
      standInContext: {
        variables: input.variables,
        goalMet: result.status === 'completed',
        summary: `Offline stand-in call: ${result.customerUtterances} customer utterance(s), ${result.toolCalls.length} tool call(s), ended with status ${result.status}.`,
      },
    });
    const out: Record<string, unknown> = {};
    const props = (schema.properties ?? {}) as Record<string, { type: string }>;
    for (const [name, prop] of Object.entries(props)) out[name] = typed(raw[name], prop.type);
    return out;
  } catch (err) {
    input.log.warn({ callId: input.callId, err: { message: (err as Error).message } }, 'post-call extraction failed; evaluation left empty');
    return {};
  }
}
