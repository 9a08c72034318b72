/**
 * The one database schema of Switchboard. Every table lives here; migrations under
 * ./migrations are generated from it with `npm run db:generate` and checked in. Over 400 lines
 * by design: drizzle-kit reads one schema, and every table (with its indexes and the comments
 * that say what each column holds) stands in one place; it has no logic to split by job.
 *
 * Timestamps are `timestamptz(6)` read as strings (mode 'string') so that the microseconds
 * the spec shows survive the round trip; src/db/time.ts formats them for the API.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  real,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 6, mode: 'string' });
const createdAt = () => ts('created_at').notNull().defaultNow();
const updatedAt = () => ts('updated_at').notNull().defaultNow();

// ---------------------------------------------------------------- accounts

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  maxTools: integer('max_tools').notNull().default(5),
  maxCallsInParallel: integer('max_calls_in_parallel').notNull().default(10),
  webhookSecret: text('webhook_secret').notNull(),
  /**
   * Set when an operator disabled the account (CLI `users disable`, admin API): its tokens are
   * refused at once and its campaigns stop; null = active. Kept as a time, not a flag, so the
   * operator can see when it happened.
   */
  disabledAt: ts('disabled_at'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex('users_email_unique').on(sql`lower(${t.email})`)]);

export const apiTokens = pgTable('api_tokens', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  revokedAt: ts('revoked_at'),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('api_tokens_hash_unique').on(t.tokenHash), index('api_tokens_user_idx').on(t.userId)]);

/** Key/value settings of the deployment itself (e.g. the hash of the generated admin token). */
export const systemSettings = pgTable('system_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- reference data

export const languages = pgTable('languages', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  iso2: text('iso_2').notNull(),
}, (t) => [uniqueIndex('languages_name_unique').on(t.name)]);

export const llmModels = pgTable('llm_models', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
}, (t) => [uniqueIndex('llm_models_name_unique').on(t.name)]);

export const voices = pgTable('voices', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  mode: text('mode').notNull(), // 'pipeline' | 'multimodal'
  /** null = public voice */
  userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
  /**
   * Who speaks this voice (issue 19): `local` (eSpeak NG, no key), `elevenlabs` or `openai`
   * (an OpenAI-compatible speech server; for multimodal voices the Realtime server).
   */
  provider: text('provider').notNull().default('local'),
  /** That provider's own voice id; null = the provider's default (for `local`: per the assistant's language). */
  providerVoiceId: text('provider_voice_id'),
  createdAt: createdAt(),
}, (t) => [index('voices_user_idx').on(t.userId)]);

/**
 * A user's own keys for speech providers (issue 19), used for that user's calls instead of
 * the deployment's. Sealed with SECRET_KEY (src/lib/secrets.ts); only the last characters are
 * ever shown again.
 */
export const providerCredentials = pgTable('provider_credentials', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** `deepgram`, `elevenlabs`, `llm` or `openai`. */
  provider: text('provider').notNull(),
  sealedKey: text('sealed_key').notNull(),
  /** `llm` only: the OpenAI-compatible chat server's base URL (null: OPENAI_API_URL). */
  baseUrl: text('base_url'),
  /** What the API shows, e.g. `••••a1b2`. */
  keyHint: text('key_hint').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex('provider_credentials_user_provider_unique').on(t.userId, t.provider)]);

export const phoneNumbers = pgTable('phone_numbers', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  phoneNumber: text('phone_number').notNull(),
  countryCode: text('country_code').notNull(),
  typeLabel: text('type_label').notNull(), // 'Normal' | 'SIP' | 'Caller ID'
  /** The carrier that owns the number: `sandbox` (simulated) or `twilio`. */
  carrier: text('carrier').notNull().default('sandbox'),
  /** The carrier's own id of the number (Twilio's `PN…`), when it has one. */
  carrierSid: text('carrier_sid'),
  /** The owner's own name for the number ("Berlin office"); null = none. Not part of the spec's record. */
  label: text('label'),
  createdAt: createdAt(),
}, (t) => [
  index('phone_numbers_user_idx').on(t.userId),
  // A number rings one account: two accounts holding it would both claim its inbound calls.
  uniqueIndex('phone_numbers_number_unique').on(t.phoneNumber),
]);

