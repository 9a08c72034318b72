/**
 * A parsed scenario checked against the assistant it is to run with (scenario.ts checks the
 * document alone): what only the assistant can tell.
 */
import { BUILTIN_FUNCTIONS, type BuiltinType } from './builtins.js';
import type { Scenario, ScenarioError } from './scenario.js';

/** What a scenario is checked against: the assistant's mid-call tools, built-ins and post-call fields. */
export interface AssistantShape {
  tools: readonly { name: string }[];
  builtinTools: readonly { type: string }[];
  postCallSchema?: readonly { name: string }[];
  postCallEvaluation?: boolean;
  /** Why audio mode cannot run where the scenario is to run (no speech-to-text: runner's audio.ts), or null/absent when it can. */
  audioRefusal?: string | null;
}

/**
 * What only the assistant can tell: a mock for a tool it does not have (a mid-call tool, or the
 * function of one of its built-ins, e.g. `check-availability`), an expectation naming a tool or
 * built-in it does not have, or a post-call variable it does not extract.
 */
export function validateAgainstAssistant(scenario: Scenario, assistant: AssistantShape): ScenarioError[] {
  const errors: ScenarioError[] = [];
  if (scenario.mode === 'audio' && assistant.audioRefusal) errors.push({ line: scenario.modeLine ?? scenario.line, message: assistant.audioRefusal });
  const tools = new Set(assistant.tools.map((t) => t.name));
  const builtinTypes = new Set<string>(['end_call', ...assistant.builtinTools.map((b) => b.type)]);
  const builtinFunctions = new Set([...builtinTypes].flatMap((t) => BUILTIN_FUNCTIONS[t as BuiltinType] ?? []));
  const toolList = tools.size > 0 ? [...tools].join(', ') : 'none';
  for (const name of Object.keys(scenario.mocks)) {
    if (tools.has(name) || (builtinFunctions.has(name) && name !== 'end-call')) continue;
    errors.push({ line: scenario.mockLines[name] ?? scenario.line, message: `mock for "${name}": the assistant has no tool of that name (its tools: ${toolList})` });
  }
  const fields = new Set((assistant.postCallSchema ?? []).map((f) => f.name));
  if (assistant.postCallEvaluation) fields.add('status').add('summary');
  for (const e of scenario.expect) {
    if ((e.kind === 'tool_called' || e.kind === 'tool_not_called') && !tools.has(e.name)) {
      errors.push({ line: e.line, message: `${e.kind} "${e.name}": the assistant has no tool of that name (its tools: ${toolList})` });
    } else if (e.kind === 'builtin_called' && !builtinTypes.has(e.type)) {
      errors.push({ line: e.line, message: `builtin_called "${e.type}": the assistant has no built-in tool of that type` });
    } else if (e.kind === 'variables') {
      for (const name of Object.keys(e.values)) {
        if (!fields.has(name)) errors.push({ line: e.line, message: `variables "${name}": the assistant's post-call extraction has no such field (${fields.size ? [...fields].join(', ') : 'it extracts none'})` });
      }
    }
  }
  return errors;
}
