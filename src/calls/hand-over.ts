/**
 * Hand-overs of a live call (issue 20). assistant_transfer: another assistant of the call's user, live (not deleted) and
 * active — as make_call would require — loaded when the LLM hands the call over — its prompt and opening line filled with the call's variables, its model,
 * temperature, mid-call tools, built-in tools and voice. Only the same user's assistants are
 * found (the API refuses others when the tool is saved; this keeps a later change of owner out).
 */
import type { Logger } from 'pino';
import type { Pool } from 'pg';
import type { StoredBuiltinTool } from '../db/schema.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { AssistantHandOver } from './builtin-tools/index.js';
import type { CallerIdChoice, WarmTransferDeps } from './builtin-tools/warm-transfer.js';
import type { LlmProvider } from '../providers/llm/types.js';
import type { CarrierRegistry } from '../telephony/registry.js';
import { placesRemotely, type Carrier } from '../telephony/types.js';
import type { MidCallTool } from './tool-runner.js';
import { ASSISTANT_JOINS, ASSISTANT_TOOLS, speakingVoiceRow, type SpeakingVoiceColumns } from './call-queries.js';
import { DEFAULT_MODEL, temperatureOf } from './call-settings.js';
import { fillSpokenTemplate, fillTemplate } from './variables.js';
import { voiceOf } from '../voice/factory.js';

const LOAD_ASSISTANT = `
  SELECT a.id, a.name, a.variables, a.system_prompt, a.initial_message, a.llm_temperature, a.end_call_tool_description,
         a.builtin_tools, a.synthesizer_provider_id, a.timezone, m.name AS model,
         a.voice_stability, a.voice_similarity, a.speech_speed, a.endpoint_sensitivity,
         v.provider AS voice_provider, v.provider_voice_id, l.iso_2 AS language_iso2,
         ${ASSISTANT_TOOLS} AS tools
    FROM assistants a
    ${ASSISTANT_JOINS}
   WHERE a.id = $1 AND a.user_id = $2 AND a.deleted_at IS NULL AND a.status = 'active'`;

interface LoadedAssistant extends SpeakingVoiceColumns {
  id: number;
  name: string;
  variables: Record<string, unknown> | null;
  system_prompt: string;
  initial_message: string;
  llm_temperature: string;
  end_call_tool_description: string | null;
  builtin_tools: StoredBuiltinTool[] | null;
  timezone: string | null;
  model: string | null;
  tools: MidCallTool[];
}

export interface HandOverDeps {
  pool: Pool;
  userId: number;
  /** The call's own variables (they win over the assistant's, as at the start of the call). */
  callVariables: Record<string, unknown>;
  providers: ProviderRegistry;
  log: Logger;
}

export async function loadHandOver(deps: HandOverDeps, assistantId: number): Promise<AssistantHandOver | null> {
  const { rows } = await deps.pool.query<LoadedAssistant>(LOAD_ASSISTANT, [assistantId, deps.userId]);
  const a = rows[0];
  if (!a) return null;
  const variables = { ...(a.variables ?? {}), ...deps.callVariables };
  // Unreadable own keys throw (not the deployment's instead): the hand-over fails, the call goes on as it was.
  const registry = await deps.providers.forAccount(deps.userId);
  const voice = voiceOf(speakingVoiceRow(a), registry, deps.log);
  return {
    id: a.id,
    name: a.name,
    systemPrompt: fillTemplate(a.system_prompt, variables),
    initialMessage: fillSpokenTemplate(a.initial_message, variables),
    model: a.model ?? DEFAULT_MODEL,
    temperature: temperatureOf(a.llm_temperature),
    tools: a.tools,
    builtinTools: a.builtin_tools ?? [],
    endCallDescription: a.end_call_tool_description,
    timezone: a.timezone ?? 'UTC',
    voice: (sampleRate) => (voice ? { provider: voice.provider, options: { ...voice.options, sampleRate } } : null),
  };
}

