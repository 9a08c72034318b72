/** The configuration reference (docs/configuration.md) and .env.example, read the way an operator reads them. */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every setting named (in backticks, UPPER_CASE) in the first column of the reference's tables. */
export function documentedSettings(reference = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8')): string[] {
  const names = new Set<string>();
  for (const line of reference.split('\n')) {
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    const first = line.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return [...names].sort();
}

/** Every setting named in .env.example, commented out (`# NAME=`) or set (`NAME=`). */
export function envExampleSettings(text = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8')): string[] {
  return [...new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]))].sort();
}
