/**
 * The speech-to-speech core of `mode: multimodal`: one stage that stands where the pipeline has
 * VAD → STT → interruption → turn-taking → LLM → sentences → TTS, and speaks with a realtime
 * model (src/providers/realtime/types.ts) instead. It passes the same frames, so the output
 * stage (pacing, marks, `clear`), ambient sound, turn recording, the silence clock and the
 * session work unchanged:
 *
 *   audio-in ─▶ [resample to the session's rate] ─▶ session.sendAudio
 *   end-of-turn `[keypad: 42#]` (keypad.ts, before this stage) ─▶ session.sendText (answered like words)
 *   speech-started / speech-stopped   ◀─ the model's voice detection
 *   end-of-turn (the caller's words)   ◀─ its transcript of the caller (may come after the answer began: `late`)
 *   turn-started, llm-delta, tts-text, tts-audio, tts-spoken, tts-done ◀─ its answer (audio + transcript)
 *   tool-call → a mid-call tool or a built-in (speech-to-speech-functions.ts) → tool-result → function output + next answer (same turn)
 *   end-call  → hang-up (after the goodbye has played)
 *   interruption (up from the output stage, with heardMs) ─▶ session.interrupt(ms heard of the last audio item)
 *
 * Barge-in stays the core's decision (the model's own `interrupt_response` is off): the model's
 * `speech_started` cuts the assistant off at once, unless `allow_interruptions` is false; with
 * `min_interrupt_words` N the model gives no interim words, so the caller's transcript decides
 * when it arrives (N words or more cut in; "mhm" does not). A key cuts it off always (keypad.ts).
 * Fillers are not spoken in this mode (docs/decisions.md): a filler would be a response of its
 * own, racing the tool's answer for the model's single active response.
 *
 * Over 400 lines for one reason: it is one stage by design (it replaces seven), and the
 * Realtime protocol's events map onto frames in one switch; splitting that switch would scatter
 * the per-turn state (current response, heard audio, pending tool calls) across files.
 */
import { Resampler } from '../audio/resample.js';
import type { ChatMessage } from '../providers/llm/types.js';
import type { RealtimeEvent, RealtimeProvider, RealtimeSession, RealtimeSessionOptions } from '../providers/realtime/types.js';
import type { TurnKind } from './ports.js';
import { wordCount, type Frame, type TurnId } from './frames.js';
import { END_CALL_FUNCTION, keepHeard, type LlmStageOptions } from './llm.js';
import { runFunctionCall, type FunctionAnswer, type FunctionConversation } from './speech-to-speech-functions.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { ScriptedReply } from './scripted-reply.js';
import type { Floor } from './settings.js';

export interface SpeechToSpeechOptions {
  provider: RealtimeProvider;
  /** Everything but the rate, which the stage picks from the provider's and the leg's. */
  session: Omit<RealtimeSessionOptions, 'sampleRate'>;
  legRate: number;
  floor: Floor;
  allowInterruptions: boolean;
  minInterruptWords: number;
  /**
   * The call's conversation, read live (a hand-over to another assistant changes it in place):
   * the record (system prompt first; the caller's and the assistant's words are appended), the
   * mid-call tools and the functions the model is offered, and how tools run.
   */
  conversation: Pick<LlmStageOptions, 'messages' | 'specs'> & FunctionConversation;
}

/** The assistant turn the model's current answer belongs to. */
interface Answer extends FunctionAnswer {
  /** Audio items of the turn in order, with the ms of audio each produced. */
  items: { id: string; ms: number }[];
  /** Assistant messages the turn added (rewritten to what was heard on barge-in). */
  said: Extract<ChatMessage, { role: 'assistant' }>[];
  /** Opened after the caller's speech ended and before their transcript came. */
  awaitingCaller: boolean;
  /** A scripted line: the session keeps it in the record itself. */
  scripted: boolean;
  endCall: boolean;
  /** The model has produced audio or text for the turn. */
  producing?: boolean;
}

