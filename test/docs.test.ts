/**
 * The README and docs/ as a reader meets them: every relative link leads to a file that exists
 * and every #anchor to a heading there (GitHub's heading anchors); the pictures are small; and
 * the text speaks only of what a reader has — no internal specification, contract or issue
 * numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchor } from '../scripts/config-reference.js';
import { SETTING_NAMES } from '../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a page's headings (a repeated heading gets -1, -2, …). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```\s*$/gm, '');
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(m[1]!.replace(/[`*]/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(file: string): string[] {
  const text = prose(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('documentation links', () => {
  it('finds the pages and their links', () => {
    // A broken reader would find nothing and pass.
    expect(pages).toContain('docs/README.md');
    expect(pages.length).toBeGreaterThan(8);
    expect(links('README.md').length).toBeGreaterThan(8);
    expect(anchors('docs/troubleshooting.md')).toContain('invalid-configuration');
  });

  it('every relative link resolves to a file, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of links(page)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
        const [target, hash] = link.split('#') as [string, string | undefined];
        const file = target === '' ? page : path.normalize(path.join(path.dirname(page), decodeURIComponent(target)));
        if (!fs.existsSync(path.join(ROOT, file))) {
          broken.push(`${page}: ${link} (no ${file})`);
          continue;
        }
        if (hash !== undefined && !(file.endsWith('.md') && anchors(file).has(hash))) broken.push(`${page}: ${link} (no heading #${hash} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the settings the recipes set are settings the service reads', () => {
    // Shell variables of the tour and of compose's .env that are not settings of the service.
    const shellOnly = ['TOKEN', 'ADMIN', 'BASE', 'POSTGRES_PASSWORD'];
    const set = new Map<string, string>();
    for (const page of pages) {
      const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
      for (const block of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
        for (const line of block[1]!.split('\n')) {
          // `export A=1 B=2`, or `A=1 B=2 npm start`
          const assignments = /^\s*(?:export\s+)?((?:[A-Z][A-Z0-9_]*=\S*\s*)+)/.exec(line)?.[1];
          for (const m of assignments?.matchAll(/([A-Z][A-Z0-9_]*)=/g) ?? []) set.set(m[1]!, page);
        }
      }
    }
    expect(set.size).toBeGreaterThan(10);
    expect([...set].filter(([name]) => !SETTING_NAMES.includes(name) && !shellOnly.includes(name)).map(([n, p]) => `${p}: ${n}`)).toEqual([]);
  });

  it('the README shows a screenshot of the dashboard, small enough for a front page', () => {
    const images = links('README.md').filter((l) => /\.(png|jpe?g|webp)$/.test(l));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      const bytes = fs.readFileSync(path.join(ROOT, image));
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.length).toBeLessThan(150 * 1024);
    }
  });

  // docs/decisions.md is left out: it grows with every change, often written in the words of a
  // plan the reader does not have, and is kept clean by hand.
  it('speaks only of what a reader has: no specification, contract or issue numbers', () => {
    const found: string[] = [];
    for (const page of pages.filter((p) => p !== 'docs/decisions.md')) {
      const lines = fs.readFileSync(path.join(ROOT, page), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const m = /\b(the spec\b|spec's|spec'd|spec \d|CONTRACT|issues? #?\d+|VOICE\.md|PLAN\.md|SPEC\.md)/i.exec(line);
        if (m) found.push(`${page}:${i + 1}: ${m[0]}`);
      });
    }
    expect(found).toEqual([]);
  });
});
