/**
 * The text of a document: PDF with unpdf (PDF.js, Apache-2.0), DOCX with mammoth (to HTML, so
 * its headings survive; in a child process, docx.ts, as its JSZip is dual MIT/GPL), plain text as it is. Every failure is an `ExtractionError` whose message
 * is what the document's `error` says.
 */
import { extractText, getDocumentProxy } from 'unpdf';
import { docxToHtml } from './docx.js';
import { htmlToText } from './html.js';

export class ExtractionError extends Error {}

export const NO_TEXT = 'The document contains no text that could be extracted.';

function withText(text: string): string {
  const t = text.replace(/\u0000/g, '').trim();
  if (!/[\p{L}\p{N}]/u.test(t)) throw new ExtractionError(NO_TEXT);
  return t;
}

export async function pdfText(bytes: Buffer): Promise<string> {
  if (bytes.subarray(0, 1024).indexOf('%PDF-') < 0) throw new ExtractionError('The file is not a PDF.');
  let pages: string[];
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: true, verbosity: 0 });
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } finally {
      await pdf.destroy().catch(() => undefined);
    }
  } catch (err) {
    throw new ExtractionError(`The PDF could not be read: ${(err as Error).message}`);
  }
  return withText(pages.join('\n\n'));
}

export async function docxText(bytes: Buffer): Promise<string> {
  let html: string;
  try {
    html = await docxToHtml(bytes);
  } catch (err) {
    throw new ExtractionError(`The DOCX file could not be read: ${(err as Error).message}`);
  }
  return withText(htmlToText(html));
}

export function plainText(bytes: Buffer | string): string {
  const text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return withText(text);
}
