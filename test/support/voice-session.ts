/**
 * Defaults for building a call session on an audio leg in tests: the assistant's voice row
 * (the OpenAI speech double's `alloy`, middle sensitivities, VAD endpointing), the session's
 * settings (a booking assistant with a greeting) and a mid-call tool asking a local endpoint for
 * free slots. Each test overrides only what it is about, so what a test changes stands out.
 */
import type { SessionSettings } from '../../src/calls/session.js';
import type { MidCallTool } from '../../src/calls/tool-runner.js';
import type { AssistantVoiceRow } from '../../src/voice/factory.js';

export function voiceRow(overrides: Partial<AssistantVoiceRow> = {}): AssistantVoiceRow {
  return {
    voiceProvider: 'openai',
    providerVoiceId: 'alloy',
    languageIso2: 'en',
    voiceStability: '0.7',
    voiceSimilarity: '0.5',
    speechSpeed: '1',
    endpointSensitivity: '2.5',
    endpointType: 'vad',
    interruptSensitivity: '2.5',
    allowInterruptions: true,
    minInterruptWords: 0,
    noiseCancellation: false,
    ...overrides,
  };
}

export function sessionSettings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return {
    systemPrompt: 'You book appointments.',
    initialMessage: 'Hello, this is Anna from the clinic.',
    waitForCustomer: false,
    endCallOnVoicemail: false,
    maxDurationSec: 120,
    maxSilenceSec: 60,
    reengagementSec: 30,
    model: 'double',
    temperature: 0,
    tools: [],
    endCallDescription: null,
    variables: {},
    ...overrides,
  };
}

/** The mid-call tool `free_slots` (a `day` argument), posting to `endpoint` (a local receiver in tests). */
export function freeSlotsTool(endpoint: string): MidCallTool {
  return {
    id: 7,
    name: 'free_slots',
    description: 'Free appointment slots of a day',
    endpoint,
    method: 'POST',
    timeout: 5,
    headers: [],
    schema: [{ name: 'day', type: 'string', description: 'the day' }],
  };
}
