/**
 * Audio mode: the assistant runs its real voice pipeline (VAD → speech-to-text → LLM →
 * text-to-speech) on a sandbox line the test drives (telephony `DrivenLeg`). The caller's lines
 * are spoken with the local voice (eSpeak NG, a different voice from the assistant's) as real
 * audio at real pace, and the assistant hears them only through the configured speech-to-text;
 * keys are DTMF on the line. Without a speech-to-text provider audio mode refuses: a run would
 * hear nothing.
 */
import type { Logger } from 'pino';
import type { ProviderRegistry } from '../providers/registry.js';
import { synthesizer } from '../providers/synthesize.js';
import type { Clock } from '../telephony/clock.js';
import type { DrivenLeg } from '../telephony/types.js';
import { voiceFactory, type AssistantVoiceRow, type VadModels } from '../voice/factory.js';
import type { SmartTurn } from '../voice/turn/smart-turn.js';
import type { VoiceCallFactory } from '../voice/voice-call.js';
import type { TestAssistant } from './assistant.js';
import type { CallerSide } from './leg.js';

/** What audio mode runs with (the process's; none: audio mode refuses). */
export interface AudioDeps {
  /** The speech providers: the speech-to-text that hears the caller, the assistant's voice, the local voice. */
  providers: ProviderRegistry;
  /** Opens a driven line (the sandbox carrier's `drivenLeg`). */
  line: () => DrivenLeg;
  vad?: VadModels;
  turnModel?: SmartTurn | null;
}

/** The local voice the caller speaks with (the sandbox's customer voice; assistants default to en-us). */
export const CALLER_VOICE = 'en-gb';

export const AUDIO_NEEDS_STT =
  'audio mode needs a speech-to-text provider to hear the caller, and none is configured: set DEEPGRAM_API_KEY or STT_BASE_URL (see docs/providers.md), or use mode: text';
export const AUDIO_NEEDS_LINE = "audio mode runs on the sandbox carrier's audio line, which this process does not have; use mode: text";
export const AUDIO_NEEDS_LOCAL_VOICE = "audio mode speaks the caller's lines with the local voice (eSpeak NG), which this process does not have; use mode: text";

/** Why audio mode cannot run with these deps, or null when it can. */
export function audioRefusal(audio: Pick<AudioDeps, 'providers'> | undefined): string | null {
  if (!audio) return AUDIO_NEEDS_LINE;
  if (audio.providers.stt.size === 0) return AUDIO_NEEDS_STT;
  if (!audio.providers.tts.get('local')) return AUDIO_NEEDS_LOCAL_VOICE;
  return null;
}

/** The voice settings a test assistant runs with: its own, or the assistants' defaults (a suite file's assistant). */
export function testVoiceRow(assistant: TestAssistant): AssistantVoiceRow {
  return (
    assistant.voice ?? {
      voiceProvider: 'local',
      providerVoiceId: null,
      languageIso2: assistant.language_iso2,
      voiceStability: '0.70',
      voiceSimilarity: '0.50',
      speechSpeed: '1.00',
      endpointSensitivity: '0.50',
      endpointType: 'vad',
      interruptSensitivity: '0.50',
      allowInterruptions: true,
      minInterruptWords: 0,
      noiseCancellation: false,
      mode: assistant.mode,
    }
  );
}

/** The assistant's voice pipeline for the line (undefined: nothing can speak). */
export async function testVoiceFactory(assistant: TestAssistant, audio: AudioDeps, log: Logger, clock: Clock): Promise<VoiceCallFactory | undefined> {
  await audio.vad?.prepare();
  return voiceFactory(testVoiceRow(assistant), audio.providers, { clock, log, vad: audio.vad, turnModel: audio.turnModel ?? null });
}

/**
 * The caller's side of a driven line: lines spoken with the local voice once the assistant's
 * audio has played out (a person does not talk over a reply they wait for), keys as DTMF (the
 * voice pipeline's keypad stage makes them a turn: `[keypad: 1]`).
 */
export class AudioCallerSide implements CallerSide {
  private readonly speak: (text: string, sampleRate: number) => Promise<Int16Array>;

  constructor(
    private readonly leg: DrivenLeg,
    providers: ProviderRegistry,
    /** Pause after the assistant's audio ends before the caller acts, ms. */
    private readonly thinkMs = 300,
  ) {
    this.speak = synthesizer(providers.tts.get('local')!, CALLER_VOICE);
  }

  get over(): boolean {
    return this.leg.over;
  }

  async callerSays(text: string): Promise<void> {
    const [samples] = await Promise.all([this.speak(text, this.leg.media.sampleRate), this.quiet()]);
    if (!this.leg.over) await this.leg.customerSpeaks(samples);
  }

  callerPresses(keys: string): void {
    this.leg.customerPresses(keys);
  }

  async callerKeysTurn(keys: string): Promise<void> {
    await this.quiet();
    this.leg.customerPresses(keys);
  }

  callerHangsUp(): void {
    this.leg.customerHangsUp();
  }

  /** Resolves once the assistant's audio has played out (and the caller has drawn breath). */
  private async quiet(): Promise<void> {
    while (!this.leg.over && this.leg.pendingMs > 0) await sleep(Math.min(this.leg.pendingMs, 100));
    await sleep(this.thinkMs);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