/**
 * An account's own credentials at a carrier (issue 16: Twilio's account SID with its auth
 * token, and optionally an API key used for REST instead). The secrets are sealed together
 * with SECRET_KEY (src/lib/secrets.ts) as JSON; the API shows only `secret_hint`.
 */
export const carrierAccounts = pgTable('carrier_accounts', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  carrier: text('carrier').notNull(),
  accountSid: text('account_sid').notNull(),
  apiKeySid: text('api_key_sid'),
  sealedSecrets: text('sealed_secrets').notNull(),
  secretHint: text('secret_hint').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex('carrier_accounts_user_carrier_unique').on(t.userId, t.carrier)]);

// ---------------------------------------------------------------- mid-call tools

export type ToolHeader = { name: string; value: string };
export type ToolParam = { name: string; type: 'string' | 'number' | 'boolean'; description: string };

export const tools = pgTable('tools', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull(),
  endpoint: text('endpoint').notNull(),
  method: text('method').notNull(),
  timeout: integer('timeout').notNull().default(10),
  headers: jsonb('headers').$type<ToolHeader[]>().notNull().default([]),
  schema: jsonb('schema').$type<ToolParam[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('tools_user_idx').on(t.userId)]);

// ---------------------------------------------------------------- assistants

export type PostCallField = { name: string; type: 'string' | 'number' | 'bool'; description: string };
/**
 * A built-in tool of an assistant as stored (issue 20; validated in src/api/assistants/builtin-tools.ts,
 * run in calls by src/calls/builtin-tools). The Cal.com key is sealed (src/lib/secrets.ts) with its hint beside it.
 */
type Opt = string | null | undefined;
export type StoredBuiltinTool =
  | { type: 'end_call'; data: { description?: Opt } }
  | {
      type: 'call_transfer';
      data: { phone_number: string; description?: Opt; warm_transfer: boolean; warm_transfer_message?: Opt; timezone?: Opt };
    }
  | {
      type: 'warm_call_transfer';
      data: {
        supervisor_phone: string;
        outbound_phone_id: number;
        description: string;
        caller_id_mode: 'outbound_number' | 'customer_number' | 'custom';
        custom_caller_id?: Opt;
        hold_music: 'hold_music' | 'none';
        hold_music_volume: number;
        hold_message?: Opt;
        summary_instructions?: Opt;
        briefing_initial_message?: Opt;
        connected_message?: Opt;
      };
    }
  | { type: 'dtmf_input'; data: { description?: Opt } }
  | { type: 'collect_keypad'; data: { timeout: number; stop_key?: '#' | '*' | null } }
  | {
      type: 'assistant_transfer';
      data: { assistant_id: number; description?: Opt; message_before_transfer?: Opt; speak_transfer_greeting: boolean };
    }
  | {
      type: 'calendar_integration';
      data: {
        calcom_api_key_sealed: string;
        calcom_api_key_hint: string;
        calcom_event_slug: string;
        calcom_team_slug?: Opt;
        calcom_endpoint: 'us' | 'eu' | 'custom';
        calcom_custom_endpoint?: Opt;
        calcom_booking_fields: string[];
      };
    };
export type FillerConfig = { neutral: string[]; negative: string[]; positive: string[]; question: string[] };

/** Every built-in tool type, in the order the API lists them (one list for the API and the assistant tests). */
export const BUILTIN_TOOL_TYPES = [
  'end_call',
  'call_transfer',
  'warm_call_transfer',
  'dtmf_input',
  'collect_keypad',
  'assistant_transfer',
  'calendar_integration',
] as const satisfies readonly StoredBuiltinTool['type'][];
// Every stored type is in the list (a type added to the union and not here fails to compile).
const _everyBuiltinTypeListed: Exclude<StoredBuiltinTool['type'], (typeof BUILTIN_TOOL_TYPES)[number]> extends never ? true : never = true;
void _everyBuiltinTypeListed;

