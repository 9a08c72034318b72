/**
 * Scripted answers to the caller's first turn on audio legs, through the real session and voice
 * core with real audio (vendors replaced by their protocol doubles):
 * - `wait_for_customer`: nothing is said at the answer; the opening line is spoken once the
 *   caller has spoken (VAD speech, the Deepgram double's transcript, the VAD endpoint);
 * - `voice_mail_message`: on the sandbox's voicemail box (a number ending in 94) the message is
 *   left after the box's greeting, then the assistant hangs up (`ended_by_assistant`);
 *   `end_call_on_voicemail` without a message hangs up at once, saying nothing.
 * What the caller heard is matched back to the expected sentence from the line's audio.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { DeepgramStt } from '../../src/providers/stt/deepgram/index.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { CarrierLeg, LegEvent } from '../../src/telephony/types.js';
import { fixture } from '../support/audio-fixtures.js';
import { ClipBook, speechLike } from '../support/doubles/clips.js';
import { SPEECH_RATE } from '../support/doubles/openai-speech.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const RATE = 8000;
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(async () => voice.close());

const ROW = voiceRow();

const settings = sessionSettings;

function providers(withStt: boolean) {
  const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
  const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
  const stt = withStt ? [new DeepgramStt({ url: voice.deepgram.url, apiKey: voice.deepgram.knobs.apiKey })] : [];
  return { tts, llm, registry: new ProviderRegistry(llm, { tts: [tts], stt }) };
}

/** Whether the audio the caller heard is `text` as the speech double says it. */
function heardIs(samples: Int16Array, text: string): boolean {
  const book = new ClipBook(0.9).add(text, speechLike(text, SPEECH_RATE).samples, SPEECH_RATE);
  return book.matchAudio(samples, RATE)?.text === text;
}

/** Resolves once `check` holds (polled), or rejects after `timeoutMs`. */
function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`not within ${timeoutMs} ms: ${what}`));
      }
    }, 50);
  });
}

/** A phone line the test plays the caller on: answered at once, real audio both ways, no words of its own. */
class TestLine implements CarrierLeg {
  readonly media = new SandboxMedia(RATE, systemClock);
  private listener: (event: LegEvent) => void = () => undefined;
  private onAnswered: () => void = () => undefined;
  readonly answered = new Promise<void>((resolve) => (this.onAnswered = resolve));
  onEvent(listener: (event: LegEvent) => void): void {
    this.listener = listener;
  }
  start(): void {
    setTimeout(() => {
      this.listener({ type: 'answered', answeredBy: 'human' });
      this.onAnswered();
    }, 10);
  }
  hangUp(): void {
    this.media.close();
  }
  callerHangsUp(): void {
    this.listener({ type: 'hung-up' });
    this.media.close();
  }
}

describe('wait_for_customer on an audio leg', () => {
  it('says nothing at the answer; the opening line follows the caller’s first words (VAD, STT, end of turn)', { timeout: 90_000 }, async () => {
    const { llm, registry } = providers(true);
    const line = new TestLine();
    const recorder = new MemoryTurnRecorder();
    const turns = new TurnTracker(recorder, systemClock);
    const factory = voiceFactory(ROW, registry, { clock: systemClock, log });
    const session = new CallSession(settings({ waitForCustomer: true }), {
      leg: line,
      llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: factory,
      turns,
    });
    const before = voice.speech.received.length;
    const done = session.run();
    await line.answered;
    // A second of silence after the answer: the assistant waits for the caller.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(voice.speech.received.length).toBe(before);
    expect(line.media.heard().length).toBe(0);
    const words = fixture('book-appointment');
    // The caller's words, then the line's silence (a phone line keeps carrying audio: the VAD's
    // end of speech needs the quiet frames after the words).
    const speech = voice.fixture('book-appointment', RATE);
    const withSilence = new Int16Array(speech.length + 2 * RATE);
    withSilence.set(speech);
    void line.media.speak(withSilence);
    // The greeting turn is recorded once its playback is done.
    await until(() => recorder.turns.length > 0, 'the greeting turn played out');
    expect(heardIs(line.media.heard(), 'Hello, this is Anna from the clinic.')).toBe(true);
    expect(recorder.turns[0]).toMatchObject({ kind: 'greeting', callerText: words.text, assistantText: 'Hello, this is Anna from the clinic.', interrupted: false });
    line.callerHangsUp();
    const result = await done;
    expect(result.status).toBe('ended_by_customer');
    expect(result.transcript.split('\n')).toEqual([`Customer: ${words.text}`, 'AI: Hello, this is Anna from the clinic.']);
    // The opening line answered the caller's words: the model was not asked.
    expect(result.messages.slice(1)).toEqual([
      { role: 'user', content: words.text },
      { role: 'assistant', content: 'Hello, this is Anna from the clinic.' },
    ]);
    expect(voice.speech.received.slice(before).map((r) => r.body.input)).toEqual(['Hello, this is Anna from the clinic.']);
  });
});

describe('voicemail on a sandbox audio leg (…94)', () => {
  it('voice_mail_message: the box greets, the message is left after its greeting, then ended_by_assistant', { timeout: 90_000 }, async () => {
    const { tts, llm, registry } = providers(false);
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000094', assistant: '', direction: 'outbound' });
    const message = 'Please call the clinic back today.';
    const session = new CallSession(settings({ voicemailMessage: message }), {
      leg,
      llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: voiceFactory(ROW, registry, { clock: systemClock, log }),
    });
    const before = voice.speech.received.length;
    const result = await session.run();
    expect(result).toMatchObject({ status: 'ended_by_assistant', answeredBy: 'machine' });
    expect(result.transcript.split('\n')).toEqual([`Customer: ${SANDBOX_SCRIPTS.voicemail}`, `AI: ${message}`]);
    // The box's greeting (echo) was spoken before the message (alloy), and the box recorded the message.
    expect(voice.speech.received.slice(before).map((r) => `${r.body.voice}:${r.body.input}`)).toEqual([`echo:${SANDBOX_SCRIPTS.voicemail}`, `alloy:${message}`]);
    expect(heardIs((leg.media as SandboxMedia).heard(), message)).toBe(true);
  });

  it('end_call_on_voicemail without a message: hangs up at once, nothing said', { timeout: 60_000 }, async () => {
    const { tts, llm, registry } = providers(false);
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000094', assistant: '', direction: 'outbound' });
    const session = new CallSession(settings({ endCallOnVoicemail: true }), {
      leg,
      llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: voiceFactory(ROW, registry, { clock: systemClock, log }),
    });
    const result = await session.run();
    expect(result).toMatchObject({ status: 'ended_by_assistant', answeredBy: 'machine', transcript: '' });
    expect(result.talkMs).toBeLessThan(1_000);
    expect((leg.media as SandboxMedia).heard().length).toBe(0);
  });
});
