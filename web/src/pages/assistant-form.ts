/**
 * The assistant form's state and its two translations: from the assistant record (whose
 * names and units differ from the request's, CONTRACT §7) into the form, and from the form
 * into a create or update body of spec 4.9. Values the browser cannot turn into the right
 * type are sent as typed, so the service answers with its own message for that field.
 */
/** The assistant record as the service answers it (spec 2.4). */
type AssistantRecord = Record<string, unknown>;

export interface PostCallRow {
  name: string;
  type: string;
  description: string;
}

export interface AssistantForm {
  assistant_name: string;
  status: string;
  calls_direction: string;
  engine_type: string;
  voice_id: string;
  language: string;
  llm_model: string;
  timezone: string;
  phone_number_id: string;
  initial_message: string;
  system_prompt: string;
  who_speaks_first: string;
  tool_ids: number[];
  /** '' = no knowledge base. */
  knowledgebase_id: string;
  knowledgebase_mode: string;
  end_call_description: string;
  variables: string;
  post_call_evaluation: boolean;
  post_call_schema: PostCallRow[];
  is_webhook_active: boolean;
  webhook_url: string;
  send_webhook_only_on_completed: boolean;
  include_recording_in_webhook: boolean;
  llm_temperature: string;
  voice_stability: string;
  voice_similarity: string;
  speech_speed: string;
  endpoint_type: string;
  endpoint_sensitivity: string;
  interrupt_sensitivity: string;
  allow_interruptions: boolean;
  use_min_interrupt_words: boolean;
  min_interrupt_words: string;
  /** `backchannel_words`, comma-separated: the assistant's own words that never interrupt it. */
  backchannel_words: string;
  ambient_sound_volume: string;
  filler_audios: boolean;
  noise_cancellation: boolean;
  re_engagement_interval: string;
  max_call_duration: string;
  max_silence_duration: string;
  /** Say a closing line before a silence hang-up (unchecked: `silence_goodbye_message` ''). */
  silence_goodbye: boolean;
  /** The closing line; empty: the default line in the assistant's language. */
  silence_goodbye_message: string;
  end_call_on_voicemail: boolean;
  record_call: boolean;
}

