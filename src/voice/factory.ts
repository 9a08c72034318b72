/**
 * The engine's side of the voice core: from the assistant's stored settings and the account's
 * provider registry, the factory that builds an audio leg's pipeline.
 *
 * - text-to-speech: the assistant's `synthesizer_provider_id` when that provider is registered
 *   (with the voice's own id when the voice is that provider's, else the provider's default
 *   voice); else the provider the assistant's voice names (its `provider`, `provider_voice_id`);
 *   else the local voice; with none the call cannot speak and converses in text;
 * - speech-to-text: the assistant's `transcriber_provider_id` when registered, else Deepgram
 *   when registered (its key is set), else the OpenAI-compatible server, else none (only legs
 *   that know the caller's words, like the sandbox, converse);
 * - voice activity: the deployment's VAD model (Silero), else the energy fallback (logged);
 * - `mode: multimodal`: a speech-to-speech session with the registry's realtime provider
 *   (speech-to-speech.ts) instead of all of the above; without one the call runs the pipeline
 *   and its transcript says so.
 */
import type { RateConversion } from '../audio/resample-thread.js';
import type { Logger } from 'pino';
import type { ProviderRegistry } from '../providers/registry.js';
import type { TtsProvider, TtsStreamOptions } from '../providers/tts/types.js';
import type { Clock } from '../telephony/clock.js';
import { NoiseGateStage } from './noise-gate.js';
import type { RealtimeProvider } from '../providers/realtime/types.js';
import { bargeInRule, endpointRule } from './sensitivity.js';
import { Floor, type EndpointType } from './settings.js';
import { DEFAULT_PROVIDER_VOICES, sttOptionsFor, ttsOptionsFor, type VoiceSettingsRow } from './speech-options.js';
import { instructionsOf, SpeechToSpeechStage } from './speech-to-speech.js';
import { EnergyVad, type VadModel } from './vad.js';
import { VoiceCall, type VoiceCallFactory } from './voice-call.js';
import type { SmartTurn } from './turn/smart-turn.js';

export interface AssistantVoiceRow extends VoiceSettingsRow {
  /** `pipeline` (default) or `multimodal`. */
  mode?: string;
  endpointType: string;
  interruptSensitivity: string | number;
  allowInterruptions: boolean;
  minInterruptWords: number;
  /** `backchannel_words`: the assistant's own words that never interrupt (turn/backchannel.ts). */
  backchannelWords?: readonly string[];
  noiseCancellation: boolean;
  /** `ambient_sound` / `ambient_sound_volume` (src/voice/ambient.ts). */
  ambientSound?: string;
  ambientSoundVolume?: string | number;
  /** Registry name of the provider `synthesizer_provider_id` selects (src/providers/catalog.ts), if any. */
  synthesizerProvider?: string | null;
  /** Registry name of the provider `transcriber_provider_id` selects, if any. */
  transcriberProvider?: string | null;
}

/** The deployment's VAD: `prepare` (loads it once) before `model`, which gives one per call, or null when there is none. */
export interface VadModels {
  prepare(): Promise<void>;
  model(sampleRate: number): VadModel | null;
}

/** What the factory is given besides the assistant and the providers. */
export interface VoiceFactoryDeps {
  clock: Clock;
  log: Logger;
  vad?: VadModels;
  /** The process's Smart Turn model (TURN_MODEL_PATH), or none: the end-of-turn policy's audio signal. */
  turnModel?: SmartTurn | null;
  /** Where TTS audio at another rate than the leg's is converted (the process's resampling thread); none: at playout. */
  rates?: RateConversion | null;
}

export function voiceFactory(
  row: AssistantVoiceRow,
  registry: ProviderRegistry,
  deps: VoiceFactoryDeps,
): VoiceCallFactory | undefined {
  const { log } = deps;
  if (row.mode === 'multimodal') {
    const realtime = registry.realtime.get(row.voiceProvider) ?? registry.realtime.values().next().value;
    if (realtime) return speechToSpeechFactory(row, realtime, deps);
    log.warn('the assistant is in multimodal mode but no speech-to-speech server is configured; running the pipeline');
    const pipeline = pipelineFactory(row, registry, deps);
    return pipeline && ((media, conversation) => {
      const call = pipeline(media, conversation);
      call.note(MULTIMODAL_FALLBACK_NOTE);
      return call;
    });
  }
  return pipelineFactory(row, registry, deps);
}

/** The transcript's line when `mode: multimodal` falls back to the pipeline. */
export const MULTIMODAL_FALLBACK_NOTE =
  '[multimodal mode requested, but no speech-to-speech server is configured (REALTIME_URL): this call ran the speech-to-text, language model and text-to-speech pipeline]';

