/** A small Dockerfile reader: stages and their instructions, as the builder sees them. */
export interface Instruction {
  keyword: string;
  /** Flags such as `--from=build` or `--mount=…`, by name. */
  flags: Record<string, string>;
  /** The rest of the line (continuations joined). */
  args: string;
}

export interface Stage {
  image: string;
  name: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (/^\s*#/.test(line) && current === '') continue;
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    current += line;
    if (current.trim() !== '') logical.push(current.trim());
    current = '';
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`unreadable Dockerfile line: ${line}`);
    const keyword = m[1].toUpperCase();
    let rest = m[2];
    const flags: Record<string, string> = {};
    for (let f = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest); f; f = /^--([\w-]+)(?:=(\S+))?\s+/.exec(rest)) {
      flags[f[1]] = f[2] ?? 'true';
      rest = rest.slice(f[0].length);
    }
    if (keyword === 'FROM') {
      const [image, as, name] = rest.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : String(stages.length), instructions: [] });
      continue;
    }
    if (stages.length === 0) throw new Error(`${keyword} before FROM`);
    stages.at(-1)!.instructions.push({ keyword, flags, args: rest });
  }
  return stages;
}

/** `["node", "x.js"]` (exec form) or `node x.js` (shell form) → argv. */
export function commandOf(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as string[];
  return ['/bin/sh', '-c', trimmed];
}

/** `A=1 B="two words"` → entries. */
export function envOf(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
  return env;
}
