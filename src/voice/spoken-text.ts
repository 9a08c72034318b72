/**
 * What is never read out to a caller. The text leg's `say` and the voice pipeline's TTS stage
 * both pass every line through this, whoever wrote it (the model, a scripted line, a filler, a
 * built-in's message): an unfilled `{{placeholder}}` (docs/decisions.md) is dropped.
 */

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
