/**
 * Scenario documents checked for the API: parsed (every refusal with its line and reason) and
 * held against the assistant they are for (mocks and expectations naming tools it lacks).
 * A refusal is a 422 in the usual shape, the field's messages reading `line N: reason`, plus
 * `scenario_errors: [{line, message}]` (and `scenario` for a run's list) for clients that mark lines.
 */
import type { Db } from '../../db/pool.js';
import { loadTestAssistant, type TestAssistant } from '../../assistant-tests/assistant.js';
import { validateAgainstAssistant, type AssistantShape } from '../../assistant-tests/assistant-checks.js';
import { parseScenarioDocument, type Scenario, type ScenarioError } from '../../assistant-tests/scenario.js';
import { ValidationError } from '../toolkit/errors.js';

export const SCENARIO_INVALID = 'The scenario is invalid.';

/** The shape a scenario is checked against: the assistant's tools, built-ins and post-call fields (as the run will have them). */
export function shapeOf(assistant: TestAssistant): AssistantShape {
  return { tools: assistant.tools, builtinTools: assistant.builtin_tools, postCallSchema: assistant.post_call_schema, postCallEvaluation: assistant.post_call_evaluation };
}

/** The stored assistant's shape (null when it is not the user's). */
export async function storedShapeOf(db: Db, userId: number, assistantId: number): Promise<AssistantShape | null> {
  const assistant = await loadTestAssistant(db, userId, assistantId);
  return assistant ? shapeOf(assistant) : null;
}

export type Checked = { ok: true; scenarios: Scenario[] } | { ok: false; errors: ScenarioError[] };

/** Parses a document and checks each scenario against the assistant. */
export function checkDocument(source: string, fileName: string, shape: AssistantShape): Checked {
  const parsed = parseScenarioDocument(source, fileName);
  if ('errors' in parsed) return { ok: false, errors: parsed.errors };
  const errors = parsed.scenarios.flatMap((s) => validateAgainstAssistant(s, shape));
  return errors.length > 0 ? { ok: false, errors: errors.sort((a, b) => a.line - b.line) } : { ok: true, scenarios: parsed.scenarios };
}

export const lineText = (e: ScenarioError) => (e.line > 0 ? `line ${e.line}: ${e.message}` : e.message);

export function scenarioRefusal(field: string, errors: readonly ScenarioError[], extra: Record<string, unknown> = {}, message = SCENARIO_INVALID): ValidationError {
  return new ValidationError({ [field]: errors.map(lineText) }, message, { scenario_errors: errors, ...extra });
}

/** A scenario sent as an object (a JSON body): written out as JSON, then checked as a document, so errors still name lines. */
export function sourceOfObject(value: Record<string, unknown>): string {
  return JSON.stringify(value, null, 2);
}


