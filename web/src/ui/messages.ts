/**
 * The service's validation messages, read by people: its field paths ("allowed_origins.0") and
 * formats ("H:i") are the API's words, kept exact in the API and reworded only here.
 */
export function humanize(message: string): string {
  return message
    .replace(/\b([a-z][a-z0-9_]*)\.(\d+)(?:\.([a-z][a-z0-9_]*))?/g, (_m, field: string, index: string, sub: string | undefined) =>
      `${field.replace(/_/g, ' ')} (item ${Number(index) + 1}${sub ? `, ${sub.replace(/_/g, ' ')}` : ''})`,
    )
    .replace(/\bthe format H:i\b/g, 'the format HH:MM (24-hour clock)')
    .replace(/\bformat Y-m-d\b/g, 'format YYYY-MM-DD')
    .replace(/\b1 items\b/g, '1 item')
    .replace(/\b1 characters\b/g, '1 character');
}
