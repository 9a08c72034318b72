/**
 * Assistant queries and rules (spec 3.5, 4.8–4.12; CONTRACT §4, §7). Every function is
 * owner-scoped and never sees deleted assistants. Create and update check every rule that
 * needs the database inside the same transaction that writes, so a request that fails
 * validation changes nothing and an update (tool assignments included) is all or nothing.
 * Over 400 lines because create, update and the webhook switches share those transactional
 * rule checks and each records a version in its transaction (versions.ts holds the versions
 * themselves); serialization and request schemas already live in serializer.ts and schemas.ts.
 */
import { and, asc, count, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { assistants, assistantTools, knowledgeBases, phoneNumbers, tools, voices } from '../../db/schema.js';
import { listLanguages, listModels } from '../reference/service.js';
import { SecretKeyMissingError, type CredentialSealer } from '../../lib/secrets.js';
import { ErrorBag, HttpError } from '../toolkit/errors.js';
import { attributeName } from '../toolkit/validation.js';
import { synthesizerById, transcriberById } from '../../providers/catalog.js';
import { fieldOf, type Normalized } from './aliases.js';
import { storeBuiltins } from './builtin-tools.js';
import type { AssistantRow, AttachedTool } from './serializer.js';
import { ensureBaseline, recordVersion, type VersionAuthor, type VersionChange } from './versions.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Exec = Db | Tx;
type AssistantInsert = typeof assistants.$inferInsert;

export const VALIDATION_FAILED = 'Validation failed';
export const NOT_FOUND = 'Assistant not found';

const live = (userId: number, id?: number) =>
  and(eq(assistants.userId, userId), isNull(assistants.deletedAt), id === undefined ? undefined : eq(assistants.id, id));

// ---------------------------------------------------------------- reads

export async function findAssistant(db: Exec, userId: number, id: number, forUpdate = false): Promise<AssistantRow | null> {
  const q = db.select().from(assistants).where(live(userId, id));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

/** The mid-call tools attached to each assistant, in assignment order. */
export async function toolsOf(db: Exec, assistantIds: number[]): Promise<Map<number, AttachedTool[]>> {
  const out = new Map<number, AttachedTool[]>(assistantIds.map((id) => [id, []]));
  if (assistantIds.length === 0) return out;
  const rows = await db
    .select({ assistantId: assistantTools.assistantId, id: tools.id, name: tools.name, description: tools.description })
    .from(assistantTools)
    .innerJoin(tools, eq(tools.id, assistantTools.toolId))
    .where(inArray(assistantTools.assistantId, assistantIds))
    .orderBy(asc(assistantTools.assistantId), asc(assistantTools.position), asc(tools.id));
  for (const r of rows) out.get(r.assistantId)?.push({ id: r.id, name: r.name, description: r.description });
  return out;
}

export async function listPage(db: Db, userId: number, page: number, perPage: number) {
  const [{ total }] = await db.select({ total: count() }).from(assistants).where(live(userId));
  const rows = await db
    .select()
    .from(assistants)
    .where(live(userId))
    .orderBy(asc(assistants.id))
    .limit(perPage)
    .offset((page - 1) * perPage);
  return { total, rows };
}

export async function listAll(db: Db, userId: number): Promise<AssistantRow[]> {
  return db.select().from(assistants).where(live(userId)).orderBy(asc(assistants.id));
}

export async function listOutbound(db: Db, userId: number): Promise<AssistantRow[]> {
  return db
    .select()
    .from(assistants)
    .where(and(live(userId), eq(assistants.type, 'outbound')))
    .orderBy(asc(assistants.id));
}

// ---------------------------------------------------------------- rules

const num2 = (x: number) => x.toFixed(2);

interface Resolved {
  patch: Partial<AssistantInsert>;
  /** Replacement tool assignments, when the request sent tool_ids. */
  toolIds?: number[];
}

/**
 * Turns a normalized request into column values, checking every rule that needs the
 * database. `current` is the stored assistant on update, null on create. Throws a 422 with
 * all failures at once.
 */
/** The reference lists an assistant names (cached per process, src/api/reference/service.ts). */
export interface References {
  languages: readonly { id: number; name: string }[];
  models: readonly { id: number; name: string }[];
}

/** What resolve needs besides the database: the reference lists and the sealer of built-in tools' keys. */
export interface ResolveDeps {
  refs: References;
  sealer: Pick<CredentialSealer, 'seal'>;
}

export async function referencesOf(db: Db): Promise<References> {
  const [langs, models] = await Promise.all([listLanguages(db), listModels(db)]);
  return { languages: langs, models };
}

export const MULTIMODAL_KNOWLEDGE_MODE = 'Only function_call mode is available for multimodal assistants';

const byName = <T extends { name: string }>(list: readonly T[], name: string) =>
  list.find((x) => x.name.toLowerCase() === name.toLowerCase());

export async function resolve(
  tx: Exec,
  userId: number,
  n: Normalized,
  current: AssistantRow | null,
  { refs, sealer }: ResolveDeps,
): Promise<Resolved> {
  const val = n.values;
  const errors = new ErrorBag().merge(n.errors.errors);
  const field = (key: string, fallback = key) => fieldOf(n, key, fallback);
  const patch: Partial<AssistantInsert> = {};

  if (!current) {
    if (val.name === undefined && !n.errors.errors.name) errors.add('assistant_name', 'The assistant name field is required.');
    if (val.voice_id === undefined) errors.add('voice_id', 'The voice id field is required.');
    if (val.type === undefined && !n.errors.errors.type) errors.add('calls_direction', 'The calls direction field is required.');
  }

  // ---- language: a name from the list and/or an id from the list (alias)
  let language: { id: number; name: string } | undefined;
  if (val.language !== undefined) {
    const row = byName(refs.languages, val.language);
    if (row) language = { id: row.id, name: row.name };
    else errors.add('language', 'The selected language is invalid.');
  }
  if (val.language_id !== undefined) {
    const row = refs.languages.find((l) => l.id === val.language_id);
    if (!row) errors.add('language_id', 'The selected language id is invalid.');
    else if (language && language.id !== row.id) errors.add('language_id', 'The language id field must match language.');
    else language = { id: row.id, name: row.name };
  }
  if (!language && !current && val.language === undefined && val.language_id === undefined) {
    // Default English, else the first language of the list (ordered by id).
    const first = refs.languages.find((l) => l.name === 'English') ?? refs.languages[0];
    if (first) language = { id: first.id, name: first.name };
  }
  if (language) {
    patch.language = language.name;
    patch.languageId = language.id;
  }

  // ---- LLM model: a name from the list and/or an id (alias)
  let modelId: number | undefined;
  if (val.llm_model !== undefined) {
    const row = byName(refs.models, val.llm_model);
    if (row) modelId = row.id;
    else errors.add('llm_model', 'The selected llm model is invalid.');
  }
  if (val.llm_model_id !== undefined) {
    const row = refs.models.find((m) => m.id === val.llm_model_id);
    if (!row) errors.add('llm_model_id', 'The selected llm model id is invalid.');
    else if (modelId !== undefined && modelId !== row.id) errors.add('llm_model_id', 'The llm model id field must match llm model.');
    else modelId = row.id;
  }
  if (modelId === undefined && !current && val.llm_model === undefined && val.llm_model_id === undefined) {
    modelId = refs.models[0]?.id;
  }
  if (modelId !== undefined) patch.llmModelId = modelId;

  // ---- voice: public or the caller's own, of the assistant's mode
  const mode = val.mode ?? current?.mode ?? 'pipeline';
  if (val.voice_id !== undefined) {
    const [voice] = await tx
      .select({ mode: voices.mode })
      .from(voices)
      .where(and(eq(voices.id, val.voice_id), or(isNull(voices.userId), eq(voices.userId, userId))));
    if (!voice) errors.add('voice_id', 'The selected voice id is invalid.');
    else if (voice.mode !== mode) errors.add('voice_id', `The selected voice id is not available for the ${mode} mode.`);
  } else if (current && val.mode !== undefined && val.mode !== current.mode) {
    const [voice] = await tx.select({ mode: voices.mode }).from(voices).where(eq(voices.id, current.voiceId));
    if (voice && voice.mode !== val.mode) {
      const f = field('mode');
      errors.add(f, `The ${attributeName([f])} field does not match the mode of the assistant's voice (${voice.mode}).`);
    }
  }

  // ---- knowledge base (issue 29): the caller's own; `prompt` mode only for pipeline assistants
  if (val.knowledgebase_id !== undefined && val.knowledgebase_id !== null) {
    const [kb] = await tx
      .select({ id: knowledgeBases.id })
      .from(knowledgeBases)
      .where(and(eq(knowledgeBases.id, val.knowledgebase_id), eq(knowledgeBases.userId, userId)));
    if (!kb) errors.add('knowledgebase_id', 'The selected knowledgebase id is invalid.');
  }
  if ((val.knowledgebase_mode ?? current?.knowledgebaseMode) === 'prompt' && mode === 'multimodal') {
    errors.add(val.knowledgebase_mode !== undefined ? 'knowledgebase_mode' : field('mode', 'engine_type'), MULTIMODAL_KNOWLEDGE_MODE);
  }
  if (val.knowledgebase_id !== undefined) patch.knowledgebaseId = val.knowledgebase_id;
  if (val.knowledgebase_mode !== undefined) patch.knowledgebaseMode = val.knowledgebase_mode;

  // ---- phone number: the caller's; an inbound assistant's must be available and not Caller ID
  const type = val.type ?? current?.type;
  const phoneGiven = val.phone_number_id !== undefined;
  const phoneId = phoneGiven ? val.phone_number_id : current?.phoneNumberId ?? null;
  const becomesInbound = type === 'inbound' && current?.type !== 'inbound';
  if (phoneId !== null && phoneId !== undefined && (phoneGiven || becomesInbound)) {
    const phoneField = phoneGiven ? 'phone_number_id' : field('type', 'calls_direction');
    const phoneAttr = attributeName([phoneField]);
    const [number] = await tx
      .select({ typeLabel: phoneNumbers.typeLabel })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.id, phoneId), eq(phoneNumbers.userId, userId)));
    if (!number) errors.add(phoneField, 'The selected phone number id is invalid.');
    else if (type === 'inbound') {
      if (number.typeLabel === 'Caller ID') {
        errors.add(phoneField, `The ${phoneAttr} field must not be a Caller ID number for an inbound assistant.`);
      } else {
        const [holder] = await tx
          .select({ id: assistants.id })
          .from(assistants)
          .where(
            and(
              eq(assistants.phoneNumberId, phoneId),
              eq(assistants.type, 'inbound'),
              isNull(assistants.deletedAt),
              current ? ne(assistants.id, current.id) : undefined,
            ),
          );
        if (holder) errors.add(phoneField, 'The selected phone number id is already assigned to an inbound assistant.');
      }
    }
  }
  if (phoneGiven) patch.phoneNumberId = val.phone_number_id ?? null;

  // ---- mid-call tools: each one the caller's
  let toolIds: number[] | undefined;
  if (val.tool_ids !== undefined) {
    toolIds = [...new Set(val.tool_ids)];
    const owned = toolIds.length
      ? new Set(
          (await tx.select({ id: tools.id }).from(tools).where(and(inArray(tools.id, toolIds), eq(tools.userId, userId)))).map((r) => r.id),
        )
      : new Set<number>();
    val.tool_ids.forEach((id, i) => {
      if (!owned.has(id)) errors.add(`tool_ids.${i}`, `The selected tool_ids.${i} is invalid.`);
    });
  }

  // ---- speech providers (issue 20): one of the lookups' entries, or null for the deployment's choice
  if (val.synthesizer_provider_id != null && !synthesizerById(val.synthesizer_provider_id)) {
    errors.add('synthesizer_provider_id', 'The selected synthesizer provider id is invalid.');
  }
  if (val.transcriber_provider_id != null && !transcriberById(val.transcriber_provider_id)) {
    errors.add('transcriber_provider_id', 'The selected transcriber provider id is invalid.');
  }

  // ---- built-in tools (issue 20): the caller's own phone number and other assistant
  const builtins = val.tools;
  if (builtins) {
    const phoneIds = builtins.flatMap((b) => (b.type === 'warm_call_transfer' ? [b.data.outbound_phone_id] : []));
    const targetIds = builtins.flatMap((b) => (b.type === 'assistant_transfer' ? [b.data.assistant_id] : []));
    const ownPhones = new Set(
      phoneIds.length
        ? (await tx.select({ id: phoneNumbers.id }).from(phoneNumbers).where(and(inArray(phoneNumbers.id, phoneIds), eq(phoneNumbers.userId, userId)))).map((r) => r.id)
        : [],
    );
    const ownAssistants = new Set(
      targetIds.length
        ? (await tx.select({ id: assistants.id }).from(assistants).where(and(live(userId), inArray(assistants.id, targetIds)))).map((r) => r.id)
        : [],
    );
    for (const b of builtins) {
      if (b.type === 'warm_call_transfer' && !ownPhones.has(b.data.outbound_phone_id)) {
        errors.add(`${b.at}outbound_phone_id`, `The selected ${b.at}outbound_phone_id is invalid.`);
      }
      if (b.type === 'assistant_transfer') {
        if (current && b.data.assistant_id === current.id) {
          errors.add(`${b.at}assistant_id`, `The ${b.at}assistant_id field must not be the assistant itself.`);
        } else if (!ownAssistants.has(b.data.assistant_id)) {
          errors.add(`${b.at}assistant_id`, `The selected ${b.at}assistant_id is invalid.`);
        }
      }
    }
  }

  // ---- webhook state (spec 3.5, CONTRACT §7)
  if (val.webhook_url !== undefined) patch.webhookUrl = val.webhook_url;
  if (val.is_webhook_active === true) {
    const url = val.webhook_url !== undefined ? val.webhook_url : current?.webhookUrl ?? null;
    if (!url) errors.add('webhook_url', 'The webhook url field is required when is webhook active is true.');
    patch.isWebhookActive = true;
  } else if (val.is_webhook_active === false || val.webhook_url === null) {
    patch.isWebhookActive = false;
  }

  errors.throwIfAny(VALIDATION_FAILED);

  // ---- plain mappings
  if (val.name !== undefined) patch.name = val.name;
  if (val.type !== undefined) patch.type = val.type;
  if (val.mode !== undefined) patch.mode = val.mode;
  if (val.voice_id !== undefined) patch.voiceId = val.voice_id;
  if (val.timezone !== undefined) patch.timezone = val.timezone;
  if (val.initial_message !== undefined) patch.initialMessage = val.initial_message;
  if (val.system_prompt !== undefined) patch.systemPrompt = val.system_prompt;
  if (val.endpoint_type !== undefined) patch.endpointType = val.endpoint_type;
  if (val.endpoint_sensitivity !== undefined) patch.endpointSensitivity = num2(val.endpoint_sensitivity);
  if (val.interrupt_sensitivity !== undefined) patch.interruptSensitivity = num2(val.interrupt_sensitivity);
  if (val.ambient_sound_volume !== undefined) patch.ambientSoundVolume = num2(val.ambient_sound_volume);
  if (val.post_call_evaluation !== undefined) patch.postCallEvaluation = val.post_call_evaluation;
  if (val.send_webhook_only_on_completed !== undefined) patch.sendWebhookOnlyOnCompleted = val.send_webhook_only_on_completed;
  if (val.include_recording_in_webhook !== undefined) patch.includeRecordingInWebhook = val.include_recording_in_webhook;
  if (val.min_interrupt_words !== undefined) patch.minInterruptWords = val.min_interrupt_words;
  if (val.use_min_interrupt_words === false) patch.minInterruptWords = 0;
  if (val.variables !== undefined) patch.variables = val.variables;
  if (val.post_call_schema !== undefined) patch.postCallSchema = val.post_call_schema;
  if (val.end_call_description !== undefined) patch.endCallToolDescription = val.end_call_description || null;
  if (val.llm_temperature !== undefined) patch.llmTemperature = num2(val.llm_temperature);
  if (val.voice_stability !== undefined) patch.voiceStability = num2(val.voice_stability);
  if (val.voice_similarity !== undefined) patch.voiceSimilarity = num2(val.voice_similarity);
  if (val.speech_speed !== undefined) patch.speechSpeed = num2(val.speech_speed);
  if (val.allow_interruptions !== undefined) patch.allowInterruptions = val.allow_interruptions;
  if (val.fillers !== undefined) patch.fillers = val.fillers;
  if (val.reengagement_interval !== undefined) patch.reengagementInterval = val.reengagement_interval;
  if (val.max_duration !== undefined) patch.maxDuration = val.max_duration;
  if (val.max_silence_duration !== undefined) patch.maxSilenceDuration = val.max_silence_duration;
  if (val.end_call_on_voicemail !== undefined) patch.endCallOnVoicemail = val.end_call_on_voicemail;
  if (val.voice_mail_message !== undefined) patch.voiceMailMessage = val.voice_mail_message?.trim() || null;
  // '' is kept: it means "no closing line", null the default one.
  if (val.silence_goodbye_message !== undefined) patch.silenceGoodbyeMessage = val.silence_goodbye_message === null ? null : val.silence_goodbye_message.trim();
  if (val.backchannel_words !== undefined) patch.backchannelWords = [...new Set(val.backchannel_words.map((w) => w.trim()).filter((w) => w !== ''))];
  if (val.enable_noise_cancellation !== undefined) patch.enableNoiseCancellation = val.enable_noise_cancellation;
  if (val.record !== undefined) patch.record = val.record;
  if (val.wait_for_customer !== undefined) patch.waitForCustomer = val.wait_for_customer;
  if (val.filler_config !== undefined) {
    const f = val.filler_config;
    patch.fillerConfig = { neutral: f.neutral ?? [], negative: f.negative ?? [], positive: f.positive ?? [], question: f.question ?? [] };
  }
  if (val.ambient_sound !== undefined) patch.ambientSound = val.ambient_sound;
  if (val.status !== undefined) patch.status = val.status;
  if (val.synthesizer_provider_id !== undefined) patch.synthesizerProviderId = val.synthesizer_provider_id;
  if (val.transcriber_provider_id !== undefined) patch.transcriberProviderId = val.transcriber_provider_id;
  if (builtins) patch.builtinTools = storeBuiltins(builtins, current?.builtinTools ?? [], (plain) => sealer.seal(plain));
  return { patch, toolIds };
}

