/**
 * The engine's statements on the hot path of a call, as plain `$n` SQL: the per-user live-call
 * limit, the call record's INSERT, and the atomic claim that loads everything a session needs
 * (assistant, voice, language, mid-call tools) in one round trip.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { FillerConfig, PostCallField, StoredBuiltinTool } from '../db/schema.js';
import type { CallStatus } from './state-machine.js';
import type { MidCallTool } from './tool-runner.js';
import type { PlaceCallInput } from './types.js';
import type { AssistantVoiceRow } from '../voice/factory.js';
import type { VoiceSettingsRow } from '../voice/speech-options.js';
import { synthesizerById, transcriberById } from '../providers/catalog.js';
import { takesSlot } from './limits.js';

export const LIVE = `('initiated', 'ringing', 'in-progress')`;

export const LOCK_AND_LIMIT = `SELECT pg_advisory_xact_lock($1::int, $2::int), max_calls_in_parallel AS max FROM users WHERE id = $2`;

/** Whether the user has this assistant (INSERT_CALL inserted nothing: a missing assistant, else the limit). */
export const ASSISTANT_EXISTS = `SELECT 1 FROM assistants WHERE id = $1::int AND user_id = $2::int`;

/** One INSERT ... SELECT copying the assistant's name and number and the campaign's name; with $13, only below that many live calls. */
export const INSERT_CALL = `
  INSERT INTO calls (user_id, assistant_id, assistant_name, campaign_id, campaign_name, lead_id, secondary_contact_id,
                     type, status, assistant_phone_number, client_phone_number, variables, owner_instance, carrier, assistant_version)
  SELECT a.user_id, a.id, a.name, $3::int, (SELECT c.name FROM campaigns c WHERE c.id = $3::int), $4::int, $5::int,
         $6::text, 'initiated', coalesce(p.phone_number, ''), $7::text, $8::jsonb, $9::text,
         CASE WHEN $6::text = 'web' THEN 'web' ELSE coalesce(p.carrier, 'sandbox') END, a.version
    FROM assistants a
    LEFT JOIN phone_numbers p ON p.id = a.phone_number_id
   WHERE a.id = $1::int AND a.user_id = $2::int
     AND ($10::int IS NULL OR (SELECT count(*) FROM calls l WHERE l.user_id = $2::int AND ${takesSlot('l')}) < $10::int)
  RETURNING id`;

/**
 * INSERT_CALL for many calls at once (the dialer's claim): one row per element of the arrays,
 * inserted in array order, so call ids ascend in that order. created_at is the row's own
 * clock time, not the transaction's start: the claim checks the limits under its lock first,
 * and a call's recorded interval must not start before the slot it took was free. A call
 * whose assistant is not its user's is not inserted. Called with `insertManyValues`.
 */
export const INSERT_CALLS = `
  INSERT INTO calls (user_id, assistant_id, assistant_name, campaign_id, campaign_name, lead_id, secondary_contact_id,
                     type, status, assistant_phone_number, client_phone_number, variables, owner_instance, carrier, created_at,
                     assistant_version)
  SELECT a.user_id, a.id, a.name, x.campaign_id, c.name, x.lead_id, x.secondary_contact_id,
         x.type, 'initiated', coalesce(p.phone_number, ''), x.client_phone_number, x.variables, $9::text,
         CASE WHEN x.type = 'web' THEN 'web' ELSE coalesce(p.carrier, 'sandbox') END, clock_timestamp(), a.version
    FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::jsonb[]) WITH ORDINALITY
         AS x(assistant_id, user_id, campaign_id, lead_id, secondary_contact_id, type, client_phone_number, variables, position)
    JOIN assistants a ON a.id = x.assistant_id AND a.user_id = x.user_id
    LEFT JOIN phone_numbers p ON p.id = a.phone_number_id
    LEFT JOIN campaigns c ON c.id = x.campaign_id
   ORDER BY x.position
  RETURNING id`;

