/**
 * A `mode: multimodal` voice call for tests, built the way the engine builds one: the voice
 * factory with a registry that has the Realtime double (or not), on a sandbox media line at the
 * given rate, with a conversation of its own (the system prompt, the `free_slots` mid-call tool,
 * end-call). It records the frames, transcript lines and notes the call reports, and has the
 * helpers the speech-to-speech tests wait and listen with.
 */
import type pino from 'pino';
import { concat, silence } from '../../src/audio/pcm.js';
import type { ToolCallRecord } from '../../src/calls/session-types.js';
import { callTools, ToolRunner, toolFunction } from '../../src/calls/tool-runner.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { voiceFactory, type AssistantVoiceRow } from '../../src/voice/factory.js';
import type { Frame } from '../../src/voice/frames.js';
import { END_CALL_FUNCTION } from '../../src/voice/llm.js';
import type { TranscriptLine } from '../../src/voice/voice-call.js';
import type { ChatMessage } from '../../src/providers/llm/types.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { OpenAiRealtime } from '../../src/providers/realtime/openai/index.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import type { VoiceDoubles } from './doubles/voice.js';
import { freeSlotsTool, voiceRow } from './voice-session.js';

/** The voice row of the speech-to-speech tests: multimodal, the Realtime double's `shimmer`. */
export const MULTIMODAL_ROW = voiceRow({ mode: 'multimodal', providerVoiceId: 'shimmer' });

/** The doubles' providers: the chat double, the OpenAI speech double and (unless told not to) the Realtime double. */
export function doublesRegistry(voice: VoiceDoubles, withRealtime = true): ProviderRegistry {
  const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
  return new ProviderRegistry(llm, {
    tts: [new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' })],
    realtime: withRealtime ? [new OpenAiRealtime({ url: voice.realtime.url, apiKey: voice.realtime.knobs.apiKey!, connectTimeoutMs: 5000 })] : [],
  });
}

export interface MultimodalCallOptions {
  voice: VoiceDoubles;
  log: pino.Logger;
  prompt: string;
  /** Where `free_slots` posts (a local receiver). */
  toolEndpoint: string;
  rate: 8000 | 16_000;
  row?: Partial<AssistantVoiceRow>;
  providers?: ProviderRegistry;
  /** True while a collect-keypad call takes the caller's keys (the session's toolbox in a call). */
  keysTaken?: () => boolean;
}

export function multimodalCall(o: MultimodalCallOptions) {
  const { voice, log, rate } = o;
  const providers = o.providers ?? doublesRegistry(voice);
  const media = new SandboxMedia(rate, systemClock);
  const recorder = new MemoryTurnRecorder();
  const messages: ChatMessage[] = [{ role: 'system', content: o.prompt }];
  const frames: Frame[] = [];
  const lines: TranscriptLine[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const tools = [freeSlotsTool(`${o.toolEndpoint}/free`)];
  const factory = voiceFactory({ ...MULTIMODAL_ROW, ...o.row }, providers, { clock: systemClock, log });
  const vc = factory!(media, {
    llm: {
      llm: providers.llm,
      model: 'double',
      temperature: 0,
      messages,
      tools: callTools(tools, new ToolRunner({ allowPrivate: true, log })),
      specs: [...tools.map(toolFunction), { name: END_CALL_FUNCTION, description: 'End the call.', parameters: { type: 'object', properties: {} } }],
      variables: {},
      onToolCall: (r) => toolCalls.push(r),
    },
    tracker: new TurnTracker(recorder, systemClock),
    tapStages: [],
    keysTaken: o.keysTaken,
  });
  vc.onFrame((f) => frames.push(f));
  vc.onLine((l) => lines.push(l));
  const notes: string[] = [];
  vc.onNote((n) => notes.push(n));
  const waitFor = (test: (f: Frame) => boolean, timeoutMs = 15_000) =>
    new Promise<Frame>((resolve, reject) => {
      const seen = frames.find(test);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms`)), timeoutMs);
      vc.onFrame((f) => {
        if (test(f)) {
          clearTimeout(timer);
          resolve(f);
        }
      });
    });
  /** The caller says a fixture (real eSpeak speech), with silence around it. */
  const speak = (name: string, afterMs = 1200) => media.speak(concat([silence(300, rate), voice.fixture(name, rate), silence(afterMs, rate)]));
  /** Audio handed to the leg for one turn. */
  const audioOf = (turn: number) => concat(frames.flatMap((f) => (f.kind === 'audio-out' && f.turn === turn ? [f.samples] : [])));
  return { vc, media, recorder, messages, frames, lines, notes, toolCalls, waitFor, speak, audioOf };
}
