/** `{{variable}}` placeholders in prompts and the initial message (CONTRACT §6). */
import { withoutPlaceholders } from '../voice/spoken-text.js';

/** Spoken text drops what is left unfilled; the voice pipeline applies it to every line it speaks. */
export { withoutPlaceholders };

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/**
 * Fills the placeholders the variables supply. Unknown ones (and null values) stay as written
 * (CONTRACT §6): right for the system prompt, where the model sees what was not filled. Text
 * that is spoken goes through `fillSpokenTemplate` instead.
 */
export function fillTemplate(text: string, variables: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(variables, name)) return whole;
    const value = variables[name];
    if (value === null || value === undefined) return whole;
    return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

/** The initial message and other spoken text: filled as far as the variables go, the rest removed. */
export function fillSpokenTemplate(text: string, variables: Record<string, unknown>): string {
  return withoutPlaceholders(fillTemplate(text, variables));
}