/** The parameters of INSERT_CALLS: one array per column, in the order of `inputs`. */
export function insertManyValues(inputs: readonly PlaceCallInput[], instanceId: string): unknown[] {
  return [
    inputs.map((i) => i.assistantId),
    inputs.map((i) => i.userId),
    inputs.map((i) => i.campaignId ?? null),
    inputs.map((i) => i.leadId ?? null),
    inputs.map((i) => i.secondaryContactId ?? null),
    inputs.map((i) => i.type ?? 'outbound'),
    inputs.map((i) => i.to),
    inputs.map((i) => JSON.stringify(i.variables ?? {})),
    instanceId,
  ];
}

export function insertValues(input: PlaceCallInput, instanceId: string, maxLive: number | null): unknown[] {
  return [
    input.assistantId,
    input.userId,
    input.campaignId ?? null,
    input.leadId ?? null,
    input.secondaryContactId ?? null,
    input.type ?? 'outbound',
    input.to,
    JSON.stringify(input.variables ?? {}),
    instanceId,
    maxLive,
  ];
}

/** The assistant `a`'s mid-call tools as a JSON array of MidCallTool, in their order (a scalar subquery). */
export const ASSISTANT_TOOLS = `(SELECT coalesce(json_agg(json_build_object(
                   'id', t.id, 'name', t.name, 'description', t.description, 'endpoint', t.endpoint,
                   'method', t.method, 'timeout', t.timeout, 'headers', t.headers, 'schema', t.schema)
                 ORDER BY at.position, t.id), '[]'::json)
            FROM assistant_tools at JOIN tools t ON t.id = at.tool_id
           WHERE at.assistant_id = a.id)`;

/** The assistant `a`'s model `m`, voice `v` and language `l`. */
export const ASSISTANT_JOINS = `LEFT JOIN llm_models m ON m.id = a.llm_model_id
    LEFT JOIN voices v ON v.id = a.voice_id
    LEFT JOIN languages l ON l.id = a.language_id`;

/** $3: the call's media stream already claimed it for this process (RemoteCalls.claimStream), possibly while ringing. */
export const CLAIM_AND_LOAD = `
  WITH claimed AS (
    UPDATE calls SET owner_instance = $2
     WHERE id = $1 AND (status = 'initiated' OR ($3::boolean AND status = 'ringing' AND owner_instance = $2))
    RETURNING id, user_id, status, carrier, assistant_id, type, client_phone_number, assistant_phone_number, variables)
  SELECT c.id, c.user_id, c.status, c.carrier, c.type, c.client_phone_number, c.assistant_phone_number, c.variables AS call_variables,
         a.id AS assistant_id, a.variables AS assistant_variables, a.system_prompt, a.initial_message, a.wait_for_customer,
         a.end_call_on_voicemail, a.voice_mail_message, a.silence_goodbye_message, a.max_duration, a.max_silence_duration, a.reengagement_interval, a.llm_temperature,
         a.end_call_tool_description, a.post_call_schema, a.post_call_evaluation, a.record, a.fillers, a.filler_config, m.name AS model,
         a.voice_stability, a.voice_similarity, a.speech_speed, a.endpoint_sensitivity, a.endpoint_type,
         a.interrupt_sensitivity, a.allow_interruptions, a.min_interrupt_words, a.backchannel_words, a.enable_noise_cancellation, a.ambient_sound, a.ambient_sound_volume, a.mode,
         a.synthesizer_provider_id, a.transcriber_provider_id,
         v.provider AS voice_provider, v.provider_voice_id, l.iso_2 AS language_iso2,
         a.builtin_tools, a.timezone AS assistant_timezone,
         (SELECT kb.id FROM knowledge_bases kb WHERE kb.id = a.knowledgebase_id AND kb.user_id = c.user_id) AS knowledgebase_id, a.knowledgebase_mode,
         ${ASSISTANT_TOOLS} AS tools
    FROM claimed c
    LEFT JOIN assistants a ON a.id = c.assistant_id
    ${ASSISTANT_JOINS}`;

