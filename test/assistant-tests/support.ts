/** A test assistant as the runner takes it (the Switchboard tour's, with two tools), and a silent logger. */
import pino from 'pino';
import type { TestAssistant } from '../../src/assistant-tests/assistant.js';
import { parseScenarioDocument, type Scenario } from '../../src/assistant-tests/scenario.js';

export const silent = pino({ level: 'silent' });

export function tourAssistant(over: Partial<TestAssistant> = {}): TestAssistant {
  return {
    id: null,
    name: 'Tour',
    version: null,
    assistant_variables: { name: 'Sam' },
    system_prompt: 'You book appointments for the Switchboard tour.',
    initial_message: 'Hi {{name}}, this is the Switchboard tour.',
    wait_for_customer: false,
    end_call_on_voicemail: false,
    voice_mail_message: null,
    language_iso2: 'en',
    silence_goodbye_message: null,
    max_duration: 300,
    max_silence_duration: 40,
    reengagement_interval: 30,
    model: 'gpt-4o-mini',
    llm_temperature: '0.10',
    tools: [
      { id: 1, name: 'check_calendar', description: 'Free slots on a day', endpoint: 'http://127.0.0.1:9/calendar', method: 'GET', timeout: 5, headers: [], schema: [{ name: 'day', type: 'string', description: 'The day' }] },
      { id: 2, name: 'cancel_booking', description: 'Cancels a booking', endpoint: 'http://127.0.0.1:9/cancel', method: 'POST', timeout: 5, headers: [], schema: [] },
    ],
    end_call_tool_description: null,
    fillers: false,
    filler_config: { neutral: [], negative: [], positive: [], question: [] },
    builtin_tools: [],
    post_call_schema: [{ name: 'day', type: 'string', description: 'The day the caller booked' }],
    post_call_evaluation: true,
    timezone: 'UTC',
    mode: 'pipeline',
    ...over,
  };
}

export function scenario(yaml: string): Scenario {
  const r = parseScenarioDocument(yaml, 'test.yaml');
  if ('errors' in r) throw new Error(JSON.stringify(r.errors));
  return r.scenarios[0]!;
}
