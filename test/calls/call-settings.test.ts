import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, DEFAULT_TEMPERATURE, sessionSettingsOf, temperatureOf } from '../../src/calls/call-settings.js';
import type { LoadedCall } from '../../src/calls/call-queries.js';

describe('call settings', () => {
  it.each([
    ['0.7', 0.7],
    ['0', 0],
    ['1.0', 1],
    ['', DEFAULT_TEMPERATURE],
    ['abc', DEFAULT_TEMPERATURE],
    [null, DEFAULT_TEMPERATURE],
    ['NaN', DEFAULT_TEMPERATURE],
  ])('temperature %j reads as %f', (stored, expected) => {
    expect(temperatureOf(stored)).toBe(expected);
  });

  it("fills the prompt, opening line, voicemail message and closing line with the call's variables over the assistant's", () => {
    const call = {
      assistant_variables: { name: 'Assistant default', city: 'Berlin' },
      call_variables: { name: 'Ada' },
      system_prompt: 'Call {{name}} in {{city}}.',
      initial_message: 'Hello {{name}}!',
      voice_mail_message: 'Please call back, {{name}}.',
      silence_goodbye_message: 'Goodbye, {{name}}. {{unknown}}',
      language_iso2: 'de',
      wait_for_customer: false,
      end_call_on_voicemail: true,
      max_duration: 300,
      max_silence_duration: 30,
      reengagement_interval: 10,
      model: null,
      llm_temperature: '0.3',
      tools: [],
      end_call_tool_description: null,
      fillers: false,
      filler_config: { neutral: [], negative: [], positive: [], question: [] },
    } as unknown as LoadedCall;
    const settings = sessionSettingsOf(call);
    expect(settings).toMatchObject({
      systemPrompt: 'Call Ada in Berlin.',
      initialMessage: 'Hello Ada!',
      voicemailMessage: 'Please call back, Ada.',
      silenceGoodbyeMessage: 'Goodbye, Ada.',
      language: 'de',
      model: DEFAULT_MODEL,
      temperature: 0.3,
      variables: { name: 'Ada', city: 'Berlin' },
      maxDurationSec: 300,
    });
  });
});
