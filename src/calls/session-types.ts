/**
 * The words a call session is built from: its settings, what it depends on, and what it
 * reports when the call is over. Kept apart from src/calls/session.ts so the text-leg turn
 * loop (src/calls/text-turns.ts) and the voice pipeline's LLM stage can share them without
 * importing the session itself.
 */
import type { ChatMessage, LlmProvider } from '../providers/llm/types.js';
import type { Clock } from '../telephony/clock.js';
import type { AnsweredBy, CarrierLeg, LegEvent } from '../telephony/types.js';
import type { FillerConfig } from '../db/schema.js';
import type { EndStatus } from './state-machine.js';
import type { MidCallTool, ToolOutcome } from './tool-runner.js';
import type { TurnTracker } from './turns.js';
import type { VoiceCallFactory } from '../voice/voice-call.js';
import type { CallKnowledge, ToolCallRecord } from '../voice/ports.js';
import type { BuiltinToolbox } from './builtin-tools/index.js';
import type { Logger } from 'pino';

/** The built-in function that ends the call (a hyphen keeps it apart from mid-call tool names). */
export const END_CALL_TOOL = 'end-call';
export const DEFAULT_END_CALL_DESCRIPTION = 'End the call once the conversation has reached its end or the customer wants to finish.';
export const REENGAGEMENT_LINE = 'Are you still there?';
export const APOLOGY_LINE = 'I am sorry, I am having technical difficulties. Goodbye.';
/** A carrier that reports neither an answer nor a failure within this time has lost the call. */
export const DIAL_TIMEOUT_MS = 120_000;
/** A voicemail box that says nothing for this long after the answer gets the message anyway (docs/decisions.md). */
export const SILENT_VOICEMAIL_MS = 10_000;

export interface SessionSettings {
  /** Already filled with the call's variables. */
  systemPrompt: string;
  initialMessage: string;
  waitForCustomer: boolean;
  endCallOnVoicemail: boolean;
  /**
   * `voice_mail_message` (already filled with the call's variables): left on a voicemail box
   * once its greeting has ended, then the call ends `ended_by_assistant`. Empty or absent: the
   * box is hung up on at once with `endCallOnVoicemail`, else talked to like a person.
   */
  voicemailMessage?: string;
  /** ISO 639-1 language of the assistant: the re-engagement and closing lines speak it (closing-lines.ts). Default `en`. */
  language?: string;
  /**
   * `silence_goodbye_message` (filled with the call's variables): said before the call is hung up
   * for the caller's silence; null or absent: the default line in `language`; '': none.
   */
  silenceGoodbyeMessage?: string | null;
  maxDurationSec: number;
  maxSilenceSec: number;
  reengagementSec: number;
  model: string;
  temperature: number;
  tools: MidCallTool[];
  endCallDescription: string | null;
  variables: Record<string, unknown>;
  /** `fillers`: speak `fillerConfig` phrases while a tool runs or the LLM is slow (src/calls/fillers.ts). */
  fillers?: boolean;
  fillerConfig?: FillerConfig;
}

/** The seams where speech-to-text and text-to-speech stages slot in; text passes through today. */
export interface SpeechStages {
  /** What the customer said, as text. */
  hear(event: Extract<LegEvent, { type: 'customer-said' }>): string;
  /** Plays the assistant's text on the leg. */
  speak(leg: CarrierLeg, text: string): Promise<void>;
}

export const textStages: SpeechStages = {
  hear: (event) => event.text,
  speak: (leg, text) => (leg.say ? leg.say(text) : Promise.resolve()),
};

export interface ToolExecutor {
  /** `log`: the call's logger, so that what the tool did is logged with the call's id. */
  run(tool: MidCallTool, argumentsJson: string, log?: Logger): Promise<ToolOutcome>;
}

export interface SessionDeps {
  leg: CarrierLeg;
  llm: LlmProvider;
  tools: ToolExecutor;
  clock: Clock;
  log: Logger;
  stages?: SpeechStages;
  /** Audio legs: builds the leg's voice pipeline (STT → LLM → TTS); without it every leg converses in text. */
  voice?: VoiceCallFactory;
  /** Where the call's turns are recorded (the engine's is the database; default: kept in memory). */
  turns?: TurnTracker;
  /** The assistant's built-in tools as LLM functions (src/calls/builtin-tools). */
  builtins?: BuiltinToolbox;
  /** The assistant's knowledge base (src/calls/knowledge.ts): a search function, or passages before each reply. */
  knowledge?: CallKnowledge | null;
}

export interface SessionHooks {
  onRinging?(): void;
  onAnswered?(answeredBy: AnsweredBy): void;
}

export type { ToolCallRecord };

export interface SessionResult {
  connected: boolean;
  status: EndStatus;
  answeredBy: AnsweredBy;
  /** Milliseconds from the answer to the end (0 when never connected). */
  talkMs: number;
  transcript: string;
  messages: ChatMessage[];
  toolCalls: ToolCallRecord[];
  customerUtterances: number;
  /** Where the carrier stored the call's audio, when it recorded any (the sandbox records none). */
  recordingUrl?: string | null;
}