export const assistants = pgTable('assistants', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  uuid: uuid('uuid').notNull().defaultRandom(),
  name: text('name').notNull(),
  type: text('type').notNull(), // 'inbound' | 'outbound'
  status: text('status').notNull().default('active'),
  mode: text('mode').notNull().default('pipeline'),
  phoneNumberId: integer('phone_number_id').references(() => phoneNumbers.id, { onDelete: 'set null' }),
  engineId: integer('engine_id'),
  synthesizerId: integer('synthesizer_id'),
  transcriberId: integer('transcriber_id'),
  voiceId: integer('voice_id').notNull().references(() => voices.id),
  instanceId: integer('instance_id').notNull().default(1),
  variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
  postCallEvaluation: boolean('post_call_evaluation').notNull().default(true),
  fillers: boolean('fillers').notNull().default(false),
  postCallSchema: jsonb('post_call_schema').$type<PostCallField[]>().notNull().default([]),
  endCallToolDescription: text('end_call_tool_description'),
  /** Built-in tools (issue 20) as `{type, data}`; API keys inside are sealed (src/api/assistants/builtin-tools.ts). */
  builtinTools: jsonb('builtin_tools').$type<StoredBuiltinTool[]>().notNull().default([]),
  isWebhookActive: boolean('is_webhook_active').notNull().default(false),
  webhookUrl: text('webhook_url'),
  inboundWebhookUrl: text('inbound_webhook_url'),
  language: text('language'),
  languageId: integer('language_id').references(() => languages.id),
  llmModelId: integer('llm_model_id').references(() => llmModels.id),
  multimodalModelId: integer('multimodal_model_id'),
  transcriberProviderId: integer('transcriber_provider_id'),
  synthesizerProviderId: integer('synthesizer_provider_id'),
  maxDuration: integer('max_duration').notNull().default(600),
  record: boolean('record').notNull().default(false),
  initialMessage: text('initial_message').notNull().default(''),
  systemPrompt: text('system_prompt').notNull().default(''),
  flowsPlatformId: integer('flows_platform_id'),
  timezone: text('timezone').notNull().default('UTC'),
  maxSilenceDuration: integer('max_silence_duration').notNull().default(40),
  reengagementInterval: integer('reengagement_interval').notNull().default(30),
  endCallOnVoicemail: boolean('end_call_on_voicemail').notNull().default(false),
  /** Extension (issue 19): the message left on a voicemail box; null: none (docs/decisions.md). */
  voiceMailMessage: text('voice_mail_message'),
  /** Issue 26: said before a silence hang-up; null: the default line in the assistant's language, '': none. */
  silenceGoodbyeMessage: text('silence_goodbye_message'),
  /** Issue 26: the assistant's own backchannel words ("mhm" and the like): said over a reply, they never interrupt it. */
  backchannelWords: jsonb('backchannel_words').$type<string[]>().notNull().default([]),
  llmTemperature: numeric('llm_temperature', { precision: 4, scale: 2 }).notNull().default('0.10'),
  voiceStability: numeric('voice_stability', { precision: 4, scale: 2 }).notNull().default('0.70'),
  voiceSimilarity: numeric('voice_similarity', { precision: 4, scale: 2 }).notNull().default('0.50'),
  speechSpeed: numeric('speech_speed', { precision: 4, scale: 2 }).notNull().default('1.00'),
  ambientSoundVolume: numeric('ambient_sound_volume', { precision: 4, scale: 2 }).notNull().default('0.50'),
  allowInterruptions: boolean('allow_interruptions').notNull().default(true),
  enableNoiseCancellation: boolean('enable_noise_cancellation').notNull().default(false),
  endpointSensitivity: numeric('endpoint_sensitivity', { precision: 4, scale: 2 }).notNull().default('0.50'),
  interruptSensitivity: numeric('interrupt_sensitivity', { precision: 4, scale: 2 }).notNull().default('0.50'),
  endpointType: text('endpoint_type').notNull().default('vad'),
  waitForCustomer: boolean('wait_for_customer').notNull().default(false),
  ambientSound: text('ambient_sound').notNull().default('none'),
  sendWebhookOnlyOnCompleted: boolean('send_webhook_only_on_completed').notNull().default(true),
  includeRecordingInWebhook: boolean('include_recording_in_webhook').notNull().default(true),
  fillerConfig: jsonb('filler_config').$type<FillerConfig>().notNull()
    .default({ neutral: [], negative: [], positive: [], question: [] }),
  /** Issue 29: the owner's knowledge base; deleting it detaches it (set null). */
  knowledgebaseId: integer('knowledgebase_id').references(() => knowledgeBases.id, { onDelete: 'set null' }),
  knowledgebaseMode: text('knowledgebase_mode').notNull().default('function_call'),
  minInterruptWords: integer('min_interrupt_words').notNull().default(0),
  widgetSettings: jsonb('widget_settings').$type<Record<string, unknown>>().notNull().default({}),
  /** The number of its newest entry in assistant_versions (1 until the first change). */
  version: integer('version').notNull().default(1),
  deletedAt: ts('deleted_at'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('assistants_user_idx').on(t.userId, t.id),
  // An inbound number belongs to at most one live inbound assistant.
  uniqueIndex('assistants_inbound_number_unique').on(t.phoneNumberId)
    .where(sql`${t.type} = 'inbound' and ${t.deletedAt} is null and ${t.phoneNumberId} is not null`),
]);