/**
 * warm_call_transfer's reach into the call's world: the supervisor's leg is placed on the carrier
 * of the user's number `outbound_phone_id`, showing the caller id the tool's `caller_id_mode` asks
 * for, and the summary is the call's LLM reading the transcript so far after the tool's
 * instructions.
 *
 * A carrier whose network we steer over its API (Twilio) can join the two legs only when the
 * caller is on that carrier too; anything else would ring a real supervisor for a join that
 * cannot happen, so it is refused before dialing. Simulated carriers (the sandbox) always dial.
 */
export function warmTransferDeps(deps: {
  pool: Pool;
  userId: number;
  /** The carrier the caller's call is on, and the caller's number (caller_id_mode `customer_number`). */
  callCarrier: string;
  customerNumber: string;
  /** ISO 639-1 of the assistant's language: the network's voice for the briefing. */
  languageIso2: string | null;
  carriers: CarrierRegistry;
  fallback: Carrier;
  llm: LlmProvider;
  model: string;
  transcript: () => string;
  note: (line: string) => void;
  log: Logger;
}): Pick<WarmTransferDeps, 'dial' | 'summarize'> {
  return {
    dial: async (to, phoneId, callerId) => {
      const { rows } = await deps.pool.query<{ phone_number: string; carrier: string }>('SELECT phone_number, carrier FROM phone_numbers WHERE id = $1 AND user_id = $2', [phoneId, deps.userId]);
      const number = rows[0];
      if (!number) return { error: 'the outbound number of this transfer is not available' };
      const from = callerIdOf(callerId, number.phone_number, deps.customerNumber);
      const carrier = deps.carriers.get(number.carrier) ?? deps.fallback;
      const request = { customer: to, assistant: from, direction: 'outbound' as const };
      if (!placesRemotely(carrier)) return { from, leg: carrier.dial(request) };
      if (!carrier.placeLeg || carrier.name !== deps.callCarrier) {
        return { error: `the outbound number is a ${carrier.name} number and this call is not on ${carrier.name}: the two calls could not be joined` };
      }
      const leg = carrier.placeLeg(deps.userId, request, {
        language: sayLanguage(deps.languageIso2),
        fallbackFrom: number.phone_number,
        onCallerIdRefused: (refused, used) => deps.note(`Warm transfer: the carrier refused ${refused} as the caller id; the supervisor sees ${used}.`),
      });
      return { from, leg };
    },
    summarize: async (instructions, signal) => {
      try {
        const completion = await deps.llm.complete({
          model: deps.model,
          temperature: 0.2,
          messages: [
            { role: 'system', content: instructions },
            { role: 'user', content: deps.transcript() },
          ],
          tools: [],
          signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
        });
        return completion.text;
      } catch (err) {
        if (!signal.aborted) deps.log.warn({ err: { message: (err as Error).message } }, "the warm transfer's summary failed; the supervisor hears the briefing message only");
        throw err;
      }
    },
  };
}

/** The number the supervisor sees: the outbound number, the caller's own, or the tool's custom one. */
export function callerIdOf(choice: CallerIdChoice, outbound: string, customer: string): string {
  if (choice.mode === 'customer_number' && customer) return customer;
  if (choice.mode === 'custom' && choice.custom) return choice.custom;
  return outbound;
}

/** Locales of the network's `<Say>` voice for the languages assistants are set in most (else its default). */
const SAY_LOCALES: Record<string, string> = {
  en: 'en-US', de: 'de-DE', fr: 'fr-FR', es: 'es-ES', it: 'it-IT', pt: 'pt-BR', nl: 'nl-NL', pl: 'pl-PL', sv: 'sv-SE', da: 'da-DK',
  nb: 'nb-NO', fi: 'fi-FI', ja: 'ja-JP', ko: 'ko-KR', zh: 'zh-CN', ru: 'ru-RU', tr: 'tr-TR', ar: 'ar-AE', hi: 'hi-IN',
};

function sayLanguage(iso2: string | null): string | undefined {
  return iso2 ? SAY_LOCALES[iso2.toLowerCase()] : undefined;
}