function pipelineFactory(
  row: AssistantVoiceRow,
  registry: ProviderRegistry,
  deps: VoiceFactoryDeps,
): VoiceCallFactory | undefined {
  const { log, clock } = deps;
  const voice = voiceOf(row, registry, log);
  if (!voice) return undefined;
  const { provider: tts, options: ttsOptions } = voice;
  const selectedStt = row.transcriberProvider ? registry.stt.get(row.transcriberProvider) : undefined;
  if (row.transcriberProvider && !selectedStt) log.warn({ transcriber: row.transcriberProvider }, "the assistant's transcriber provider is not configured; using the deployment's");
  const stt = selectedStt ?? registry.stt.get('deepgram') ?? registry.stt.get('openai') ?? null;
  const endpointType: EndpointType = row.endpointType === 'ai' ? 'ai' : 'vad';
  return (media, conversation) => {
    let vad = deps.vad?.model(media.sampleRate) ?? null;
    if (!vad) {
      log.warn('no VAD model available; using the energy fallback (loud noise counts as speech)');
      vad = new EnergyVad(media.sampleRate);
    }
    if (!stt) log.info('no speech-to-text provider configured; the caller is understood only on legs that know their words');
    return new VoiceCall({
      media,
      clock,
      log,
      llm: conversation.llm,
      tracker: conversation.tracker,
      tapStages: conversation.tapStages,
      keysTaken: conversation.keysTaken,
      inputStages: row.noiseCancellation ? [new NoiseGateStage(media.sampleRate)] : [],
      ambient: ambientOf(row),
      tts: { provider: tts, options: { ...ttsOptions, sampleRate: media.sampleRate }, rates: deps.rates ?? null },
      stt: stt ? { provider: stt, options: sttOptionsFor(row, media.sampleRate) } : null,
      vad,
      turnModel: deps.turnModel ?? null,
      turnTaking: {
        endpointType,
        endpointSensitivity: Number(row.endpointSensitivity),
        interruptSensitivity: Number(row.interruptSensitivity),
        allowInterruptions: row.allowInterruptions,
        minInterruptWords: Math.max(0, row.minInterruptWords),
        backchannelWords: row.backchannelWords ?? [],
      },
    });
  };
}

/**
 * The assistant's voice among the registered providers (stream options at 8 kHz; the leg's rate
 * replaces it), or null when nothing can speak. Also the voice of an assistant that takes a call
 * over (assistant_transfer).
 */
export function voiceOf(
  row: VoiceSettingsRow & Pick<AssistantVoiceRow, 'synthesizerProvider'>,
  registry: ProviderRegistry,
  log: Logger,
): { provider: TtsProvider; options: TtsStreamOptions } | null {
  const selected = row.synthesizerProvider ? registry.tts.get(row.synthesizerProvider) : undefined;
  if (row.synthesizerProvider && !selected) log.warn({ synthesizer: row.synthesizerProvider }, "the assistant's synthesizer provider is not configured; using its voice's provider");
  // The synthesizer selected on the assistant speaks; the voice's id only when it is that provider's voice.
  const voiceRow = selected && selected.name !== row.voiceProvider ? { ...row, voiceProvider: selected.name, providerVoiceId: null } : row;
  const chosen = ttsOptionsFor(voiceRow, 8000);
  const tts = registry.tts.get(chosen.provider) ?? registry.tts.get('local');
  if (!tts) {
    log.warn({ voiceProvider: chosen.provider }, 'no text-to-speech provider for the voice; audio legs cannot speak');
    return null;
  }
  const options = tts.name === chosen.provider ? chosen.options : { ...chosen.options, voice: ttsOptionsFor({ ...voiceRow, voiceProvider: tts.name, providerVoiceId: null }, 8000).options.voice };
  return { provider: tts, options };
}

/** The ambient bed's settings (the output stage plays it for the whole call when audible). */
function ambientOf(row: AssistantVoiceRow): { sound: string; volume: string | number } {
  return { sound: row.ambientSound ?? 'none', volume: row.ambientSoundVolume ?? 0 };
}

/**
 * `mode: multimodal`: the session's settings from the assistant's — instructions = the prompt,
 * the voice (the voice list's id for this provider, else its default), language, speed, and the
 * model's turn detection from `endpoint_sensitivity` (silence) and `interrupt_sensitivity`
 * (its speech threshold); barge-in rules stay the core's (speech-to-speech.ts).
 */
function speechToSpeechFactory(row: AssistantVoiceRow, realtime: RealtimeProvider, deps: { clock: Clock; log: Logger }): VoiceCallFactory {
  const { log, clock } = deps;
  const speech = ttsOptionsFor(row, 24_000).options;
  const ownVoice = row.voiceProvider === realtime.name ? row.providerVoiceId?.trim() : undefined;
  const voice = ownVoice || DEFAULT_PROVIDER_VOICES[realtime.name] || 'alloy';
  if (!ownVoice) log.info({ voice, voiceProvider: row.voiceProvider }, "the assistant's voice is not the speech-to-speech provider's; using its default voice");
  return (media, conversation) => {
    const llm = conversation.llm;
    const floor = new Floor();
    const stage = new SpeechToSpeechStage({
      provider: realtime,
      session: {
        instructions: instructionsOf(llm.messages),
        voice,
        language: speech.language ?? 'en',
        speed: speech.speed,
        tools: llm.specs.map((s) => ({ name: s.name, description: s.description, parameters: s.parameters })),
        turnDetection: { silenceMs: endpointRule(row.endpointSensitivity).silenceMs, threshold: bargeInRule(row.interruptSensitivity).vadThreshold },
      },
      legRate: media.sampleRate,
      floor,
      allowInterruptions: row.allowInterruptions,
      minInterruptWords: Math.max(0, row.minInterruptWords),
      conversation: llm,
    });
    return new VoiceCall({
      media,
      clock,
      log,
      llm,
      floor,
      speechToSpeech: stage,
      tracker: conversation.tracker,
      tapStages: conversation.tapStages,
      keysTaken: conversation.keysTaken,
      inputStages: row.noiseCancellation ? [new NoiseGateStage(media.sampleRate)] : [],
      ambient: ambientOf(row),
      turnTaking: {
        endpointType: 'ai',
        endpointSensitivity: Number(row.endpointSensitivity),
        interruptSensitivity: Number(row.interruptSensitivity),
        allowInterruptions: row.allowInterruptions,
        minInterruptWords: Math.max(0, row.minInterruptWords),
      },
    });
  };
}