export const assistantTools = pgTable('assistant_tools', {
  assistantId: integer('assistant_id').notNull().references(() => assistants.id, { onDelete: 'cascade' }),
  toolId: integer('tool_id').notNull().references(() => tools.id, { onDelete: 'cascade' }),
  position: integer('position').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.assistantId, t.toolId] }), index('assistant_tools_tool_idx').on(t.toolId)]);

// ---------------------------------------------------------------- campaigns and leads

export const campaigns = pgTable('campaigns', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  assistantId: integer('assistant_id').notNull().references(() => assistants.id),
  name: text('name').notNull(),
  status: text('status').notNull().default('draft'), // draft | in-progress | stopped | completed
  timezone: text('timezone').notNull(),
  maxCallsInParallel: integer('max_calls_in_parallel').notNull().default(3),
  allowedHoursStartTime: text('allowed_hours_start_time').notNull().default('00:00'),
  allowedHoursEndTime: text('allowed_hours_end_time').notNull().default('23:59'),
  allowedDays: jsonb('allowed_days').$type<string[]>().notNull()
    .default(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']),
  maxRetries: integer('max_retries').notNull().default(3),
  retryInterval: integer('retry_interval').notNull().default(60),
  retryOnVoicemail: boolean('retry_on_voicemail').notNull().default(false),
  retryOnGoalIncomplete: boolean('retry_on_goal_incomplete').notNull().default(false),
  goalCompletionVariable: text('goal_completion_variable'),
  markCompleteWhenNoLeads: boolean('mark_complete_when_no_leads').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('campaigns_user_idx').on(t.userId, t.id), index('campaigns_status_idx').on(t.status)]);

export const leads = pgTable('leads', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  phoneNumber: text('phone_number').notNull(),
  variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
  status: text('status').notNull().default('created'), // created | completed | reached-max-retries
  /** Attempts on the primary number. */
  attempts: integer('attempts').notNull().default(0),
  /** When the dialer may call this lead next; null = now. */
  nextAttemptAt: ts('next_attempt_at'),
  /** The call currently in progress for this lead (any contact), if any. */
  currentCallId: integer('current_call_id'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('leads_user_idx').on(t.userId, t.id),
  index('leads_campaign_due_idx').on(t.campaignId, t.status, t.nextAttemptAt),
  index('leads_campaign_phone_idx').on(t.campaignId, t.phoneNumber),
  // The dialer's settlement and reconciliation find a lead by the call it is in (src/dialer).
  index('leads_current_call_idx').on(t.currentCallId).where(sql`${t.currentCallId} is not null`),
]);

export const secondaryContacts = pgTable('secondary_contacts', {
  id: serial('id').primaryKey(),
  leadId: integer('lead_id').notNull().references(() => leads.id, { onDelete: 'cascade' }),
  position: integer('position').notNull().default(0),
  phoneNumber: text('phone_number').notNull(),
  variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
  status: text('status').notNull().default('created'),
  attempts: integer('attempts').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('secondary_contacts_lead_idx').on(t.leadId, t.position)]);

// ---------------------------------------------------------------- calls

