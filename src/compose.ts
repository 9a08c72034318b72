/**
 * The composition of a Switchboard process: which background parts run (in start order) and
 * which carriers and providers calls use. The only module that names concrete parts and
 * adapters; `src/service.ts` (the composition root) assembles what it is given from here.
 * `src/main.ts` passes `fullProcess`; tests and benchmarks pass the parts they need (e.g.
 * `[callEnginePart]`), or none for an HTTP-only process.
 */
import { callCountsPart } from './calls/call-counts.js';
import { callEnginePart } from './calls/index.js';
import { END_CALL_TOOL } from './calls/session.js';
import type { Config } from './config.js';
import { dialerPart } from './dialer/index.js';
import { knowledgePart } from './knowledge/index.js';
import { testRunsPart } from './assistant-tests/run-queue.js';
import type { PartFactory } from './parts.js';
import { createLlmProvider } from './providers/llm/index.js';
import { ProviderRegistry } from './providers/registry.js';
import { speechProviders, type SpeechConfig } from './providers/speech.js';
import { LocalTts } from './providers/tts/local/index.js';
import { synthesizer } from './providers/synthesize.js';

/** The sandbox customer's local voice: a different one from the assistants' default (en-us). */
const SANDBOX_CUSTOMER_VOICE = 'en-gb';
import type { TtsProvider } from './providers/tts/types.js';
import { CarrierRegistry } from './telephony/registry.js';
import { SandboxCarrier } from './telephony/sandbox/carrier.js';
import { WebCarrier } from './telephony/web/carrier.js';
import { TwilioCarrier } from './telephony/twilio/carrier.js';
import type { TwilioCredentials } from './telephony/twilio/rest-client.js';
import { webhookDeliveryPart } from './webhooks/background.js';
import { webhookRetentionPart } from './webhooks/retention.js';

export const fullProcess: readonly PartFactory[] = [
  // The call engine first: its recovery sweep ends calls of dead processes early.
  callEnginePart,
  webhookDeliveryPart,
  // Prunes the delivery log of finished webhook messages every hour.
  webhookRetentionPart,
  // Folds the call list's counter shards every minute.
  callCountsPart,
  // The campaign dialer (subscribes its own call-finished queue; start order does not matter).
  dialerPart,
  // Processes knowledge-base documents on the job queue.
  knowledgePart,
  // Runs assistant tests in the background (the runs this process accepted).
  testRunsPart,
];

export type TwilioConfig = Pick<Config, 'TWILIO_ACCOUNT_SID' | 'TWILIO_AUTH_TOKEN' | 'TWILIO_API_URL' | 'publicBaseUrl'>;

/**
 * The carriers of a process: the sandbox (the default), the browser's (web calls), and Twilio when there are Twilio
 * credentials: the deployment's (TWILIO_ACCOUNT_SID + TWILIO_AUTH_TOKEN) or accounts' own,
 * looked up per call with `twilioAccounts` (the composition root passes the database lookup).
 */
export function carriersFromConfig(
  config: Pick<Config, 'SANDBOX_TIME_SCALE'> & Partial<TwilioConfig>,
  deps: { twilioAccounts?: (userId: number) => Promise<TwilioCredentials | null> } = {},
): CarrierRegistry {
  // At real pace the sandbox's customer speaks with the local voice (en-gb; assistants default to en-us).
  const customerVoice = synthesizer(sharedLocalVoice(), SANDBOX_CUSTOMER_VOICE);
  const registry = new CarrierRegistry([new SandboxCarrier({ timeScale: config.SANDBOX_TIME_SCALE, voice: customerVoice }), new WebCarrier()]);
  const global = config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN ? { accountSid: config.TWILIO_ACCOUNT_SID, authToken: config.TWILIO_AUTH_TOKEN } : undefined;
  if ((global || deps.twilioAccounts) && config.publicBaseUrl) {
    registry.add(
      new TwilioCarrier({
        apiUrl: config.TWILIO_API_URL ?? 'https://api.twilio.com',
        publicBaseUrl: config.publicBaseUrl,
        credentials: global,
        accountCredentials: deps.twilioAccounts,
      }),
    );
  }
  return registry;
}

let localVoice: LocalTts | undefined;

/**
 * The local voice (eSpeak NG in child processes, src/providers/tts/local): one pool per
 * process, shared by every registry, started on first use; reports itself unavailable when the
 * optional package is not installed.
 */
export function sharedLocalVoice(): LocalTts {
  localVoice ??= new LocalTts();
  return localVoice;
}

/**
 * The providers of a process: the LLM at LLM_BASE_URL, else the offline stand-in; the speech
 * providers the configuration enables (src/providers/speech.ts), always with the local voice
 * (the seeded voices are `local`).
 */
export function providersFromConfig(config: Pick<Config, 'LLM_BASE_URL' | 'LLM_API_KEY'> & SpeechConfig, local: TtsProvider = sharedLocalVoice()): ProviderRegistry {
  return new ProviderRegistry(createLlmProvider(config, END_CALL_TOOL), speechProviders(config, {}, local));
}