export class SpeechToSpeechStage implements Stage {
  readonly name = 'speech-to-speech';
  readonly sampleRate: number;
  private session: RealtimeSession | null = null;
  private readonly waiting: ((session: RealtimeSession) => void)[] = [];
  private readonly resampler: Resampler | null;
  private ctx: StageContext | null = null;
  private push: Push = () => undefined;
  private closed = false;
  private failed = false;
  private answer: Answer | null = null;
  /** A turn the core opened (scripted line, the model speaking first) that the next answer fills. */
  private reserved: { turn: TurnId; scripted: boolean } | null = null;
  /** The next answer continues the current turn (it follows the turn's function outputs). */
  private continuing = false;
  /** When the caller's last utterance ended, until a turn takes it. */
  private endOfSpeechAt: number | null = null;
  /** The caller's words (or keys) that no answer has taken yet. */
  private callerText: string | null = null;
  /** A scripted answer to the caller's next turn (wait_for_customer's opening line, the voicemail message). */
  private nextReply: ScriptedReply | null = null;
  /** The line to ask for once the model's own answer (cancelled for a scripted one) is done. */
  private afterCancel: string | null = null;

  /** Silence that lets the model's voice detection end an utterance (its silence window and a margin). */
  private get trailingSilenceMs(): number {
    return (this.options.session.turnDetection?.silenceMs ?? 500) + 300;
  }

  constructor(private readonly options: SpeechToSpeechOptions) {
    const rates = options.provider.sampleRates;
    this.sampleRate = rates.includes(options.legRate) ? options.legRate : rates.includes(24_000) ? 24_000 : rates[0]!;
    this.resampler = this.sampleRate === options.legRate ? null : new Resampler(options.legRate, this.sampleRate);
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
    this.options.provider
      .open({ ...this.options.session, sampleRate: this.sampleRate }, (event) => this.onEvent(event))
      .then((session) => {
        if (this.closed) return void session.close();
        this.session = session;
        for (const action of this.waiting.splice(0)) action(session);
      })
      .catch((err: unknown) => this.fail(`the speech-to-speech session could not be opened: ${(err as Error).message}`));
  }

  process(frame: Frame, push: Push): void {
    switch (frame.kind) {
      case 'audio-in':
        if (this.session) this.session.sendAudio(this.resampler ? this.resampler.process(frame.samples) : frame.samples);
        break;
      case 'interruption':
        this.interrupted(frame.turn, frame.heardText, frame.heardMs ?? 0);
        break;
      case 'customer-said':
        // A leg that knows its caller's words (the sandbox) sends no audio between utterances,
        // where a phone line sends silence: give the model the silence that ends the utterance.
        this.session?.sendAudio(new Int16Array(Math.round((this.sampleRate * this.trailingSilenceMs) / 1000)));
        break;
      case 'end-of-turn':
        // The caller's keys (the keypad stage before this one): a message in text, answered like words.
        this.options.conversation.messages.push({ role: 'user', content: frame.text });
        this.callerText = frame.text;
        this.endOfSpeechAt = frame.endOfSpeechAt;
        this.whenOpen((s) => s.sendText(frame.text));
        break;
    }
    push(frame);
  }

  /** A scripted line (greeting, re-engagement) as turn `turn`, which the caller already sees opened. */
  say(turn: TurnId, text: string, kind: TurnKind): void {
    this.open(turn, kind, true, `Say exactly: ${text}`);
  }

  /** The model speaks first (no opening line), as turn `turn`; `instructions` for this answer (a failed transfer). */
  respond(turn: TurnId, instructions?: string): void {
    this.open(turn, 'reply', false, instructions);
  }

