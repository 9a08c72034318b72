/**
 * The functions the speech-to-speech model calls (`mode: multimodal`), run for the stage
 * (speech-to-speech.ts): mid-call tools and built-in tools through the call's ports (ports.ts),
 * as the pipeline's LLM stage runs them. Each output goes back to the model once the answer that
 * made the call is done.
 *
 * A built-in's result that ends the turn (a transfer's message, the transfer, another assistant)
 * is sent to the model as its output with no new answer asked for; the call applies it
 * (`BuiltinOutcome.finish`) and finishes the turn through the stage (`finishTurn`: a
 * `Say exactly: <line>` answer when there is a line), so the call is ended or handed over only
 * once the caller heard it, as after end-call.
 */
import type { TurnId } from './frames.js';
import type { LlmStageOptions } from './llm.js';
import type { Push } from './pipeline.js';
import type { BuiltinOutcome, CallKnowledge } from './ports.js';

/** What of the stage's current answer a function call reads and changes. */
export interface FunctionAnswer {
  turn: TurnId;
  over: boolean;
  responseDone: boolean;
  toolsRunning: number;
  results: { callId: string; output: string }[];
  /** A built-in's result that ends the turn, applied once the outputs are sent. */
  effects: BuiltinOutcome | null;
}

export type FunctionConversation = Pick<LlmStageOptions, 'tools' | 'onToolCall' | 'builtins' | 'onNote' | 'knowledge'>;

interface StageEnv {
  now(): number;
  push: Push;
  closed(): boolean;
  /** Sends the outputs once the answer is done and every call answered. */
  resultsReady(): void;
}

/** Runs function `call` (not end-call, which the stage keeps) for answer `a`. */
export function runFunctionCall(conversation: FunctionConversation, a: FunctionAnswer, call: { id: string; name: string; arguments: string }, env: StageEnv): void {
  if (conversation.builtins?.has(call.name)) return runBuiltin(conversation, a, call, env);
  if (conversation.knowledge?.has(call.name)) return runKnowledge(conversation.knowledge, a, call, env);
  if (!conversation.tools.has(call.name)) {
    a.results.push({ callId: call.id, output: JSON.stringify({ error: `unknown tool ${call.name}` }) });
    return;
  }
  a.toolsRunning++;
  void conversation.tools.run(call.name, call.arguments).then((outcome) => {
    a.toolsRunning--;
    conversation.onToolCall?.({ name: call.name, ok: outcome.ok, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs });
    if (a.over || env.closed()) return;
    env.push({ kind: 'tool-result', turn: a.turn, id: call.id, name: call.name, ok: outcome.ok, content: outcome.content, at: env.now() });
    a.results.push({ callId: call.id, output: outcome.content });
    if (a.responseDone) env.resultsReady();
  });
}

/** The knowledge base's search: its passages are the output; the turn records which. */
function runKnowledge(knowledge: CallKnowledge, a: FunctionAnswer, call: { id: string; name: string; arguments: string }, env: StageEnv): void {
  a.toolsRunning++;
  void knowledge.run(call.arguments).then((found) => {
    a.toolsRunning--;
    if (a.over || env.closed()) return;
    env.push({ kind: 'knowledge', turn: a.turn, lookup: found.lookup, at: env.now() });
    env.push({ kind: 'tool-result', turn: a.turn, id: call.id, name: call.name, ok: found.ok, content: found.content, at: env.now() });
    a.results.push({ callId: call.id, output: found.content });
    if (a.responseDone) env.resultsReady();
  });
}

/** A built-in: its output is what the model reads; a note joins the transcript at once; a result that ends the turn waits for the outputs. */
function runBuiltin(conversation: FunctionConversation, a: FunctionAnswer, call: { id: string; name: string; arguments: string }, env: StageEnv): void {
  const started = env.now();
  a.toolsRunning++;
  void conversation.builtins!.run(call.name, call.arguments).then((result) => {
    a.toolsRunning--;
    conversation.onToolCall?.({ name: call.name, ok: result.ok, durationMs: Math.max(0, env.now() - started) });
    if (a.over || env.closed()) return;
    env.push({ kind: 'tool-result', turn: a.turn, id: call.id, name: call.name, ok: result.ok, content: result.content, at: env.now() });
    a.results.push({ callId: call.id, output: result.content });
    if (result.finish) a.effects ??= result;
    else if (result.note) conversation.onNote?.(result.note);
    if (a.responseDone) env.resultsReady();
  });
}