export interface LoadedCall {
  id: number;
  user_id: number;
  status: CallStatus;
  carrier: string;
  type: string;
  client_phone_number: string;
  assistant_phone_number: string;
  call_variables: Record<string, unknown>;
  assistant_id: number | null;
  assistant_variables: Record<string, unknown> | null;
  system_prompt: string;
  initial_message: string;
  wait_for_customer: boolean;
  end_call_on_voicemail: boolean;
  voice_mail_message: string | null;
  /** null: the default line in the assistant's language; '': none. */
  silence_goodbye_message: string | null;
  max_duration: number;
  max_silence_duration: number;
  reengagement_interval: number;
  llm_temperature: string;
  end_call_tool_description: string | null;
  post_call_schema: PostCallField[];
  post_call_evaluation: boolean;
  record: boolean;
  fillers: boolean;
  filler_config: FillerConfig;
  model: string | null;
  tools: MidCallTool[];
  voice_stability: string;
  voice_similarity: string;
  speech_speed: string;
  endpoint_sensitivity: string;
  endpoint_type: string;
  interrupt_sensitivity: string;
  allow_interruptions: boolean;
  min_interrupt_words: number;
  /** The assistant's own backchannel words (never interrupt a reply). */
  backchannel_words: string[] | null;
  enable_noise_cancellation: boolean;
  ambient_sound: string;
  ambient_sound_volume: string;
  /** `pipeline` or `multimodal` (null: no assistant). */
  mode: string | null;
  synthesizer_provider_id: number | null;
  transcriber_provider_id: number | null;
  voice_provider: string | null;
  provider_voice_id: string | null;
  language_iso2: string | null;
  builtin_tools: StoredBuiltinTool[] | null;
  assistant_timezone: string | null;
  /** The assistant's knowledge base, only when it is the call's user's own (null otherwise or without one). */
  knowledgebase_id: number | null;
  knowledgebase_mode: string | null;
}

/**
 * A `$n`-numbered statement as a drizzle SQL object (for callers that hand us a drizzle
 * transaction). Each value is one parameter: an array stays a PostgreSQL array (drizzle would
 * spread a bare array into a list).
 */
export function bind(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  parts.forEach((part, i) => chunks.push(i % 2 === 0 ? sql.raw(part) : sql`${sql.param(values[Number(part) - 1])}`));
  return sql.join(chunks);
}

/** The columns an assistant's speaking voice is read from (a call's load, an assistant_transfer's). */
export type SpeakingVoiceColumns = Pick<
  LoadedCall,
  'voice_provider' | 'provider_voice_id' | 'language_iso2' | 'voice_stability' | 'voice_similarity' | 'speech_speed' | 'endpoint_sensitivity' | 'synthesizer_provider_id'
>;

/** The assistant's speaking voice (text-to-speech), as `voiceOf` takes it. */
export function speakingVoiceRow(row: SpeakingVoiceColumns): Pick<AssistantVoiceRow, keyof VoiceSettingsRow | 'synthesizerProvider'> {
  return {
    voiceProvider: row.voice_provider ?? 'local',
    providerVoiceId: row.provider_voice_id,
    languageIso2: row.language_iso2,
    voiceStability: row.voice_stability,
    voiceSimilarity: row.voice_similarity,
    speechSpeed: row.speech_speed,
    endpointSensitivity: row.endpoint_sensitivity,
    synthesizerProvider: row.synthesizer_provider_id === null ? null : (synthesizerById(row.synthesizer_provider_id)?.code ?? null),
  };
}

/** The assistant's voice settings of a loaded call, as the voice factory takes them. */
export function assistantVoiceRow(call: LoadedCall): AssistantVoiceRow {
  return {
    ...speakingVoiceRow(call),
    mode: call.mode ?? 'pipeline',
    endpointType: call.endpoint_type,
    interruptSensitivity: call.interrupt_sensitivity,
    allowInterruptions: call.allow_interruptions,
    minInterruptWords: call.min_interrupt_words,
    backchannelWords: call.backchannel_words ?? [],
    noiseCancellation: call.enable_noise_cancellation,
    ambientSound: call.ambient_sound,
    ambientSoundVolume: call.ambient_sound_volume,
    transcriberProvider: call.transcriber_provider_id === null ? null : transcriberById(call.transcriber_provider_id)?.code ?? null,
  };
}