  /** Ends turn `turn`, stopped at a built-in's result, saying `text` first (`Say exactly:`, same turn). */
  finishTurn(turn: TurnId, text: string | undefined): void {
    const a = this.answer;
    if (!a || a.turn !== turn || a.over) return;
    if (!text) {
      a.over = true;
      return this.push({ kind: 'tts-done', turn, at: this.ctx!.clock.now() });
    }
    // The session keeps the line in the record itself (`scripted`).
    a.scripted = this.continuing = true;
    this.whenOpen((s) => s.respond(`Say exactly: ${text}`));
  }

  /**
   * Another assistant took the call over (assistant_transfer): its prompt and functions, which
   * the session changed in the shared history and tool list, go to the model. The voice stays
   * the session's (a realtime model keeps its voice once it has spoken).
   */
  refresh(): void {
    const { messages, specs } = this.options.conversation;
    const update = { instructions: instructionsOf(messages), tools: specs.map((f) => ({ name: f.name, description: f.description, parameters: f.parameters })) };
    this.whenOpen((s) => s.update(update));
  }

  /** Answers the caller's next turn with `reply` instead of the model's answer (replaces one still waiting). */
  next(reply: ScriptedReply): void {
    this.nextReply = reply;
  }

  clear(): void {
    this.nextReply = null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.session?.close();
  }

  private open(turn: TurnId, kind: TurnKind, scripted: boolean, instructions?: string): void {
    this.reserved = { turn, scripted };
    this.push({ kind: 'turn-started', turn, turnKind: kind, callerText: null, at: this.ctx!.clock.now() });
    this.whenOpen((s) => s.respond(instructions));
  }

  private whenOpen(action: (session: RealtimeSession) => void): void {
    if (this.session) action(this.session);
    else if (!this.failed) this.waiting.push(action);
  }

  private onEvent(event: RealtimeEvent): void {
    if (this.closed || !this.ctx) return;
    const ctx = this.ctx;
    const now = ctx.clock.now();
    const a = this.answer;
    switch (event.type) {
      case 'speech-started':
        this.push({ kind: 'speech-started', turn: ctx.turns.current, at: now, probability: 1 });
        if (this.options.minInterruptWords <= 0) this.bargeIn();
        return;
      case 'speech-stopped':
        this.endOfSpeechAt = now;
        this.push({ kind: 'speech-stopped', turn: ctx.turns.current, at: now });
        return;
      case 'caller-transcript':
        return this.callerSaid(event.text, now);
      case 'response-started':
        return this.answerStarted();
      case 'audio': {
        if (!a || a.over) return;
        let item = a.items.at(-1);
        if (item?.id !== event.itemId) a.items.push((item = { id: event.itemId, ms: 0 }));
        item.ms += (event.samples.length / event.sampleRate) * 1000;
        // The model's first output of the turn is its "first token", whichever comes first.
        if (!a.producing) {
          a.producing = true;
          this.push({ kind: 'llm-delta', turn: a.turn, text: '', at: now });
        }
        this.push({ kind: 'tts-audio', turn: a.turn, samples: event.samples, sampleRate: event.sampleRate, at: now });
        return;
      }
      case 'assistant-transcript-delta':
        if (!a || a.over || event.text === '') return;
        a.producing = true;
        this.push({ kind: 'llm-delta', turn: a.turn, text: event.text, at: now });
        this.push({ kind: 'tts-text', turn: a.turn, text: event.text, at: now });
        return;
      case 'assistant-transcript': {
        if (!a || a.over) return;
        const text = event.text.trim();
        this.push({ kind: 'tts-spoken', turn: a.turn, text, at: now });
        if (text !== '' && !a.scripted) {
          const message = { role: 'assistant' as const, content: text };
          a.said.push(message);
          this.options.conversation.messages.push(message);
        }
        return;
      }
      case 'function-call':
        return this.functionCall(event.callId, event.name, event.arguments);
      case 'response-done':
        if (this.afterCancel !== null) {
          // The model's own answer, cancelled for a scripted line: now the line.
          const line = this.afterCancel;
          this.afterCancel = null;
          this.session?.respond(line);
          return;
        }
        if (!a || a.over) return;
        a.responseDone = true;
        if (event.status === 'cancelled') return;
        if (a.endCall) {
          a.over = true;
          this.push({ kind: 'tts-done', turn: a.turn, at: now });
          this.push({ kind: 'hang-up', turn: a.turn, reason: 'the assistant closed the call', remote: false, at: now });
          return;
        }
        if (a.toolsRunning > 0 || a.results.length > 0) return this.sendResults(a);
        a.over = true;
        this.push({ kind: 'tts-done', turn: a.turn, at: now });
        return;
      case 'error':
        if (event.fatal) return this.fail(event.message);
        ctx.log.warn({ message: event.message }, 'the speech-to-speech model reported an error');
        return;
    }
  }

