/**
 * The test's caller. It waits for the assistant's turn to end (the session's turn recorder
 * reports it), then acts: a scripted caller takes its next step (say, keys) and hangs up once
 * the script is done; a simulated caller asks an LLM (the configured one, or `caller.model`
 * on it) what its persona says next, and hangs up when it calls `hang_up` or has had its turns.
 * Keys go in while the assistant collects them (collect_keypad) without waiting for the turn.
 */
import type { ChatMessage, LlmProvider, ToolSpec } from '../providers/llm/types.js';
import type { CallerSide } from './leg.js';
import type { Caller } from './scenario.js';

export interface TestCaller {
  /** The assistant's turn is over: the caller's move. */
  yourTurn(): Promise<void>;
  /** The assistant waits for keys (collect_keypad). */
  keysWanted(): void;
  /** A line the assistant said. */
  heard(text: string): void;
}

export const HANG_UP_TOOL = 'hang_up';

export function callerFor(caller: Caller, leg: CallerSide, llm: LlmProvider, defaultModel: string, signal: AbortSignal): TestCaller {
  return caller.kind === 'script' ? new ScriptedCaller(caller.script, leg) : new SimulatedCaller(caller, leg, llm, defaultModel, signal);
}

class ScriptedCaller implements TestCaller {
  private next = 0;

  constructor(
    private readonly script: Extract<Caller, { kind: 'script' }>['script'],
    private readonly leg: CallerSide,
  ) {}

  async yourTurn(): Promise<void> {
    const step = this.script[this.next++];
    if (!step) return this.leg.callerHangsUp();
    if ('say' in step) await this.leg.callerSays(step.say);
    else await this.leg.callerKeysTurn(step.keys);
  }

  keysWanted(): void {
    const step = this.script[this.next];
    if (!step || !('keys' in step)) return;
    this.next++;
    this.leg.callerPresses(step.keys);
  }

  heard(): void {}
}

const hangUpSpec: ToolSpec = {
  name: HANG_UP_TOOL,
  description: 'Hang up the phone: call this once your goal is reached, cannot be reached, or the conversation is over.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

/** The simulated caller's instructions: who it is, what it wants, what it knows. */
export function callerPrompt(c: Extract<Caller, { kind: 'simulated' }>): string {
  const facts = Object.entries(c.facts).map(([k, v]) => `- ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [
    "You are a person phoning a company and talking to its voice assistant. You are the CALLER, never the assistant: do not offer help, answer as the caller would.",
    `Who you are: ${c.persona}`,
    `What you want from this call: ${c.goal}`,
    facts.length ? `What you know (say it when asked, do not invent other details):\n${facts.join('\n')}` : 'Invent no personal details you were not given.',
    'Speak as on the phone: one or two short sentences per turn, no lists, no stage directions.',
    `When your goal is reached or cannot be reached, say goodbye and call ${HANG_UP_TOOL}.`,
  ].join('\n');
}

class SimulatedCaller implements TestCaller {
  private readonly history: ChatMessage[];
  private turns = 0;

  constructor(
    private readonly caller: Extract<Caller, { kind: 'simulated' }>,
    private readonly leg: CallerSide,
    private readonly llm: LlmProvider,
    private readonly defaultModel: string,
    private readonly signal: AbortSignal,
  ) {
    this.history = [{ role: 'system', content: callerPrompt(caller) }];
  }

  heard(text: string): void {
    // What the assistant says is what the caller's model reads as the other side.
    this.history.push({ role: 'user', content: text });
  }

  keysWanted(): void {}

  async yourTurn(): Promise<void> {
    if (this.turns >= this.caller.maxTurns) return this.leg.callerHangsUp();
    this.turns++;
    const completion = await this.llm.complete({
      model: this.caller.model ?? this.defaultModel,
      temperature: 0.7,
      messages: [...this.history],
      tools: [hangUpSpec],
      signal: this.signal,
      standInContext: { variables: this.caller.facts },
    });
    if (this.leg.over) return;
    const text = completion.text.trim();
    const hangsUp = completion.toolCalls.some((c) => c.name === HANG_UP_TOOL);
    if (text !== '') {
      this.history.push({ role: 'assistant', content: text });
      await this.leg.callerSays(text);
    }
    if (hangsUp || text === '') this.leg.callerHangsUp();
  }
}
