/**
 * Limits on the shape of a parsed JSON body, checked iteratively right after JSON.parse and
 * before any recursive code (schema validation, isStorableJson, JSON.stringify, the jsonb
 * serializer) can overflow the stack on a deeply nested value (issue 15: ~5,000 levels in a
 * 10 KB body was a 500).
 */
import { ValidationError } from '../api/toolkit/errors.js';
import { attributeName } from '../api/toolkit/validation.js';

/**
 * Nesting allowed inside one field (the field's own object or array is level 1). Assistants'
 * variables, metadata and extraction schemas need a handful; 32 leaves room for any honest use.
 */
export const MAX_JSON_DEPTH = 32;

/** The first field whose value nests deeper than `max`, '' for the body itself, or null. */
export function tooDeepField(body: unknown, max = MAX_JSON_DEPTH): string | null {
  if (body === null || typeof body !== 'object') return null;
  // Top-level fields are judged separately so the answer can name the field.
  const roots: [string, unknown][] = Array.isArray(body) ? [['', body]] : Object.entries(body);
  for (const [field, value] of roots) {
    if (value === null || typeof value !== 'object') continue;
    const stack: [unknown, number][] = [[value, 1]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      if (depth > max) return field;
      for (const child of Array.isArray(node) ? node : Object.values(node as object)) {
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    }
  }
  return null;
}

/** Throws the 422 for a body that nests too deeply. */
export function assertJsonDepth(body: unknown, max = MAX_JSON_DEPTH): void {
  const field = tooDeepField(body, max);
  if (field === null) return;
  if (field === '') throw new ValidationError({ body: [`The JSON body may be nested at most ${max} levels deep.`] });
  throw new ValidationError({ [field]: [`The ${attributeName([field])} field may be nested at most ${max} levels deep.`] });
}