  private callerSaid(said: string, now: number): void {
    const text = said.trim();
    if (text === '') return;
    const ctx = this.ctx!;
    const endOfSpeechAt = this.endOfSpeechAt ?? now;
    const a = this.answer;
    // The model began answering these words before their transcript came.
    if (a && a.awaitingCaller) {
      a.awaitingCaller = false;
      const first = a.said[0];
      const at = first ? this.options.conversation.messages.indexOf(first) : -1;
      this.options.conversation.messages.splice(at < 0 ? this.options.conversation.messages.length : at, 0, { role: 'user', content: text });
      this.push({ kind: 'end-of-turn', turn: a.turn, text, endOfSpeechAt, at: now, late: true });
      return;
    }
    // Words over the assistant's turn: with min_interrupt_words they decide the barge-in now.
    const min = this.options.minInterruptWords;
    if (min > 0 && this.options.floor.assistantSpeaking && wordCount(text) >= min) this.bargeIn();
    this.options.conversation.messages.push({ role: 'user', content: text });
    this.callerText = text;
    this.push({ kind: 'end-of-turn', turn: ctx.turns.current, text, endOfSpeechAt, at: now });
  }

  private answerStarted(): void {
    const ctx = this.ctx!;
    const now = ctx.clock.now();
    const a = this.answer;
    if (this.continuing && a && !a.over) {
      this.continuing = false;
      a.responseDone = false;
      return;
    }
    this.continuing = false;
    let turn: TurnId;
    let awaitingCaller = false;
    const scripted = this.reserved?.scripted ?? false;
    if (this.reserved !== null) {
      turn = this.reserved.turn;
      this.reserved = null;
    } else if (this.nextReply) {
      return this.replaceWithScripted(this.nextReply, now);
    } else {
      turn = ctx.turns.begin();
      this.options.floor.assistantTakes(turn);
      awaitingCaller = this.callerText === null && this.endOfSpeechAt !== null;
      this.push({ kind: 'turn-started', turn, turnKind: 'reply', callerText: this.callerText, at: this.endOfSpeechAt ?? now });
    }
    this.callerText = null;
    this.endOfSpeechAt = null;
    this.answer = { turn, items: [], said: [], awaitingCaller, scripted, responseDone: false, toolsRunning: 0, results: [], effects: null, endCall: false, over: false };
    // The turn was cut off before its answer began (a barge-in on a scripted line): stop it.
    if (ctx.turns.isCancelled(turn)) {
      this.answer.over = true;
      this.session?.interrupt(0);
    }
  }

  /**
   * The caller's turn is answered with a scripted line: the model's own answer is stopped before
   * any of it plays, and the line asked for (`Say exactly:`) once that answer is done.
   */
  private replaceWithScripted(reply: ScriptedReply, now: number): void {
    const ctx = this.ctx!;
    this.nextReply = null;
    const turn = ctx.turns.begin();
    this.options.floor.assistantTakes(turn);
    this.push({ kind: 'turn-started', turn, turnKind: reply.kind, callerText: this.callerText, at: this.endOfSpeechAt ?? now });
    reply.onStart?.(this.callerText ?? '', turn);
    const awaitingCaller = this.callerText === null;
    this.callerText = null;
    this.endOfSpeechAt = null;
    // This answer object only receives the model's own (cancelled) answer: `over` drops it.
    this.answer = { turn, items: [], said: [], awaitingCaller, scripted: true, responseDone: false, toolsRunning: 0, results: [], effects: null, endCall: false, over: true };
    this.reserved = { turn, scripted: true };
    this.afterCancel = `Say exactly: ${reply.text}`;
    this.session?.interrupt(0);
  }