/** A new assistant's form: the service's defaults (CONTRACT §7). */
export function emptyForm(): AssistantForm {
  return {
    assistant_name: '',
    status: 'active',
    calls_direction: 'make',
    engine_type: 'pipeline',
    voice_id: '',
    language: 'English',
    llm_model: '',
    timezone: 'UTC',
    phone_number_id: '',
    initial_message: '',
    system_prompt: '',
    who_speaks_first: 'AI assistant',
    tool_ids: [],
    knowledgebase_id: '',
    knowledgebase_mode: 'function_call',
    end_call_description: '',
    variables: '{}',
    post_call_evaluation: true,
    post_call_schema: [],
    is_webhook_active: false,
    webhook_url: '',
    send_webhook_only_on_completed: true,
    include_recording_in_webhook: true,
    llm_temperature: '0.1',
    voice_stability: '0.7',
    voice_similarity: '0.5',
    speech_speed: '1',
    endpoint_type: 'vad',
    endpoint_sensitivity: '',
    interrupt_sensitivity: '',
    allow_interruptions: true,
    use_min_interrupt_words: false,
    min_interrupt_words: '0',
    backchannel_words: '',
    ambient_sound_volume: '',
    filler_audios: false,
    noise_cancellation: false,
    re_engagement_interval: '30',
    max_call_duration: '600',
    max_silence_duration: '40',
    silence_goodbye: true,
    silence_goodbye_message: '',
    end_call_on_voicemail: false,
    record_call: false,
  };
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const num = (v: unknown) => (v === null || v === undefined || v === '' ? '' : String(Number(v)));

/** The record of GET /api/user/assistant/{id} as the form shows it. */
export function formFromRecord(r: AssistantRecord, models: { id: number; name: string }[]): AssistantForm {
  const tools = (r.tools as { type: string; data: Record<string, unknown> }[]) ?? [];
  const endCall = tools.find((t) => t.type === 'end_call');
  const minWords = Number(r.min_interrupt_words ?? 0);
  return {
    assistant_name: text(r.name),
    status: text(r.status),
    calls_direction: r.type === 'inbound' ? 'receive' : 'make',
    engine_type: text(r.mode),
    voice_id: text(r.voice_id),
    language: text(r.language),
    llm_model: models.find((m) => m.id === r.llm_model_id)?.name ?? '',
    timezone: text(r.timezone),
    phone_number_id: text(r.phone_number_id),
    initial_message: text(r.initial_message),
    system_prompt: text(r.system_prompt),
    who_speaks_first: r.wait_for_customer ? 'Customer' : 'AI assistant',
    tool_ids: (r.tool_ids as number[]) ?? [],
    knowledgebase_id: r.knowledgebase_id == null ? '' : String(r.knowledgebase_id),
    knowledgebase_mode: text(r.knowledgebase_mode) || 'function_call',
    end_call_description: text(endCall?.data.description),
    variables: JSON.stringify(r.variables ?? {}, null, 2),
    post_call_evaluation: Boolean(r.post_call_evaluation),
    post_call_schema: ((r.post_call_schema as PostCallRow[]) ?? []).map((p) => ({ ...p })),
    is_webhook_active: Boolean(r.is_webhook_active),
    webhook_url: text(r.webhook_url),
    send_webhook_only_on_completed: Boolean(r.send_webhook_only_on_completed),
    include_recording_in_webhook: Boolean(r.include_recording_in_webhook),
    llm_temperature: num(r.llm_temperature),
    voice_stability: num(r.voice_stability),
    voice_similarity: num(r.voice_similarity),
    speech_speed: num(r.speech_speed),
    endpoint_type: text(r.endpoint_type),
    endpoint_sensitivity: num(r.endpoint_sensitivity),
    interrupt_sensitivity: num(r.interrupt_sensitivity),
    allow_interruptions: Boolean(r.allow_interruptions),
    use_min_interrupt_words: minWords > 0,
    min_interrupt_words: String(minWords),
    backchannel_words: ((r.backchannel_words as string[] | undefined) ?? []).join(', '),
    ambient_sound_volume: num(r.ambient_sound_volume),
    filler_audios: Number(r.fillers) === 1,
    noise_cancellation: Boolean(r.enable_noise_cancellation),
    re_engagement_interval: num(r.reengagement_interval),
    max_call_duration: num(r.max_duration),
    max_silence_duration: num(r.max_silence_duration),
    silence_goodbye: r.silence_goodbye_message !== '',
    silence_goodbye_message: text(r.silence_goodbye_message),
    end_call_on_voicemail: Number(r.end_call_on_voicemail) === 1,
    record_call: Boolean(r.record),
  };
}

/** A typed number, or the text itself when it is no number (the service then says why). */
const asNumber = (s: string): number | string => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
/** The variables as an object, or the text itself when it is not JSON. */
function asObject(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

const NUMBER_FIELDS = [
  'llm_temperature',
  'voice_stability',
  'voice_similarity',
  'speech_speed',
  'endpoint_sensitivity',
  'interrupt_sensitivity',
  'min_interrupt_words',
  'ambient_sound_volume',
  're_engagement_interval',
  'max_call_duration',
  'max_silence_duration',
] as const;

/** The request body of the whole form (spec 4.9 names); empty optional numbers are left out. */
export function bodyFromForm(f: AssistantForm): Record<string, unknown> {
  const body: Record<string, unknown> = {
    assistant_name: f.assistant_name,
    status: f.status,
    calls_direction: f.calls_direction,
    engine_type: f.engine_type,
    voice_id: f.voice_id === '' ? null : asNumber(f.voice_id),
    language: f.language,
    timezone: f.timezone,
    phone_number_id: f.phone_number_id === '' ? null : Number(f.phone_number_id),
    initial_message: f.initial_message,
    system_prompt: f.system_prompt,
    who_speaks_first: f.who_speaks_first,
    tool_ids: f.tool_ids,
    knowledgebase_id: f.knowledgebase_id === '' ? null : Number(f.knowledgebase_id),
    // Multimodal assistants search by function only (the service refuses prompt mode for them).
    knowledgebase_mode: f.engine_type === 'multimodal' ? 'function_call' : f.knowledgebase_mode,
    'end_call_tool.description': f.end_call_description === '' ? null : f.end_call_description,
    variables: asObject(f.variables),
    post_call_evaluation: f.post_call_evaluation,
    post_call_schema: f.post_call_schema,
    is_webhook_active: f.is_webhook_active,
    webhook_url: f.webhook_url.trim() === '' ? null : f.webhook_url.trim(),
    send_webhook_only_on_completed: f.send_webhook_only_on_completed,
    include_recording_in_webhook: f.include_recording_in_webhook,
    endpoint_type: f.endpoint_type,
    allow_interruptions: f.allow_interruptions,
    use_min_interrupt_words: f.use_min_interrupt_words,
    backchannel_words: f.backchannel_words
      .split(',')
      .map((w) => w.trim())
      .filter((w) => w !== ''),
    filler_audios: f.filler_audios,
    noise_cancellation: f.noise_cancellation,
    end_call_on_voicemail: f.end_call_on_voicemail,
    record_call: f.record_call,
    silence_goodbye_message: !f.silence_goodbye ? '' : f.silence_goodbye_message.trim() === '' ? null : f.silence_goodbye_message,
  };
  if (f.llm_model !== '') body.llm_model = f.llm_model;
  for (const k of NUMBER_FIELDS) if (f[k].trim() !== '') body[k] = asNumber(f[k]);
  if (!f.use_min_interrupt_words) delete body.min_interrupt_words;
  return body;
}

/** Only the fields that differ from the stored assistant: an update changes nothing else. */
export function changedFields(initial: AssistantForm, current: AssistantForm): Record<string, unknown> {
  const a = bodyFromForm(initial);
  const b = bodyFromForm(current);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (JSON.stringify(a[k]) !== JSON.stringify(v)) out[k] = v;
  return out;
}

/** The errors of `backchannel_words` and of its items (`backchannel_words.3`), under the one field. */
export function backchannelErrors(errors: Record<string, string[] | undefined>): string[] | undefined {
  const all = Object.entries(errors)
    .filter(([k]) => k === 'backchannel_words' || k.startsWith('backchannel_words.'))
    .flatMap(([, v]) => v ?? []);
  return all.length > 0 ? all : undefined;
}
