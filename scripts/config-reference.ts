/**
 * Writes docs/configuration.md, the configuration reference, from src/config.ts: every
 * setting in its group, with its default, the values it accepts and its description.
 * `npx tsx scripts/config-reference.ts` after changing a setting; test/configuration-docs.test.ts
 * fails while the checked-in file differs from what this makes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SETTING_GROUPS } from '../src/config.js';

export const REFERENCE_PATH = path.resolve(import.meta.dirname, '../docs/configuration.md');

interface JsonSchema {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  format?: string;
  pattern?: string;
}

/** What a value may be, in words, from the setting's JSON Schema (its input side). */
function accepted(name: string, schema: JsonSchema): string {
  if (schema.enum) {
    // Booleans accept true/false and their spellings.
    if (schema.enum.includes('true') && schema.enum.includes('false')) return '`true` or `false` (also `1`/`0`, `yes`/`no`)';
    return schema.enum.map((v) => `\`${v}\``).join(', ');
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'whole number' : 'number';
    const low = schema.exclusiveMinimum !== undefined ? `over ${schema.exclusiveMinimum}` : schema.minimum !== undefined ? `${schema.minimum}` : undefined;
    if (low !== undefined && schema.maximum !== undefined) return schema.exclusiveMinimum !== undefined ? `${kind} ${low}, at most ${schema.maximum}` : `${kind} ${low}–${schema.maximum}`;
    if (low !== undefined) return schema.exclusiveMinimum !== undefined ? `${kind} ${low}` : `${kind} ≥ ${low}`;
    return kind;
  }
  if (schema.format === 'uri') return 'URL';
  if (name === 'WEBHOOK_RETRY_SCHEDULE') return 'comma-separated seconds';
  if (schema.pattern) return `text matching \`${schema.pattern}\``;
  if (schema.minLength) return `text, ≥ ${schema.minLength} characters`;
  return 'text';
}

function shown(value: unknown): string {
  if (value === undefined) return 'unset';
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

/** Table cells hold one line; a `|` would end the cell. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function configurationReference(): string {
  const out: string[] = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config.ts by `npx tsx scripts/config-reference.ts`: edit the descriptions there, not here. -->',
    '',
    'Every setting comes from the environment. `npm start` and `npx switchboard` also read a `.env` file in the',
    'working directory when there is one (`cp .env.example .env` lists them all); a variable already set in the',
    'environment wins over the file, so a process manager or compose file can still set it. Every setting is',
    'optional: with none, the service runs on an embedded PostgreSQL with the sandbox carrier and the offline',
    'LLM stand-in. A value the service cannot use stops the start with one line naming the setting',
    '([troubleshooting](troubleshooting.md#invalid-configuration)).',
    '',
  ];
  for (const group of SETTING_GROUPS) out.push(`- [${group.title}](#${anchor(group.title)})`);
  for (const group of SETTING_GROUPS) {
    const object = z.object(group.settings);
    const defaults = object.parse({}) as Record<string, unknown>;
    const json = z.toJSONSchema(object, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
    out.push('', `## ${group.title}`, '', '| Setting | Default | Accepts | Meaning |', '|---|---|---|---|');
    for (const [name, schema] of Object.entries(group.settings) as [string, z.ZodType][]) {
      if (!schema.description) throw new Error(`src/config.ts: ${name} has no description (.describe(...))`);
      out.push(`| \`${name}\` | ${cell(shown(defaults[name]))} | ${cell(accepted(name, json.properties[name]!))} | ${cell(schema.description)} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** GitHub's heading anchors: lower case, spaces to dashes, punctuation dropped. */
export function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(REFERENCE_PATH, configurationReference());
  console.log(`wrote ${path.relative(process.cwd(), REFERENCE_PATH)}`);
}
