/**
 * `{{variable}}` placeholders, as the service fills them (src/calls/variables.ts): the names an
 * assistant's initial message and prompt use, so the dashboard can say before anything is
 * dialled which of them a lead's variables leave empty (the call then says the text without it).
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** The placeholder names in `texts`, each once, in the order they first appear. */
export function placeholders(...texts: (string | null | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const text of texts) for (const m of (text ?? '').matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

/** Whether `variables` fill `name` (a missing key, null and an empty string do not). */
export function fills(variables: Record<string, unknown> | null | undefined, name: string): boolean {
  const value = variables?.[name];
  return value !== undefined && value !== null && value !== '';
}

/** A column that evidently holds a placeholder: the same name, ignoring case, spaces, "-" and "_". */
export function columnFor(name: string, columns: readonly string[]): string | undefined {
  const key = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');
  return columns.find((c) => c === name) ?? columns.find((c) => key(c) === key(name));
}