export const calls = pgTable('calls', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  assistantId: integer('assistant_id').references(() => assistants.id, { onDelete: 'set null' }),
  assistantName: text('assistant_name').notNull(),
  campaignId: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
  campaignName: text('campaign_name'),
  leadId: integer('lead_id').references(() => leads.id, { onDelete: 'set null' }),
  secondaryContactId: integer('secondary_contact_id').references(() => secondaryContacts.id, { onDelete: 'set null' }),
  type: text('type').notNull(), // inbound | outbound | web
  status: text('status').notNull().default('initiated'),
  duration: integer('duration').notNull().default(0),
  assistantPhoneNumber: text('assistant_phone_number').notNull().default(''),
  clientPhoneNumber: text('client_phone_number').notNull(),
  transcript: text('transcript').notNull().default(''),
  variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
  evaluation: jsonb('evaluation').$type<Record<string, unknown>>().notNull().default({}),
  webhookResponse: jsonb('webhook_response').$type<Record<string, unknown>>().notNull().default({}),
  carrierCost: numeric('carrier_cost', { precision: 16, scale: 8 }).notNull().default('0'),
  totalCost: numeric('total_cost', { precision: 16, scale: 8 }).notNull().default('0'),
  answeredBy: text('answered_by').notNull().default('unknown'),
  recordingUrl: text('recording_url'),
  /** Which process runs the live call (for crash recovery). */
  ownerInstance: text('owner_instance'),
  /** The carrier the call runs on (copied from the assistant's number when it was placed). */
  carrier: text('carrier').notNull().default('sandbox'),
  /** The carrier's id of the call (Twilio's `CA…`). */
  carrierCallSid: text('carrier_call_sid'),
  /** SHA-256 of the one-time token the carrier's media stream must present; cleared when used. */
  mediaTokenHash: text('media_token_hash'),
  answeredAt: ts('answered_at'),
  endedAt: ts('ended_at'),
  /** The assistant's version (assistant_versions.number) when the call was placed. */
  assistantVersion: integer('assistant_version'),
  /**
   * `[{name, arguments}]`: the functions the model called, in order (mid-call tools and
   * built-ins), from the final record; not part of the call record (a call turned into a test
   * scenario reads it: POST /api/user/calls/{id}/test-scenario).
   */
  toolCalls: jsonb('tool_calls').$type<{ name: string; arguments: unknown }[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // The call list (newest first, CONTRACT §3) with each filter: every index ends in
  // (created_at desc, id desc) so a page is an ordered index range and, with the id in the
  // key, the page's ids and the count come from index-only scans (src/api/calls/service.ts).
  index('calls_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
  index('calls_user_status_created_idx').on(t.userId, t.status, t.createdAt.desc(), t.id.desc()),
  index('calls_user_assistant_created_idx').on(t.userId, t.assistantId, t.createdAt.desc(), t.id.desc()),
  index('calls_user_campaign_created_idx').on(t.userId, t.campaignId, t.createdAt.desc(), t.id.desc()),
  index('calls_user_client_phone_idx').on(t.userId, t.clientPhoneNumber, t.createdAt.desc(), t.id.desc()),
  index('calls_live_idx').on(t.status).where(sql`${t.status} in ('initiated', 'ringing', 'in-progress')`),
  index('calls_lead_idx').on(t.leadId),
  // Carrier callbacks without our id (an inbound number's status callback) find the call by the carrier's.
  index('calls_carrier_call_sid_idx').on(t.carrierCallSid).where(sql`${t.carrierCallSid} is not null`),
]);

/**
 * Running totals of each user's calls by status and type, kept by triggers on `calls`
 * (migration 0006_call_counts): the call list's total without counting the user's whole index
 * range when it filters by nothing but status and/or type (src/api/calls/service.ts).
 */
export const callCounts = pgTable('call_counts', {
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  status: text('status').notNull(),
  type: text('type').notNull(),
  /**
   * Calls spread over 16 counter rows per (user, status, type) by id, so one user's many
   * concurrent calls do not queue on a single row lock; readers sum the shards, and a fold
   * every minute moves them back into shard 0 (migration 0008). A shard may be negative.
   */
  shard: smallint('shard').notNull().default(0),
  n: bigint('n', { mode: 'number' }).notNull().default(0),
}, (t) => [
  primaryKey({ columns: [t.userId, t.status, t.type, t.shard] }),
  // The rows the fold (src/calls/call-counts.ts) moves into shard 0, without reading the rest.
  index('call_counts_unfolded_idx').on(t.userId).where(sql`${t.shard} <> 0`),
]);

// ---------------------------------------------------------------- webhooks

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  callId: integer('call_id').notNull().references(() => calls.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** The Standard Webhooks message id, stable across retries of one message. */
  messageId: text('message_id').notNull(),
  kind: text('kind').notNull(), // 'post_call' | 'inbound'
  url: text('url').notNull(),
  attempt: integer('attempt').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms'),
  error: text('error'),
  createdAt: createdAt(),
}, (t) => [index('webhook_deliveries_call_idx').on(t.callId, t.id)]);

