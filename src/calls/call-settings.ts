/**
 * A loaded call's assistant as the session's settings: the prompt, opening line and voicemail
 * message filled with the call's variables (the call's own win over the assistant's), the model
 * and temperature with their defaults. Shared by the call's start and an assistant_transfer's
 * hand-over (src/calls/hand-over.ts), so both read an assistant the same way.
 */
import type { LoadedCall } from './call-queries.js';
import type { SessionSettings } from './session-types.js';
import { fillSpokenTemplate, fillTemplate } from './variables.js';

/** The model of an assistant without one (its `llm_model_id` unset or the model removed). */
export const DEFAULT_MODEL = 'gpt-4o-mini';
/** The temperature when the stored one is not a number. */
export const DEFAULT_TEMPERATURE = 0.1;

/** `llm_temperature` (numeric text) as a number, or the default. */
export function temperatureOf(stored: string | number | null | undefined): number {
  const n = Number(stored);
  return stored !== null && stored !== undefined && stored !== '' && Number.isFinite(n) ? n : DEFAULT_TEMPERATURE;
}

/** The columns of a loaded call its session's settings are read from (an assistant test gives the same, without a call). */
export type SettingsColumns = Pick<
  LoadedCall,
  | 'assistant_variables'
  | 'call_variables'
  | 'system_prompt'
  | 'initial_message'
  | 'wait_for_customer'
  | 'end_call_on_voicemail'
  | 'voice_mail_message'
  | 'language_iso2'
  | 'silence_goodbye_message'
  | 'max_duration'
  | 'max_silence_duration'
  | 'reengagement_interval'
  | 'model'
  | 'llm_temperature'
  | 'tools'
  | 'end_call_tool_description'
  | 'fillers'
  | 'filler_config'
>;

export function sessionSettingsOf(call: SettingsColumns): SessionSettings {
  const variables = { ...(call.assistant_variables ?? {}), ...(call.call_variables ?? {}) };
  return {
    systemPrompt: fillTemplate(call.system_prompt, variables),
    initialMessage: fillSpokenTemplate(call.initial_message, variables),
    waitForCustomer: call.wait_for_customer,
    endCallOnVoicemail: call.end_call_on_voicemail,
    voicemailMessage: fillSpokenTemplate(call.voice_mail_message ?? '', variables),
    language: call.language_iso2 ?? 'en',
    silenceGoodbyeMessage: call.silence_goodbye_message == null ? null : fillSpokenTemplate(call.silence_goodbye_message, variables),
    maxDurationSec: call.max_duration,
    maxSilenceSec: call.max_silence_duration,
    reengagementSec: call.reengagement_interval,
    model: call.model ?? DEFAULT_MODEL,
    temperature: temperatureOf(call.llm_temperature),
    tools: call.tools,
    endCallDescription: call.end_call_tool_description,
    variables,
    fillers: call.fillers,
    fillerConfig: call.filler_config,
  };
}
