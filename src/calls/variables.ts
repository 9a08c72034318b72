/** `{{variable}}` placeholders in prompts and the initial message (CONTRACT §6). */
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

/**
 * Removes every `{{placeholder}}` left in text that is about to be spoken, with the space
 * before it (or after it, at the start), so a caller never hears "curly curly name": "Hi
 * {{name}}, this is Ada" → "Hi, this is Ada". Empty strings stay empty.
 */
export function withoutPlaceholders(text: string): string {
  if (!text.includes('{{')) return text;
  return (
    text
      // Before punctuation or the end, a comma introducing it goes too: "Hello, {{name}}!" → "Hello!".
      .replace(/,?[ \t]*\{\{\s*[A-Za-z_][\w.-]*\s*\}\}(?=[ \t]*(?:[,.!?;:]|$))/gm, '')
      .replace(/[ \t]*\{\{\s*[A-Za-z_][\w.-]*\s*\}\}/g, '')
      .replace(/[ \t]{2,}/g, ' ')
      .trim()
  );
}

/** The initial message and other spoken text: filled as far as the variables go, the rest removed. */
export function fillSpokenTemplate(text: string, variables: Record<string, unknown>): string {
  return withoutPlaceholders(fillTemplate(text, variables));
}