// ---------------------------------------------------------------- call engine instances

/** Live service processes (heartbeat), so a process can tell which live calls were orphaned by a dead one. */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  heartbeatAt: ts('heartbeat_at').notNull().defaultNow(),
  startedAt: ts('started_at').notNull().defaultNow(),
});

// ---------------------------------------------------------------- call turns (issue 19)

/**
 * One row per turn of a voice call (GET /api/user/calls/{id}/turns): what the caller said,
 * what the assistant said (only what the caller heard, when interrupted), and when each stage
 * of the turn got going, in milliseconds from the turn's start (`started_at`: the caller's end
 * of speech, or the moment the assistant chose to speak on its own: greeting, re-engagement).
 * Null timings: that stage did not happen in the turn. Written by src/calls/turns.ts.
 */
/** One use of a knowledge base in a call's turn, as stored. */
export interface TurnKnowledgeJson {
  mode: 'function_call' | 'prompt';
  query: string | null;
  passages: { document_id: number; document_name: string; chunk_id: number | null; heading: string; score: number | null }[];
}

export const callTurns = pgTable('call_turns', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  callId: integer('call_id').notNull().references(() => calls.id, { onDelete: 'cascade' }),
  /** 0-based, in the order the turns began. */
  position: integer('position').notNull(),
  kind: text('kind').notNull(), // greeting | reply | reengagement | voicemail
  startedAt: ts('started_at').notNull(),
  callerText: text('caller_text'),
  assistantText: text('assistant_text').notNull().default(''),
  interrupted: boolean('interrupted').notNull().default(false),
  finalTranscriptMs: integer('final_transcript_ms'),
  llmFirstTokenMs: integer('llm_first_token_ms'),
  ttsFirstByteMs: integer('tts_first_byte_ms'),
  firstAudioMs: integer('first_audio_ms'),
  /** `[{at_ms, heard_text}]`: each time the caller cut the assistant off in this turn. */
  bargeIns: jsonb('barge_ins').$type<{ at_ms: number; heard_text: string }[]>().notNull().default([]),
  /** `[{at_ms, text, reason}]`: filler phrases spoken while a tool ran or the LLM was slow. */
  fillers: jsonb('fillers').$type<{ at_ms: number; text: string; reason: string }[]>().notNull().default([]),
  /** `{stage, message}`: the first provider failure (stt, llm, tts) in this turn; null when none. */
  error: jsonb('error').$type<{ stage: string; message: string }>(),
  /** `[{mode, query, passages: [{document_id, document_name, chunk_id, heading, score}]}]`: the knowledge base's passages this turn used. */
  knowledge: jsonb('knowledge').$type<TurnKnowledgeJson[]>().notNull().default([]),
  /** `[{at_ms, name, arguments, ok, answer, duration_ms}]`: the functions the model called in this turn, with their answers. */
  toolCalls: jsonb('tool_calls').$type<{ at_ms: number; name: string; arguments: string; ok: boolean; answer: string; duration_ms: number }[]>().notNull().default([]),
}, (t) => [
  uniqueIndex('call_turns_call_position_idx').on(t.callId, t.position),
  // The results page's reply latency (src/api/results/service.ts): each reply's first-audio time
  // by call, read from this index alone instead of every turn's wide row.
  index('call_turns_reply_latency_idx').on(t.callId, t.firstAudioMs).where(sql`${t.kind} = 'reply' and ${t.firstAudioMs} is not null`),
]);

// ---------------------------------------------------------------- browser calls

/**
 * One-time tokens that open a browser call's media socket. Only the hash is kept; the socket
 * that presents the token deletes the row, so a token opens one socket, once, before it expires.
 */
