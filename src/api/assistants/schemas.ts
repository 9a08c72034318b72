/**
 * Request and response shapes of the assistant API (spec 4.8–4.12, CONTRACT §4 and §7).
 *
 * The body schema validates each field on its own (type, range, enum), under the spec's
 * request name and under the record-name alias existing clients send (issue 9, see
 * aliases.ts). Rules that need two fields (required-under-either-name, alias conflicts) or
 * the database (voice, language, model, phone number, tools, stored webhook URL) are checked
 * afterwards in service.ts, so every error key names the field as the request sent it.
 * Unknown fields are stripped, i.e. ignored (issue 9 item 4).
 */
import { z } from 'zod';
import { pageQuery, pageSchema } from '../toolkit/pagination.js';
import { msg, v } from '../toolkit/validation.js';
import { builtinToolsField } from './builtin-tools.js';
import { AMBIENT_SOUNDS } from '../../voice/ambient.js';
import { BACKCHANNEL_WORD_MAX_LENGTH, BACKCHANNEL_WORDS_MAX } from '../../voice/turn/backchannel.js';

const bool = () => v.bool();
/** The record shows these as 1/0; clients echo them back that way, so 1/0 is accepted besides true/false. */
const boolOrBit = () =>
  z
    .union([z.boolean(), z.literal(0), z.literal(1)], { error: msg.boolean })
    .transform((x) => x === true || x === 1);

/** A string that must not be empty (Laravel's `required`), optionally bounded. */
const filled = (max?: number) => {
  const s = z.string({ error: msg.string }).min(1, { error: msg.required });
  return max === undefined ? s : s.max(max, { error: msg.maxString(max) });
};

export const postCallItem = z.object({
  name: filled(255).regex(/^[A-Za-z0-9_]+$/, { error: msg.format }),
  type: v.enum(['string', 'number', 'bool']),
  description: filled(),
});

/** One mood's filler phrases (src/calls/fillers.ts). */
const fillerPhrases = () =>
  v.array(v.string({ max: 200 })).max(20, { error: 'The :attribute field must not have more than 20 items.' }).optional();

const endCallDescription = () => v.string({ max: 500 }).nullable();

/** Every field create and update accept, by the spec's request name and by alias. All optional here. */
export const assistantFields = {
  // ---- spec 4.9 request names
  assistant_name: filled(255),
  voice_id: v.id(),
  language: filled(100),
  llm_model: filled(100),
  calls_direction: v.enum(['receive', 'make']),
  engine_type: v.enum(['pipeline', 'multimodal']),
  timezone: v.timezone(),
  initial_message: v.string(),
  system_prompt: v.string(),
  phone_number_id: v.id().nullable(),
  tool_ids: v.array(v.id()).max(1000, { error: 'The :attribute field must not have more than 1000 items.' }),
  endpoint_type: v.enum(['vad', 'ai']),
  endpoint_sensitivity: v.number({ min: 0, max: 5 }),
  interrupt_sensitivity: v.number({ min: 0, max: 5 }),
  ambient_sound_volume: v.number({ min: 0, max: 1 }),
  post_call_evaluation: bool(),
  send_webhook_only_on_completed: bool(),
  include_recording_in_webhook: bool(),
  is_webhook_active: bool(),
  webhook_url: v.url().nullable(),
  use_min_interrupt_words: bool(),
  min_interrupt_words: v.int({ min: 0, max: 10 }),
  variables: v.object(),
  post_call_schema: v.array(postCallItem),
  'end_call_tool.description': endCallDescription(),
  /** Built-in tools (issue 20), flat or nested items; replaces the assistant's built-in tools. */
  tools: builtinToolsField(),
  end_call_tool: z.object({ description: endCallDescription().optional() }, { error: msg.object }),
  llm_temperature: v.number({ min: 0, max: 1 }),
  voice_stability: v.number({ min: 0, max: 1 }),
  voice_similarity: v.number({ min: 0, max: 1 }),
  speech_speed: v.number({ min: 0.7, max: 1.2 }),
  allow_interruptions: bool(),
  filler_audios: bool(),
  re_engagement_interval: v.int({ min: 7, max: 600 }),
  max_call_duration: v.int({ min: 20, max: 1200 }),
  max_silence_duration: v.int({ min: 1, max: 120 }),
  end_call_on_voicemail: boolOrBit(),
  noise_cancellation: bool(),
  record_call: bool(),
  who_speaks_first: v.enum(['AI assistant', 'Customer']),
  // ---- CONTRACT §7: the update also takes the status
  status: v.enum(['active', 'inactive']),
  // ---- record-name aliases (issue 9, CONTRACT §7); same ranges as their spec names
  name: filled(255),
  type: v.enum(['inbound', 'outbound']),
  mode: v.enum(['pipeline', 'multimodal']),
  language_id: v.id(),
  llm_model_id: v.id(),
  // ---- issue 20: ids of the provider lookups (null: the deployment's choice)
  synthesizer_provider_id: v.id().nullable(),
  transcriber_provider_id: v.id().nullable(),
  record: bool(),
  reengagement_interval: v.int({ min: 7, max: 600 }),
  max_duration: v.int({ min: 20, max: 1200 }),
  enable_noise_cancellation: bool(),
  fillers: boolOrBit(),
  wait_for_customer: bool(),
  // ---- record fields the spec's request list lacks (issue 19: the voice settings they hold work)
  filler_config: z.object(
    { neutral: fillerPhrases(), negative: fillerPhrases(), positive: fillerPhrases(), question: fillerPhrases() },
    { error: msg.object },
  ),
  ambient_sound: v.enum(AMBIENT_SOUNDS),
  /** Extension (issue 19): left on a voicemail box, then the call ends; null or '' clears it. */
  voice_mail_message: v.string({ max: 1000 }).nullable(),
  /** Issue 26: the closing line before a silence hang-up; null: the default line in the assistant's language; '': none. */
  silence_goodbye_message: v.string({ max: 1000 }).nullable(),
  /** Issue 26: the assistant's own backchannel words, added to its language's list; said over a reply they never interrupt it. */
  backchannel_words: v
    .array(filled(BACKCHANNEL_WORD_MAX_LENGTH))
    .max(BACKCHANNEL_WORDS_MAX, { error: `The :attribute field must not have more than ${BACKCHANNEL_WORDS_MAX} items.` }),
  // ---- issue 29: the caller's knowledge base (null: none) and how calls use it
  knowledgebase_id: v.id().nullable(),
  knowledgebase_mode: v.enum(['prompt', 'function_call']),
};