async function replaceTools(tx: Exec, assistantId: number, toolIds: number[]): Promise<void> {
  await tx.delete(assistantTools).where(eq(assistantTools.assistantId, assistantId));
  if (toolIds.length) {
    await tx.insert(assistantTools).values(toolIds.map((toolId, position) => ({ assistantId, toolId, position })));
  }
}

/** The unique index that keeps an inbound number with one live inbound assistant lost a race. */
function isNumberTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const pgErr = e?.cause?.code ? e.cause : e;
  return pgErr?.code === '23505' && pgErr.constraint === 'assistants_inbound_number_unique';
}

const numberTaken = () =>
  new ErrorBag()
    .add('phone_number_id', 'The selected phone number id is already assigned to an inbound assistant.')
    .throwIfAny(VALIDATION_FAILED);

// ---------------------------------------------------------------- writes

/** Records `row` as its newest version (assistants.version), with its tools as they are now in `tx`. */
async function saveVersion(tx: Tx, row: AssistantRow, change: VersionChange): Promise<void> {
  await recordVersion(tx, row, (await toolsOf(tx, [row.id])).get(row.id) ?? [], change);
}

export async function createAssistant(
  db: Db,
  userId: number,
  n: Normalized,
  sealer: ResolveDeps['sealer'],
  who: VersionAuthor,
): Promise<AssistantRow> {
  try {
    const refs = await referencesOf(db);
    return await db.transaction(async (tx) => {
      const { patch, toolIds } = await resolve(tx, userId, n, null, { refs, sealer });
      const [row] = await tx
        .insert(assistants)
        .values({ ...patch, userId, name: patch.name!, type: patch.type!, voiceId: patch.voiceId! })
        .returning();
      if (toolIds) await replaceTools(tx, row.id, toolIds);
      await saveVersion(tx, row, { ...who, action: 'create' });
      return row;
    });
  } catch (err) {
    if (isNumberTaken(err)) numberTaken();
    throw err;
  }
}

