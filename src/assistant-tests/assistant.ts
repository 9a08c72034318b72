/**
 * The assistant a test runs: the columns a call's session is built from (the same ones the
 * engine loads for a call, src/calls/call-settings.ts), its mid-call tools and built-ins, and
 * its post-call extraction. Read from the database — the stored assistant, or the stored one
 * with changes applied in memory (unsaved edits, an earlier version's fields) — or from a
 * suite's `assistant.yaml` (assistant-file.ts). Nothing is ever written.
 */
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { assistants, assistantTools, languages, llmModels, tools, voices, type PostCallField, type StoredBuiltinTool } from '../db/schema.js';
import { synthesizerById, transcriberById } from '../providers/catalog.js';
import type { AssistantVoiceRow } from '../voice/factory.js';
import type { SettingsColumns } from '../calls/call-settings.js';
import type { MidCallTool } from '../calls/tool-runner.js';

export interface TestAssistant extends Omit<SettingsColumns, 'call_variables'> {
  /** The stored assistant's id (null: from a suite file). */
  id: number | null;
  name: string;
  /** The version it ran with (null: a suite file's, or unsaved changes on top of `baseVersion`). */
  version: number | null;
  builtin_tools: StoredBuiltinTool[];
  post_call_schema: PostCallField[];
  post_call_evaluation: boolean;
  timezone: string;
  mode: string;
  /** Its knowledge base (src/calls/knowledge.ts; used only when it is the run's user's own) and how it is used. */
  knowledgebase_id?: number | null;
  knowledgebase_mode?: string | null;
  /** Its voice settings as a call's voice pipeline takes them (audio mode); none: the assistants' defaults (audio.ts). */
  voice?: AssistantVoiceRow;
}

type AssistantRow = typeof assistants.$inferSelect;

/** Changes applied in memory before a run: column values (an update request resolved) and the tool list. */
export interface AssistantChanges {
  patch?: Partial<typeof assistants.$inferInsert>;
  /** Replacement mid-call tools, by id, in order (the user's own; others are ignored). */
  toolIds?: number[];
  /** The version these changes restore (a run of an earlier version), recorded as the run's version. */
  version?: number;
}

/**
 * The user's live assistant `assistantId` as a test runs it, with `changes` applied in memory;
 * null when it is not the user's (or deleted). The stored assistant is never changed.
 */
export async function loadTestAssistant(db: Db, userId: number, assistantId: number, changes: AssistantChanges = {}): Promise<TestAssistant | null> {
  const [stored] = await db
    .select()
    .from(assistants)
    .where(and(eq(assistants.id, assistantId), eq(assistants.userId, userId), isNull(assistants.deletedAt)));
  if (!stored) return null;
  const row: AssistantRow = { ...stored, ...(changes.patch as Partial<AssistantRow>) };
  const [model] = row.llmModelId === null ? [] : await db.select({ name: llmModels.name }).from(llmModels).where(eq(llmModels.id, row.llmModelId));
  const [language] = row.languageId === null ? [] : await db.select({ iso2: languages.iso2 }).from(languages).where(eq(languages.id, row.languageId));
  const [voice] = await db.select({ provider: voices.provider, providerVoiceId: voices.providerVoiceId }).from(voices).where(eq(voices.id, row.voiceId));
  const midCall = changes.toolIds ? await toolsById(db, userId, changes.toolIds) : await attachedTools(db, assistantId);
  const unsaved = changes.patch !== undefined || changes.toolIds !== undefined;
  return {
    id: stored.id,
    name: row.name,
    version: changes.version ?? (unsaved ? null : stored.version),
    assistant_variables: row.variables,
    system_prompt: row.systemPrompt,
    initial_message: row.initialMessage,
    wait_for_customer: row.waitForCustomer,
    end_call_on_voicemail: row.endCallOnVoicemail,
    voice_mail_message: row.voiceMailMessage,
    language_iso2: language?.iso2 ?? null,
    silence_goodbye_message: row.silenceGoodbyeMessage,
    max_duration: row.maxDuration,
    max_silence_duration: row.maxSilenceDuration,
    reengagement_interval: row.reengagementInterval,
    model: model?.name ?? null,
    llm_temperature: row.llmTemperature,
    tools: midCall,
    end_call_tool_description: row.endCallToolDescription,
    fillers: row.fillers,
    filler_config: row.fillerConfig,
    builtin_tools: row.builtinTools,
    post_call_schema: row.postCallSchema,
    post_call_evaluation: row.postCallEvaluation,
    timezone: row.timezone,
    mode: row.mode,
    knowledgebase_id: row.knowledgebaseId,
    knowledgebase_mode: row.knowledgebaseMode,
    voice: {
      voiceProvider: voice?.provider ?? 'local',
      providerVoiceId: voice?.providerVoiceId ?? null,
      languageIso2: language?.iso2 ?? null,
      voiceStability: row.voiceStability,
      voiceSimilarity: row.voiceSimilarity,
      speechSpeed: row.speechSpeed,
      endpointSensitivity: row.endpointSensitivity,
      synthesizerProvider: row.synthesizerProviderId === null ? null : (synthesizerById(row.synthesizerProviderId)?.code ?? null),
      mode: row.mode,
      endpointType: row.endpointType,
      interruptSensitivity: row.interruptSensitivity,
      allowInterruptions: row.allowInterruptions,
      minInterruptWords: row.minInterruptWords,
      backchannelWords: row.backchannelWords,
      noiseCancellation: row.enableNoiseCancellation,
      ambientSound: row.ambientSound,
      ambientSoundVolume: row.ambientSoundVolume,
      transcriberProvider: row.transcriberProviderId === null ? null : (transcriberById(row.transcriberProviderId)?.code ?? null),
    },
  };
}

const toolColumns = {
  id: tools.id,
  name: tools.name,
  description: tools.description,
  endpoint: tools.endpoint,
  method: tools.method,
  timeout: tools.timeout,
  headers: tools.headers,
  schema: tools.schema,
};

async function attachedTools(db: Db, assistantId: number): Promise<MidCallTool[]> {
  return db
    .select(toolColumns)
    .from(assistantTools)
    .innerJoin(tools, eq(tools.id, assistantTools.toolId))
    .where(eq(assistantTools.assistantId, assistantId))
    .orderBy(asc(assistantTools.position), asc(tools.id));
}

async function toolsById(db: Db, userId: number, ids: number[]): Promise<MidCallTool[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select(toolColumns)
    .from(tools)
    .where(and(inArray(tools.id, ids), eq(tools.userId, userId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