type Fields = typeof assistantFields;
type Optionalized = { [K in keyof Fields]: z.ZodOptional<Fields[K]> };

function optionalAll(): Optionalized {
  const out: Record<string, z.ZodType> = {};
  for (const [k, s] of Object.entries(assistantFields)) out[k] = (s as z.ZodType).optional();
  return out as Optionalized;
}

/** Create (CONTRACT §4: required assistant_name, voice_id, calls_direction — or their aliases) and update bodies. */
export const createAssistantBody = z.object(optionalAll()).describe(
  'Fields of spec 4.9; required: assistant_name (or name), voice_id, calls_direction (or type). Record names are accepted as aliases.',
);
export const updateAssistantBody = z.object(optionalAll()).describe(
  'Fields of spec 4.9, all optional; record names are accepted as aliases; status active/inactive.',
);
export type AssistantBody = z.output<typeof updateAssistantBody>;

export const listQuery = z.object(pageQuery(10));

export const webhookEnableBody = z.object({ assistant_id: v.id(), webhook_url: v.url() });
export const webhookAssistantBody = z.object({ assistant_id: v.id() });

// ---------------------------------------------------------------- responses (OpenAPI)

const int = () => z.number().int();
const nInt = () => z.number().int().nullable();

export const assistantRecordSchema = z.object({
  id: int(),
  user_id: int(),
  phone_number_id: nInt(),
  engine_id: nInt(),
  synthesizer_id: nInt(),
  transcriber_id: nInt(),
  voice_id: int(),
  instance_id: int(),
  name: z.string(),
  variables: z.record(z.string(), z.unknown()),
  post_call_evaluation: z.boolean(),
  fillers: int().describe('1 enabled, 0 disabled'),
  post_call_schema: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
  tools: z.array(
    z.object({
      type: z.string().describe('end_call, a built-in tool type (issue 20) or mid_call_tool'),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
  tool_ids: z.array(int()),
  is_webhook_active: z.boolean(),
  webhook_url: z.string().nullable(),
  inbound_webhook_url: z.string().nullable(),
  language: z.string().nullable(),
  type: z.string().describe('inbound or outbound'),
  status: z.string().describe('active or inactive'),
  max_duration: int(),
  record: z.boolean(),
  initial_message: z.string(),
  system_prompt: z.string(),
  flows_platform_id: nInt(),
  timezone: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  max_silence_duration: int(),
  reengagement_interval: int(),
  deleted_at: z.string().nullable(),
  end_call_on_voicemail: int().describe('1 yes, 0 no'),
  voice_mail_message: z.string().nullable().describe('extension: the message left on a voicemail box (null: none)'),
  silence_goodbye_message: z
    .string()
    .nullable()
    .describe("the closing line said before the call is hung up for the caller's silence (null: the default line in the assistant's language; empty: none)"),
  backchannel_words: z
    .array(z.string())
    .describe('words said over a reply that never interrupt it ("mhm", "yeah"…), in addition to the built-in list of the assistant\'s language'),
  llm_temperature: z.string(),
  voice_stability: z.string(),
  voice_similarity: z.string(),
  allow_interruptions: z.boolean(),
  enable_noise_cancellation: z.boolean(),
  endpoint_sensitivity: z.number(),
  speech_speed: z.string(),
  endpoint_type: z.string(),
  wait_for_customer: z.boolean(),
  mode: z.string(),
  language_id: nInt(),
  transcriber_provider_id: nInt(),
  synthesizer_provider_id: nInt(),
  llm_model_id: nInt(),
  multimodal_model_id: nInt(),
  ambient_sound: z.string(),
  uuid: z.string(),
  send_webhook_only_on_completed: z.boolean(),
  include_recording_in_webhook: z.boolean(),
  interrupt_sensitivity: z.number(),
  filler_config: z.object({
    neutral: z.array(z.string()),
    negative: z.array(z.string()),
    positive: z.array(z.string()),
    question: z.array(z.string()),
  }),
  knowledgebase_id: nInt(),
  knowledgebase_mode: z.string(),
  min_interrupt_words: int(),
  ambient_sound_volume: z.string(),
  widget_settings: z.record(z.string(), z.unknown()),
});

export type AssistantRecord = z.output<typeof assistantRecordSchema>;
export const assistantPageSchema = pageSchema(assistantRecordSchema);
export const createdSchema = z.object({ message: z.string(), data: assistantRecordSchema });
export const readSchema = z.object({ data: assistantRecordSchema });
export const updatedSchema = z.object({
  message: z.string(),
  data: z.object({ id: int(), name: z.string(), status: z.string(), type: z.string(), mode: z.string() }),
});
export const switchSchema = z.object({ message: z.string(), data: z.array(z.unknown()) });
