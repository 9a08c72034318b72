/**
 * The layering of docs/architecture.md, checked on the source: every relative import under
 * src/ (type-only ones too) is an arrow, and arrows point one way —
 *
 *   main → service (composition root) → compose → http (app shell) → api/<resource> → api/toolkit
 *        → {calls, dialer, webhooks} → voice (the pipeline) → {telephony, providers, audio, db, accounts, lib}
 *
 * src/voice knows no call record: it imports nothing from calls, dialer, webhooks, api, http, db
 * or accounts; the call reaches it through the ports it defines (src/voice/ports.ts).
 *
 * A failure names the file, the import and the rule it breaks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

interface Arrow {
  /** Both relative to src/, with forward slashes, e.g. `calls/engine.ts`. */
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`, relative ones only. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"])\/\/.*$/gm, '$1');
}

function arrowsOf(file: string): Arrow[] {
  const text = withoutComments(fs.readFileSync(file, 'utf8'));
  const from = path.relative(SRC, file).split(path.sep).join('/');
  const arrows: Arrow[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), m[1]).replace(/\.js$/, '.ts');
    const to = path.relative(SRC, target).split(path.sep).join('/');
    if (to.startsWith('..')) continue; // outside src (none today)
    arrows.push({ from, to });
  }
  return arrows;
}

/** The folder (or, for a file directly in src/, the file without `.ts`) a path belongs to. */
function unit(file: string): string {
  const [first, ...rest] = file.split('/');
  return rest.length === 0 ? first.replace(/\.tsx?$/, '') : first;
}

/**
 * Carrier and provider adapters: everything in a folder below src/telephony/ (one carrier
 * each) or src/providers/ (one kind each, with its vendors). The registries and shared
 * types directly in src/telephony/ and src/providers/ are not adapters.
 */
function isAdapter(file: string): boolean {
  const parts = file.split('/');
  return (parts[0] === 'telephony' || parts[0] === 'providers') && parts.length >= 3;
}

const ENTRY = ['main', 'service', 'compose'];
const ENGINE_AND_BELOW = ['calls', 'dialer', 'webhooks', 'knowledge', 'assistant-tests', 'voice', 'telephony', 'providers', 'audio', 'db'];
/** What sits below the voice pipeline (it may import these; they never import it). */
const BELOW_VOICE = ['telephony', 'providers', 'audio', 'db', 'accounts', 'lib', 'recordings', 'observability'];

interface Rule {
  name: string;
  applies(from: string): boolean;
  forbids(to: string): boolean;
}

const RULES: Rule[] = [
  {
    name: 'nothing imports the entry points (main, service, compose) but the entry points',
    applies: (from) => !ENTRY.includes(unit(from)),
    forbids: (to) => ENTRY.includes(unit(to)),
  },
  {
    name: 'the engine and everything below it (calls, dialer, webhooks, knowledge, assistant-tests, voice, telephony, providers, audio, db) import nothing from api or http',
    applies: (from) => ENGINE_AND_BELOW.includes(unit(from)),
    forbids: (to) => ['api', 'http'].includes(unit(to)),
  },
  {
    name: 'api imports nothing from http (the app shell)',
    applies: (from) => unit(from) === 'api',
    forbids: (to) => unit(to) === 'http',
  },
  {
    name: 'the voice pipeline (voice) imports nothing from calls, dialer, webhooks, api, http, db or accounts',
    applies: (from) => unit(from) === 'voice',
    forbids: (to) => ['calls', 'dialer', 'webhooks', 'api', 'http', 'db', 'accounts'].includes(unit(to)),
  },
  {
    name: 'what sits below the voice pipeline (telephony, providers, audio, db, accounts, lib, recordings, observability) imports nothing from it',
    applies: (from) => BELOW_VOICE.includes(unit(from)),
    forbids: (to) => unit(to) === 'voice',
  },
  {
    name: 'the engine, dialer, webhooks, assistant tests and the voice pipeline use carriers and providers through their interfaces (types.ts) and registries only',
    applies: (from) => ['calls', 'dialer', 'webhooks', 'assistant-tests', 'voice'].includes(unit(from)),
    forbids: (to) => isAdapter(to) && !to.endsWith('/types.ts'),
  },
  {
    name: 'api/toolkit imports no resource of api',
    applies: (from) => from.startsWith('api/toolkit/'),
    forbids: (to) => unit(to) === 'api' && !to.startsWith('api/toolkit/'),
  },
  {
    name: 'carrier and provider adapters (telephony/<carrier>, providers/<kind>/…) import nothing from db, accounts, calls, dialer, webhooks, api or http',
    applies: isAdapter,
    forbids: (to) => ['db', 'accounts', 'calls', 'dialer', 'webhooks', 'api', 'http'].includes(unit(to)),
  },
];

/** Strongly connected components of more than one node (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

const arrows = sourceFiles(SRC).flatMap(arrowsOf);

describe('the layering of src/', () => {
  it('finds the imports it checks', () => {
    // A broken parser would pass every rule; these arrows exist by design.
    expect(arrows).toContainEqual({ from: 'main.ts', to: 'service.ts' });
    expect(arrows).toContainEqual({ from: 'http/app.ts', to: 'api/index.ts' });
    // The call composes the voice pipeline, which is a folder of its own.
    expect(arrows).toContainEqual({ from: 'calls/session.ts', to: 'voice/voice-call.ts' });
    expect(unit('voice/llm.ts')).toBe('voice');
    expect(arrows.length).toBeGreaterThan(200);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      const broken = arrows.filter((a) => rule.applies(a.from) && rule.forbids(a.to)).map((a) => `${a.from} → ${a.to}`);
      expect(broken).toEqual([]);
    });
  }

  it('has no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of arrows) {
      const [a, b] = [unit(from), unit(to)];
      if (!graph.has(a)) graph.set(a, new Set());
      if (a !== b) graph.get(a)!.add(b);
    }
    const described = cycles(graph).map((component) => {
      const members = new Set(component);
      const inside = arrows.filter((a) => members.has(unit(a.from)) && members.has(unit(a.to)) && unit(a.from) !== unit(a.to));
      return `${component.join(' ⇄ ')}: ${inside.map((a) => `${a.from} → ${a.to}`).join(', ')}`;
    });
    expect(described).toEqual([]);
  });

  it('refuses an arrow from the voice pipeline up into the call, and from below into the pipeline', () => {
    const broken = (arrow: Arrow) => RULES.filter((r) => r.applies(arrow.from) && r.forbids(arrow.to)).map((r) => r.name);
    const [up, below] = [RULES.find((r) => r.name.startsWith('the voice pipeline'))!.name, RULES.find((r) => r.name.startsWith('what sits below'))!.name];
    expect(broken({ from: 'voice/llm.ts', to: 'calls/session.ts' })).toContain(up);
    expect(broken({ from: 'voice/turn/policy.ts', to: 'db/schema.ts' })).toContain(up);
    expect(broken({ from: 'providers/llm/openai.ts', to: 'voice/frames.ts' })).toContain(below);
    expect(broken({ from: 'calls/session.ts', to: 'voice/voice-call.ts' })).toEqual([]);
  });

  it('detects a cycle when there is one', () => {
    const graph = new Map([
      ['calls', new Set(['service'])],
      ['service', new Set(['http'])],
      ['http', new Set(['api'])],
      ['api', new Set(['calls', 'db'])],
      ['db', new Set<string>()],
    ]);
    expect(cycles(graph)).toEqual([['api', 'calls', 'http', 'service']]);
  });
});
