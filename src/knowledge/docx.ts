/**
 * DOCX to HTML in a child process (docx-process.ts): the reader's libraries (mammoth, JSZip —
 * "MIT OR GPL-3.0-or-later") are optional dependencies that never load in the service's process.
 * One short-lived child per document; documents are processed one at a time on the job queue.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DocxAnswer, DocxRequest } from './docx-process.js';

/** A DOCX that takes longer than this to read is refused (a zip bomb, a pathological file). */
const READ_TIMEOUT_MS = 60_000;

export class DocxReadError extends Error {}

/** The child's entry: the .ts source under tsx (tests, dev), the compiled .js in dist/. */
function childEntry(): { path: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  return { path: self.replace(/docx\.(ts|js)$/, `docx-process.${fromSource ? 'ts' : 'js'}`), execArgv: fromSource ? ['--import', 'tsx'] : [] };
}

/** The document's HTML; rejects with a `DocxReadError` whose message says what went wrong. */
export function docxToHtml(bytes: Buffer): Promise<string> {
  const entry = childEntry();
  const child = fork(entry.path, [], { execArgv: entry.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      settle(() => reject(new DocxReadError(`reading it took longer than ${READ_TIMEOUT_MS / 1000} s`)));
      child.kill('SIGKILL');
    }, READ_TIMEOUT_MS);
    child.once('message', (answer: DocxAnswer) => {
      if (answer.type === 'html') settle(() => resolve(answer.html));
      else if (answer.type === 'unavailable') settle(() => reject(new DocxReadError(`DOCX support is not installed (the optional package mammoth: ${answer.message})`)));
      else settle(() => reject(new DocxReadError(answer.message)));
    });
    child.once('error', (err) => settle(() => reject(new DocxReadError(err.message))));
    child.once('exit', (code, signal) => settle(() => reject(new DocxReadError(`its reader exited (${signal ?? `code ${code}`})`))));
    child.send({ type: 'read', bytes: new Uint8Array(bytes) } satisfies DocxRequest);
  });
}
