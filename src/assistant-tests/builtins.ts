/**
 * Built-in tools as a test names them (`builtin_called: {type: call_transfer}`) and as the
 * model calls them (the LLM function names of src/calls/builtin-tools, plus the session's own
 * `end-call`). test/assistant-tests/builtins.test.ts checks this table against a real toolbox.
 */
import { BUILTIN_TOOL_TYPES, type StoredBuiltinTool } from '../db/schema.js';
import { END_CALL_TOOL } from '../calls/session-types.js';

export type BuiltinType = StoredBuiltinTool['type'];

export const BUILTIN_TYPES = BUILTIN_TOOL_TYPES;

/** The function names each built-in type gives the model (a second item of a type adds `-2`, …). */
export const BUILTIN_FUNCTIONS: Record<BuiltinType, readonly string[]> = {
  end_call: [END_CALL_TOOL],
  call_transfer: ['transfer-call'],
  warm_call_transfer: ['warm-transfer'],
  dtmf_input: ['press-digits'],
  collect_keypad: ['collect-keypad'],
  calendar_integration: ['check-availability', 'book-appointment'],
  assistant_transfer: ['transfer-to-assistant'],
};

/** The built-in type behind a function the model called, or null for a mid-call tool. */
export function builtinTypeOf(functionName: string): BuiltinType | null {
  const base = functionName.replace(/-\d+$/, '');
  for (const type of BUILTIN_TYPES) if (BUILTIN_FUNCTIONS[type].includes(base) || BUILTIN_FUNCTIONS[type].includes(functionName)) return type;
  return null;
}
