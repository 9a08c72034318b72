/**
 * An audio leg's side of the session: what the call hands the voice pipeline (src/voice) and what
 * it takes back. In: the pipeline's LLM options — the call's history, functions and tools, and the
 * built-ins as the pipeline's port, a result that ends the turn applied to the call
 * (src/calls/builtin-effects.ts). Back: the pipeline's transcript lines and notes into the call's
 * record, its frames into the call (fillers, the caller's speech, the greeting, the hang-up).
 * The session (src/calls/session.ts) builds the pipeline between the two and keeps the call's life.
 */
import type { ChatMessage, ToolSpec } from '../providers/llm/types.js';
import type { EndStatus, UnconnectedEnd } from './state-machine.js';
import { callTools, type MidCallTool } from './tool-runner.js';
import type { FillerScheduler } from './fillers.js';
import type { BuiltinResult, BuiltinToolbox } from './builtin-tools/index.js';
import { applyBuiltinResult, endsTurn } from './builtin-effects.js';
import type { CallBuiltins } from '../voice/ports.js';
import type { LlmStageOptions } from '../voice/llm.js';
import type { VoiceCall } from '../voice/voice-call.js';
import { END_CALL_TOOL, type SessionDeps, type SessionSettings, type ToolCallRecord } from './session-types.js';

/** What the audio leg needs of the session that owns the call. */
export interface VoiceLegHost {
  readonly ended: boolean;
  /** The pipeline, once built. */
  readonly voice: VoiceCall | null;
  readonly settings: SessionSettings;
  readonly deps: SessionDeps;
  readonly lines: string[];
  readonly messages: ChatMessage[];
  readonly toolRecords: ToolCallRecord[];
  readonly specs: ToolSpec[];
  readonly toolsByName: Map<string, MidCallTool>;
  readonly fillers: FillerScheduler;
  note(line: string): void;
  end(status: Exclude<EndStatus, UnconnectedEnd>, reason: string, remote?: boolean): void;
  /** assistant_transfer: another assistant's settings replace the call's (prompt, model, tools, built-ins, voice). */
  switchAssistant(to: NonNullable<BuiltinResult['switchTo']>): void;
  /** The caller started to speak (the VAD's onset). */
  speechStarted(): void;
  /** A line of the caller's joined the transcript. */
  customerLine(): void;
  /** The caller's turn ended: the reply to it is the greeting when the caller spoke first. */
  turnEnded(): void;
}

/** The pipeline's LLM options (shared: a hand-over changes them in place). */
export function voiceLlmOptions(host: VoiceLegHost): LlmStageOptions {
  const s = host.settings;
  const deps = host.deps;
  return {
    llm: deps.llm,
    model: s.model,
    temperature: s.temperature,
    messages: host.messages,
    specs: host.specs,
    // The pipeline's ports (src/voice/ports.ts): the current assistant's tools, by name.
    tools: callTools(host.toolsByName, deps.tools, deps.log),
    variables: s.variables,
    onToolCall: (record) => host.toolRecords.push(record),
    builtins: deps.builtins && voiceBuiltins(deps.builtins, host),
    onNote: (line) => host.lines.push(line),
    knowledge: deps.knowledge,
  };
}

/** Follows the built pipeline: its notes and lines into the record, its frames into the call. */
export function followVoice(voice: VoiceCall, host: VoiceLegHost): void {
  const deps = host.deps;
  // Why a provider failed is in the record, not only the log (issue 18).
  voice.onNote((note) => host.lines.push(note));
  voice.onLine((line) => {
    host.lines.push(`${line.speaker}: ${line.text}`);
    deps.leg.caption?.(line.speaker === 'AI' ? 'assistant' : 'user', line.text);
    if (line.speaker === 'Customer') host.customerLine();
  });
  voice.onFrame((frame) => {
    if (host.ended) return;
    if (frame.kind === 'speech-started') host.speechStarted();
    host.fillers.follow(frame, END_CALL_TOOL, deps.knowledge?.spec?.name ?? null);
    // The caller spoke first (wait_for_customer, a voicemail greeting): the reply is the greeting.
    if (frame.kind === 'end-of-turn') host.turnEnded();
    // The voice core ended the call (end-call once its goodbye played, an LLM failure).
    else if (frame.kind === 'hang-up' && !frame.remote) host.end(frame.reason === 'LLM failure' ? 'ended' : 'completed', frame.reason);
  });
}

/** The built-ins as the voice pipeline's port: a result that ends the turn comes back as `finish`. */
function voiceBuiltins(builtins: BuiltinToolbox, host: VoiceLegHost): CallBuiltins {
  return {
    has: (name) => builtins.has(name),
    run: async (name, args) => {
      const result = await builtins.run(name, args);
      if (!endsTurn(result)) return { ok: result.ok, content: result.content, note: result.note };
      return { ok: result.ok, content: result.content, finish: (turn) => applyVoiceBuiltin(result, turn, host) };
    },
  };
}

/**
 * A built-in's result on an audio leg (pipeline or speech-to-speech): its line ends turn
 * `turn` in the mode's way (VoiceCall.finishTurn), then its effects (src/calls/builtin-effects.ts).
 */
function applyVoiceBuiltin(result: BuiltinResult, turn: number, host: VoiceLegHost): void {
  const voice = host.voice;
  if (!voice || host.ended) return;
  void applyBuiltinResult(
    result,
    {
      finishTurn: (text) => {
        const over = voice.turnOver(turn);
        voice.finishTurn(turn, text);
        return over;
      },
      answerWith: (instruction) => {
        host.messages.push({ role: 'system', content: instruction });
        voice.respond(instruction);
      },
      greet: (text) => voice.say(text, 'greeting'),
      respond: () => voice.respond(),
    },
    {
      get ended() {
        return host.ended;
      },
      log: host.deps.log,
      remember: (text) => host.messages.push({ role: 'assistant', content: text }),
      note: (line) => host.note(line),
      end: (reason, handedOver) => host.end('completed', reason, handedOver),
      switchAssistant: (to) => {
        host.switchAssistant(to);
        return host.settings.initialMessage;
      },
    },
  );
}
