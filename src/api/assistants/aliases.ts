/**
 * Record names as aliases of the spec's request names (issue 9 item 1, CONTRACT §7).
 *
 * Existing clients of this API family create and update assistants with the record's own
 * field names (`name`, `type`, `max_duration`, ...). After the body schema has checked each
 * field on its own, `normalize` folds both spellings into one value in record terms,
 * remembers which name the request used (so later errors name the field as sent), and
 * reports a conflict when both names carry different values. See docs/decisions.md,
 * "Assistants and client aliases", for the list and the reasons.
 */
import { ErrorBag, ValidationError } from '../toolkit/errors.js';
import { attributeName, isStorableJson, isStorableText } from '../toolkit/validation.js';
import type { AssistantBody } from './schemas.js';

/** A setting of the record that the request may name in two ways. */
interface Pair {
  /** Key of the normalized value (record terms). */
  key: keyof Normalized['values'];
  spec: keyof AssistantBody;
  alias: keyof AssistantBody;
  /** Converts the spec's request value to the record's value (identity when absent). */
  fromSpec?: (x: never) => unknown;
  /** Reads the alias's value (identity when absent). */
  fromAlias?: (x: never) => unknown;
}

export const ALIAS_PAIRS: readonly Pair[] = [
  { key: 'name', spec: 'assistant_name', alias: 'name' },
  {
    key: 'type',
    spec: 'calls_direction',
    alias: 'type',
    fromSpec: (x: 'receive' | 'make') => (x === 'receive' ? 'inbound' : 'outbound'),
  },
  { key: 'mode', spec: 'engine_type', alias: 'mode' },
  { key: 'record', spec: 'record_call', alias: 'record' },
  { key: 'reengagement_interval', spec: 're_engagement_interval', alias: 'reengagement_interval' },
  { key: 'max_duration', spec: 'max_call_duration', alias: 'max_duration' },
  { key: 'enable_noise_cancellation', spec: 'noise_cancellation', alias: 'enable_noise_cancellation' },
  { key: 'fillers', spec: 'filler_audios', alias: 'fillers' },
  {
    key: 'wait_for_customer',
    spec: 'who_speaks_first',
    alias: 'wait_for_customer',
    fromSpec: (x: 'AI assistant' | 'Customer') => x === 'Customer',
  },
  {
    key: 'end_call_description',
    spec: 'end_call_tool.description',
    alias: 'end_call_tool',
    fromAlias: (x: { description?: string | null }) => x.description,
  },
];

/** Fields whose request name is the record name; taken as they are. */
const SAME_NAME = [
  'filler_config',
  'ambient_sound',
  'voice_id',
  'timezone',
  'initial_message',
  'system_prompt',
  'phone_number_id',
  'tool_ids',
  'endpoint_type',
  'endpoint_sensitivity',
  'interrupt_sensitivity',
  'ambient_sound_volume',
  'post_call_evaluation',
  'send_webhook_only_on_completed',
  'include_recording_in_webhook',
  'is_webhook_active',
  'webhook_url',
  'use_min_interrupt_words',
  'min_interrupt_words',
  'variables',
  'post_call_schema',
  'llm_temperature',
  'voice_stability',
  'voice_similarity',
  'speech_speed',
  'allow_interruptions',
  'max_silence_duration',
  'end_call_on_voicemail',
  'voice_mail_message',
  'silence_goodbye_message',
  'backchannel_words',
  'knowledgebase_id',
  'knowledgebase_mode',
  'status',
  'tools',
  'synthesizer_provider_id',
  'transcriber_provider_id',
  // resolved against the reference lists in service.ts (the pair language/language_id too)
  'language',
  'language_id',
  'llm_model',
  'llm_model_id',
] as const satisfies readonly (keyof AssistantBody)[];

type B = Required<AssistantBody>;

export interface Normalized {
  values: {
    name?: string;
    type?: 'inbound' | 'outbound';
    mode?: 'pipeline' | 'multimodal';
    record?: boolean;
    reengagement_interval?: number;
    max_duration?: number;
    enable_noise_cancellation?: boolean;
    fillers?: boolean;
    wait_for_customer?: boolean;
    end_call_description?: string | null;
  } & { [K in (typeof SAME_NAME)[number]]?: B[K] };
  /** The name the request used for each normalized key (the spec's name when both were sent). */
  sentAs: Partial<Record<string, string>>;
  errors: ErrorBag;
}

/** The key under which an error about `key` is reported: the field as the request sent it. */
export function fieldOf(n: Normalized, key: string, fallback = key): string {
  return n.sentAs[key] ?? fallback;
}

export function normalize(body: AssistantBody): Normalized {
  const values: Record<string, unknown> = {};
  const sentAs: Record<string, string> = {};
  const errors = new ErrorBag();
  const given = (k: keyof AssistantBody) => body[k] !== undefined;

  for (const pair of ALIAS_PAIRS) {
    const specGiven = given(pair.spec);
    const aliasRaw = body[pair.alias];
    let aliasValue: unknown = aliasRaw;
    if (aliasRaw !== undefined && pair.fromAlias) aliasValue = (pair.fromAlias as (x: unknown) => unknown)(aliasRaw);
    const aliasGiven = aliasValue !== undefined;
    const specValue = specGiven
      ? pair.fromSpec
        ? (pair.fromSpec as (x: unknown) => unknown)(body[pair.spec])
        : body[pair.spec]
      : undefined;
    if (specGiven && aliasGiven && specValue !== aliasValue) {
      errors.add(pair.alias, `The ${attributeName([pair.alias])} field must match ${attributeName([pair.spec])}.`);
      continue;
    }
    if (specGiven) {
      values[pair.key] = specValue;
      sentAs[pair.key] = pair.spec;
    } else if (aliasGiven) {
      values[pair.key] = aliasValue;
      sentAs[pair.key] = pair.alias;
    }
  }
  for (const k of SAME_NAME) {
    if (given(k)) {
      values[k] = body[k];
      sentAs[k] = k;
    }
  }
  return { values: values as Normalized['values'], sentAs, errors };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * `end_call_tool.description` (spec 4.9) arrives either nested, `{end_call_tool: {description}}`
 * (how a Laravel rule key with a dot reads its input), or as the flat key. Folded into the
 * flat key before validation, so both spellings are checked and reported alike; different
 * values under both spellings are a 422 on that field.
 */
export function foldEndCallTool(body: unknown, message: string): unknown {
  if (!isObject(body) || !isObject(body.end_call_tool) || !('description' in body.end_call_tool)) return body;
  const { end_call_tool: nested, ...rest } = body;
  const flat = 'end_call_tool.description';
  if (flat in rest && rest[flat] !== nested.description) {
    throw new ValidationError({ [flat]: ['The end call tool.description field must match end_call_tool.'] }, message);
  }
  return { ...rest, [flat]: nested.description };
}

/**
 * Runs before schema validation on every assistant route with a body: a body that is not a
 * JSON object counts as `{}`; text the database cannot store is a 422 "format is invalid"
 * on the top-level field that holds it (never a 500).
 */
export function prepareBody(body: unknown, message?: string): Record<string, unknown> {
  if (!isObject(body)) return {};
  const bad = Object.keys(body).filter((k) => !isStorableText(k) || !isStorableJson(body[k]));
  if (bad.length) {
    throw new ValidationError(Object.fromEntries(bad.map((k) => [k, [`The ${attributeName([k])} field format is invalid.`]])), message);
  }
  return body;
}
