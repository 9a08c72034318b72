/**
 * DOCX documents are read in a child process (src/knowledge/docx.ts): mammoth and its JSZip
 * ("MIT OR GPL-3.0-or-later") are optional dependencies that never load in the service's process.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocxReadError, docxToHtml } from '../../src/knowledge/docx.js';
import { makeDocx } from './files.js';

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

describe('DOCX in a child process', () => {
  it('reads a real DOCX: its headings and text come back as HTML', async () => {
    const html = await docxToHtml(await makeDocx([{ heading: 'Öffnungszeiten', paragraphs: ['Montag bis Freitag von 8 bis 18 Uhr.'] }]));
    expect(html).toContain('<h1>Öffnungszeiten</h1>');
    expect(html).toContain('Montag bis Freitag von 8 bis 18 Uhr.');
  });

  it('a file that is no DOCX is refused with the reader\'s reason', async () => {
    const err = await docxToHtml(Buffer.from('PK\u0003\u0004 not really a zip')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocxReadError);
    expect((err as Error).message.length).toBeGreaterThan(0);
  });

  it('only the child process imports mammoth or jszip', async () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const importers: string[] = [];
    for (const file of await sourceFiles(root)) {
      if (/from ['"](mammoth|jszip)['"]|import\(['"](mammoth|jszip)['"]\)/.test(await readFile(file, 'utf8'))) importers.push(path.relative(root, file));
    }
    expect(importers).toEqual(['knowledge/docx-process.ts']);
  });
});