export const webCallTokens = pgTable('web_call_tokens', {
  callId: integer('call_id').primaryKey().references(() => calls.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  mode: text('mode').notNull(),
  expiresAt: ts('expires_at').notNull(),
  /**
   * When the page's socket spent the token (null: not yet). Until then the call takes none of the
   * owner's parallel slots (src/calls/limits.ts `takesSlot()`); the row stays while the call lives,
   * naming the widget key and visitor it came from, and is pruned after (src/calls/recovery.ts).
   */
  spentAt: ts('spent_at'),
  /** The widget key a visitor's call came from (null: a dashboard call). */
  widgetKeyId: integer('widget_key_id').references(() => widgetKeys.id, { onDelete: 'set null' }),
  /** The visitor's address (widget calls): the per-address limit counts by it. */
  visitor: text('visitor'),
});

/**
 * Public keys of the embeddable widget, one assistant each. A widget key is meant to sit in a
 * customer's web page, so it is not a secret: it is stored as it is and shown again; what
 * protects it are the allowed origins, the rate limits and revocation.
 */
export const widgetKeys = pgTable('widget_keys', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  assistantId: integer('assistant_id').notNull().references(() => assistants.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull(),
  createdAt: createdAt(),
  revokedAt: ts('revoked_at'),
}, (t) => [uniqueIndex('widget_keys_key_unique').on(t.key), index('widget_keys_assistant_idx').on(t.assistantId)]);

// ---------------------------------------------------------------- knowledge bases (issue 29)

/** A PostgreSQL full-text vector; written only by SQL (src/knowledge/store.ts), never read into JS. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Binary file contents (an uploaded PDF or DOCX until it is processed). */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

export const knowledgeBases = pgTable('knowledge_bases', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('knowledge_bases_user_idx').on(t.userId, t.id)]);

/**
 * One source of a knowledge base: a website (crawled), a text, or an uploaded file. `source`
 * keeps what processing needs (the upload's bytes, the text, the start URLs) so the job can run
 * again after a restart; `text` is the extracted text of the last successful processing.
 */
