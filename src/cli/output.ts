/** What the CLI prints: aligned tables for people, JSON (`--json`) for scripts. */

export interface Output {
  json: boolean;
  /** A list of records: a table, or a JSON array. */
  table(rows: Record<string, unknown>[], columns?: string[]): void;
  /** One record: `key  value` lines, or a JSON object. */
  record(row: Record<string, unknown>): void;
  /** A sentence for people; omitted in JSON mode (stderr keeps stdout parseable). */
  note(text: string): void;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function createOutput(
  json: boolean,
  write: (s: string) => unknown = (s) => process.stdout.write(s),
  writeErr: (s: string) => unknown = (s) => process.stderr.write(s),
): Output {
  return {
    json,
    table(rows, columns) {
      if (json) return write(JSON.stringify(rows, null, 2) + '\n');
      const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
      if (rows.length === 0) return write('(none)\n');
      const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
      const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd() + '\n';
      write(line(cols));
      for (const r of rows) write(line(cols.map((c) => cell(r[c]))));
    },
    record(row) {
      if (json) return write(JSON.stringify(row, null, 2) + '\n');
      const width = Math.max(...Object.keys(row).map((k) => k.length));
      for (const [k, v] of Object.entries(row)) write(`${k.padEnd(width)}  ${cell(v)}\n`);
    },
    note(text) {
      (json ? writeErr : write)(text + '\n');
    },
  };
}
