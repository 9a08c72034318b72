/** Assistant row → the record of spec 2.4 with the exact types it names (CONTRACT §7). */
import type { assistants } from '../../db/schema.js';
import { isoMicro } from '../../db/time.js';
import { builtinRecord } from './builtin-tools.js';
import type { AssistantRecord } from './schemas.js';

export type AssistantRow = typeof assistants.$inferSelect;
export interface AttachedTool {
  id: number;
  name: string;
  description: string;
}

/** numeric(4,2) text → the record's "numeric value as string" with two decimals ("0.70"). */
const twoDecimals = (x: string) => Number(x).toFixed(2);
const bit = (b: boolean) => (b ? 1 : 0);

export function serializeAssistant(row: AssistantRow, tools: AttachedTool[]): AssistantRecord {
  const toolEntries: { type: string; data: Record<string, unknown> }[] = [];
  // The spec's end_call_tool.description shows as the end_call entry (CONTRACT §7), unless a
  // built-in end_call item stands for it (a record echoed back must not double the entry).
  const ownEndCall = row.builtinTools.some((b) => b.type === 'end_call');
  if (row.endCallToolDescription && !ownEndCall) toolEntries.push({ type: 'end_call', data: { description: row.endCallToolDescription } });
  for (const b of row.builtinTools) {
    const entry = builtinRecord(b);
    if (b.type === 'end_call' && entry.data.description == null && row.endCallToolDescription) entry.data.description = row.endCallToolDescription;
    toolEntries.push(entry);
  }
  for (const t of tools) toolEntries.push({ type: 'mid_call_tool', data: { id: t.id, name: t.name, description: t.description } });
  return {
    id: row.id,
    user_id: row.userId,
    phone_number_id: row.phoneNumberId,
    engine_id: row.engineId,
    synthesizer_id: row.synthesizerId,
    transcriber_id: row.transcriberId,
    voice_id: row.voiceId,
    instance_id: row.instanceId,
    name: row.name,
    variables: row.variables,
    post_call_evaluation: row.postCallEvaluation,
    fillers: bit(row.fillers),
    post_call_schema: row.postCallSchema,
    tools: toolEntries,
    tool_ids: tools.map((t) => t.id),
    is_webhook_active: row.isWebhookActive,
    webhook_url: row.webhookUrl,
    inbound_webhook_url: row.inboundWebhookUrl,
    language: row.language,
    type: row.type,
    status: row.status,
    max_duration: row.maxDuration,
    record: row.record,
    initial_message: row.initialMessage,
    system_prompt: row.systemPrompt,
    flows_platform_id: row.flowsPlatformId,
    timezone: row.timezone,
    created_at: isoMicro(row.createdAt)!,
    updated_at: isoMicro(row.updatedAt)!,
    max_silence_duration: row.maxSilenceDuration,
    reengagement_interval: row.reengagementInterval,
    deleted_at: isoMicro(row.deletedAt),
    end_call_on_voicemail: bit(row.endCallOnVoicemail),
    voice_mail_message: row.voiceMailMessage,
    silence_goodbye_message: row.silenceGoodbyeMessage,
    backchannel_words: row.backchannelWords,
    llm_temperature: twoDecimals(row.llmTemperature),
    voice_stability: twoDecimals(row.voiceStability),
    voice_similarity: twoDecimals(row.voiceSimilarity),
    allow_interruptions: row.allowInterruptions,
    enable_noise_cancellation: row.enableNoiseCancellation,
    endpoint_sensitivity: Number(row.endpointSensitivity),
    speech_speed: twoDecimals(row.speechSpeed),
    endpoint_type: row.endpointType,
    wait_for_customer: row.waitForCustomer,
    mode: row.mode,
    language_id: row.languageId,
    transcriber_provider_id: row.transcriberProviderId,
    synthesizer_provider_id: row.synthesizerProviderId,
    llm_model_id: row.llmModelId,
    multimodal_model_id: row.multimodalModelId,
    ambient_sound: row.ambientSound,
    uuid: row.uuid,
    send_webhook_only_on_completed: row.sendWebhookOnlyOnCompleted,
    include_recording_in_webhook: row.includeRecordingInWebhook,
    interrupt_sensitivity: Number(row.interruptSensitivity),
    filler_config: {
      neutral: row.fillerConfig?.neutral ?? [],
      negative: row.fillerConfig?.negative ?? [],
      positive: row.fillerConfig?.positive ?? [],
      question: row.fillerConfig?.question ?? [],
    },
    knowledgebase_id: row.knowledgebaseId,
    knowledgebase_mode: row.knowledgebaseMode,
    min_interrupt_words: row.minInterruptWords,
    ambient_sound_volume: twoDecimals(row.ambientSoundVolume),
    widget_settings: row.widgetSettings,
  };
}