  private functionCall(callId: string, name: string, args: string): void {
    const a = this.answer;
    if (!a || a.over) return;
    const ctx = this.ctx!;
    this.push({ kind: 'tool-call', turn: a.turn, id: callId, name, arguments: args, at: ctx.clock.now() });
    if (name === END_CALL_FUNCTION) {
      a.endCall = true;
      return;
    }
    const env = { now: () => ctx.clock.now(), push: this.push, closed: () => this.closed, resultsReady: () => this.sendResults(a) };
    runFunctionCall(this.options.conversation, a, { id: callId, name, arguments: args }, env);
  }

  /** Once the answer that called the functions is done and all of them answered: their outputs, then the next answer. */
  private sendResults(a: Answer): void {
    if (a.toolsRunning > 0 || a.results.length === 0 || !a.responseDone) return;
    const [results, effects] = [a.results.splice(0), a.effects];
    a.effects = null;
    // A built-in's result that ends the turn: the outputs, no new answer; the session finishes the turn (finishTurn).
    this.continuing = effects === null;
    results.forEach((r, i) => this.session?.sendFunctionResult(r.callId, r.output, effects === null && i === results.length - 1));
    if (effects) effects.finish?.(a.turn);
  }

  /** The caller cuts the assistant off (when the settings let them). */
  private bargeIn(): void {
    const turn = this.options.floor.assistantTurn;
    if (turn === null || !this.options.allowInterruptions) return;
    this.ctx!.log.debug({ turn }, 'the caller interrupts the speech-to-speech answer');
    this.options.floor.assistantDone(turn);
    this.ctx!.turns.cancel(turn, 'barge-in');
  }

  /** The output stage cut turn `turn` where the caller stopped hearing it: the model's memory is cut there too. */
  private interrupted(turn: TurnId, heardText: string, heardMs: number): void {
    const a = this.answer;
    if (!a || a.turn !== turn) {
      // Cut off before its answer began: the answer is stopped when it starts.
      return;
    }
    a.over = true;
    this.continuing = false;
    const earlier = a.items.slice(0, -1).reduce((sum, item) => sum + item.ms, 0);
    this.session?.interrupt(Math.max(0, heardMs - earlier));
    // The record keeps what was heard (the model's memory: truncated to the same audio).
    keepHeard(this.options.conversation.messages, a.said, heardText);
  }

  private fail(message: string): void {
    if (this.failed || this.closed || !this.ctx) return;
    this.failed = true;
    this.waiting.length = 0;
    const ctx = this.ctx;
    ctx.log.error({ message }, 'speech-to-speech session failed; ending the call');
    const turn = this.answer && !this.answer.over ? this.answer.turn : ctx.turns.current;
    const now = ctx.clock.now();
    // What arrived of the answer plays out (the output stage holds our hang-up until it has).
    if (this.answer && !this.answer.over) {
      this.answer.over = true;
      this.push({ kind: 'tts-done', turn, at: now });
    }
    // Stage `llm`: the speech-to-speech model is the call's language model (the note line says so).
    this.push({ kind: 'error', turn, stage: 'llm', message, fatal: true, at: now });
    // The session's status for it: `ended` (src/calls/session.ts, like an LLM failure in the pipeline).
    this.push({ kind: 'hang-up', turn, reason: 'LLM failure', remote: false, at: now });
  }
}

/** The model's instructions: the conversation's system message. */
export function instructionsOf(messages: readonly ChatMessage[]): string {
  const system = messages.find((m) => m.role === 'system');
  return typeof system?.content === 'string' ? system.content : '';
}