export const knowledgeDocuments = pgTable('knowledge_documents', {
  id: serial('id').primaryKey(),
  knowledgeBaseId: integer('knowledge_base_id').notNull().references(() => knowledgeBases.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  type: text('type').notNull(), // website | text | pdf | txt | docx
  name: text('name').notNull(),
  url: text('url'),
  links: jsonb('links').$type<string[]>(),
  relativeLinksLimit: integer('relative_links_limit'),
  content: text('content'),
  file: bytea('file'),
  fileName: text('file_name'),
  status: text('status').notNull().default('processing'), // processing | ready | failed
  error: text('error'),
  /** Bumped by every (re-)processing request; a job whose generation is stale does nothing. */
  generation: integer('generation').notNull().default(1),
  text: text('text'),
  pages: jsonb('pages').$type<string[]>(),
  chunkCount: integer('chunk_count').notNull().default(0),
  processedAt: ts('processed_at'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('knowledge_documents_kb_idx').on(t.knowledgeBaseId, t.id)]);

/**
 * The searchable passages. `tsv` is weighted (heading A, body D) in the chunk's own text-search
 * configuration and built from the unaccented text when `unaccent` is installed; `embedding`
 * is filled only when an embeddings server is configured.
 */
export const knowledgeChunks = pgTable('knowledge_chunks', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  documentId: integer('document_id').notNull().references(() => knowledgeDocuments.id, { onDelete: 'cascade' }),
  knowledgeBaseId: integer('knowledge_base_id').notNull().references(() => knowledgeBases.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  heading: text('heading').notNull().default(''),
  content: text('content').notNull(),
  source: text('source'),
  language: text('language').notNull().default('simple'),
  tsv: tsvector('tsv').notNull(),
  embedding: real('embedding').array(),
}, (t) => [
  index('knowledge_chunks_document_idx').on(t.documentId, t.position),
  index('knowledge_chunks_kb_idx').on(t.knowledgeBaseId),
  index('knowledge_chunks_tsv_idx').using('gin', t.tsv),
]);

/**
 * Every saved state of an assistant: its record (as the API shows it) after each create,
 * update, webhook switch or restore, numbered from 1 per assistant, so that a change can be
 * compared and undone (docs/decisions.md, "Assistant versions").
 */
export const assistantVersions = pgTable('assistant_versions', {
  id: serial('id').primaryKey(),
  assistantId: integer('assistant_id').notNull().references(() => assistants.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  number: integer('number').notNull(),
  record: jsonb('record').$type<Record<string, unknown>>().notNull(),
  /** What made it: `create`, `update`, `webhook`, `restore` (with `restoredFrom`), `baseline`. */
  action: text('action').notNull(),
  restoredFrom: integer('restored_from'),
  /** Who: the account's name, and the client the request came from (`api`, `dashboard`, `cli`). */
  author: text('author').notNull(),
  via: text('via').notNull().default('api'),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('assistant_versions_number_unique').on(t.assistantId, t.number)]);

// ---------------------------------------------------------------- assistant tests (issue 30)

/** Scenario documents stored in Switchboard for an assistant (YAML or JSON source, kept as written). */
export const assistantTestScenarios = pgTable('assistant_test_scenarios', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  assistantId: integer('assistant_id').notNull().references(() => assistants.id, { onDelete: 'cascade' }),
  /** The document's `name`, copied when it is saved (lists show it without parsing). */
  name: text('name').notNull(),
  source: text('source').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('assistant_test_scenarios_assistant_idx').on(t.assistantId, t.id)]);

/**
 * One test run of an assistant: the scenarios it ran (their sources as given), the version or
 * unsaved changes it ran with, and its outcome. Not a call: nothing here reaches the call
 * list, campaigns, webhooks or costs.
 */
export const assistantTestRuns = pgTable('assistant_test_runs', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  assistantId: integer('assistant_id').notNull().references(() => assistants.id, { onDelete: 'cascade' }),
  /** assistant_versions.number it ran with (the current one when the run was asked for, unless named). */
  assistantVersion: integer('assistant_version'),
  /** Unsaved changes it ran with (fields of the update request), null for none. */
  overrides: jsonb('overrides').$type<Record<string, unknown>>(),
  /** `[{name, source, scenario_id}]`: what it runs, in order. */
  scenarios: jsonb('scenarios').$type<{ name: string; source: string; scenario_id: number | null; index?: number }[]>().notNull(),
  status: text('status').notNull().default('queued'), // queued | running | passed | failed | error
  total: integer('total').notNull().default(0),
  passed: integer('passed').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  errored: integer('errored').notNull().default(0),
  /** Why the whole run is `error` (e.g. interrupted by a restart). */
  error: text('error'),
  /** The process running it (a run of a process that died is marked `error`). */
  ownerInstance: text('owner_instance'),
  createdAt: createdAt(),
  startedAt: ts('started_at'),
  finishedAt: ts('finished_at'),
}, (t) => [
  index('assistant_test_runs_assistant_idx').on(t.assistantId, t.createdAt.desc(), t.id.desc()),
  index('assistant_test_runs_live_idx').on(t.status).where(sql`${t.status} in ('queued', 'running')`),
]);

/** One repeat of one scenario of a run: what was said and done, and each assertion's outcome. */
export const assistantTestResults = pgTable('assistant_test_results', {
  id: serial('id').primaryKey(),
  runId: integer('run_id').notNull().references(() => assistantTestRuns.id, { onDelete: 'cascade' }),
  /** The scenario's index in the run's `scenarios`, and the repeat (0-based). */
  position: integer('position').notNull(),
  repeat: integer('repeat').notNull(),
  status: text('status').notNull(), // passed | failed | error
  endStatus: text('end_status'),
  transcript: jsonb('transcript').$type<unknown[]>().notNull().default([]),
  toolRequests: jsonb('tool_requests').$type<unknown[]>().notNull().default([]),
  turns: jsonb('turns').$type<unknown[]>().notNull().default([]),
  assertions: jsonb('assertions').$type<unknown[]>().notNull().default([]),
  variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
  error: text('error'),
  durationMs: integer('duration_ms').notNull().default(0),
  createdAt: createdAt(),
}, (t) => [uniqueIndex('assistant_test_results_run_position_idx').on(t.runId, t.position, t.repeat)]);
