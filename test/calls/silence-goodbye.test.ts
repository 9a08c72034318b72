/**
 * Endings on the audio path (issue 26, item 6): a caller who stays silent is re-engaged, then the
 * assistant says a closing line and hangs up once it was heard — in the assistant's language,
 * replaced by `silence_goodbye_message`, or none when that is ''. The leg is an audio line driven
 * by hand (the sandbox's media line, real audio at real pace), the voice the OpenAI speech
 * double; timers are short so the three calls run side by side in a few seconds.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallSession, type SessionSettings } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { ChatDouble } from '../support/doubles/chat.js';
import { OpenAiSpeechDouble } from '../support/doubles/openai-speech.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });

/** A silent caller's audio leg: it answers and says nothing; records when it was hung up. */
class SilentLeg implements CarrierLeg {
  readonly media = new SandboxMedia(8000, systemClock);
  hungUpAfterMs: number | null = null;
  private listener: (e: LegEvent) => void = () => undefined;
  onEvent(l: (e: LegEvent) => void) {
    this.listener = l;
  }
  start() {
    setTimeout(() => this.listener({ type: 'answered', answeredBy: 'human' }), 10);
  }
  hangUp() {
    this.hungUpAfterMs ??= (this.media.heard().length / 8000) * 1000;
    this.media.close();
  }
}

let chat: ChatDouble;
let speech: OpenAiSpeechDouble;

beforeAll(async () => {
  chat = await new ChatDouble().start();
  speech = await new OpenAiSpeechDouble().start();
});
afterAll(async () => {
  await chat.close();
  await speech.close();
});

async function silentCall(overrides: Partial<SessionSettings>, language = 'en') {
  const tts = new OpenAiTts({ baseUrl: speech.baseUrl, apiKey: speech.knobs.apiKey!, model: 'tts-1' });
  const llm = new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl });
  const factory = voiceFactory(voiceRow({ languageIso2: language }), new ProviderRegistry(llm, { tts: [tts] }), { clock: systemClock, log });
  const leg = new SilentLeg();
  const session = new CallSession(
    // One prompt 3 s into the silence; the silence limit 1.5 s after it, well before a second one
    // (timers of several calls share Node's lists: a stalled loop may run them out of order).
    sessionSettings({ initialMessage: 'Hello.', reengagementSec: 3, maxSilenceSec: 1.5, language, ...overrides }),
    { leg, llm, tools: new ToolRunner({ allowPrivate: true, log }), clock: systemClock, log, voice: factory },
  );
  const result = await session.run();
  return { result, lines: result.transcript.split('\n'), leg };
}

describe('silence on an audio leg', () => {
  it('re-engages, then says the closing line (default, localized, the assistant\'s own, or none) and hangs up once it was heard', { timeout: 60_000 }, async () => {
    const [english, german, own, none] = await Promise.all([
      silentCall({}),
      silentCall({}, 'de'),
      silentCall({ silenceGoodbyeMessage: 'Thank you for calling. Goodbye!' }),
      silentCall({ silenceGoodbyeMessage: '' }),
    ]);
    for (const call of [english, german, own, none]) {
      expect(call.result.status).toBe('ended_by_assistant');
      // The history has what was said, the re-engagement and closing lines included.
      const said = call.result.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
      expect(said, JSON.stringify(call.lines)).toEqual(call.lines.map((l) => l.replace(/^AI: /, '')));
    }
    expect(english.lines).toEqual(['AI: Hello.', 'AI: Are you still there?', 'AI: It seems you are no longer there. Goodbye!']);
    expect(german.lines).toEqual(['AI: Hello.', 'AI: Sind Sie noch da?', 'AI: Sie scheinen nicht mehr da zu sein. Auf Wiederhören!']);
    expect(own.lines).toEqual(['AI: Hello.', 'AI: Are you still there?', 'AI: Thank you for calling. Goodbye!']);
    expect(none.lines).toEqual(['AI: Hello.', 'AI: Are you still there?']);
    // Transcript lines come when a line has played out (playback-done, its last mark back from the
    // line): the closing line is there whole, so the hang-up came after the caller heard all of it.
  });
});