export interface UpdateOptions {
  /** Called with a database failure before it becomes the 500. */
  onFailure?: (err: unknown) => void;
  /** Built-in tools whose sealed keys a restored record may name by their mask (a restore's version). */
  knownBuiltins?: AssistantRow['builtinTools'];
}

/**
 * Applies an update in one transaction with the row locked, and records the result as the
 * assistant's next version. Returns null when the assistant is not the caller's live one; a
 * database failure becomes 500 "Assistant update failed".
 */
export async function updateAssistant(
  db: Db,
  userId: number,
  id: number,
  n: Normalized,
  sealer: ResolveDeps['sealer'],
  change: VersionChange,
  { onFailure = () => undefined, knownBuiltins = [] }: UpdateOptions = {},
): Promise<AssistantRow | null> {
  try {
    const refs = await referencesOf(db);
    return await db.transaction(async (tx) => {
      const current = await findAssistant(tx, userId, id, true);
      if (!current) return null;
      await ensureBaseline(tx, current, (await toolsOf(tx, [id])).get(id) ?? []);
      const known = { ...current, builtinTools: [...current.builtinTools, ...knownBuiltins] };
      const { patch, toolIds } = await resolve(tx, userId, n, known, { refs, sealer });
      const [row] = await tx
        .update(assistants)
        .set({ ...patch, version: sql`${assistants.version} + 1`, updatedAt: sql`now()` })
        .where(eq(assistants.id, id))
        .returning();
      if (toolIds) await replaceTools(tx, id, toolIds);
      await saveVersion(tx, row, change);
      return row;
    });
  } catch (err) {
    if (err instanceof HttpError || err instanceof SecretKeyMissingError) throw err;
    if (isNumberTaken(err)) numberTaken();
    onFailure(err);
    throw new HttpError(500, 'Assistant update failed');
  }
}

/** Soft delete (CONTRACT §4): `deleted_at` set and the phone number released. */
export async function deleteAssistant(db: Db, userId: number, id: number): Promise<boolean> {
  const rows = await db
    .update(assistants)
    .set({ deletedAt: sql`now()`, phoneNumberId: null, updatedAt: sql`now()` })
    .where(live(userId, id))
    .returning({ id: assistants.id });
  return rows.length > 0;
}

/** The webhook switches of spec 4.10–4.12, each a new version; false when the assistant is not the caller's. */
export async function setWebhookState(
  db: Db,
  userId: number,
  id: number,
  change: Partial<Pick<AssistantInsert, 'inboundWebhookUrl' | 'webhookUrl' | 'isWebhookActive'>>,
  who: VersionAuthor,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const current = await findAssistant(tx, userId, id, true);
    if (!current) return false;
    await ensureBaseline(tx, current, (await toolsOf(tx, [id])).get(id) ?? []);
    const [row] = await tx
      .update(assistants)
      .set({ ...change, version: sql`${assistants.version} + 1`, updatedAt: sql`now()` })
      .where(eq(assistants.id, id))
      .returning();
    await saveVersion(tx, row, { ...who, action: 'webhook' });
    return true;
  });
}
