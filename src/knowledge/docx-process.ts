/**
 * The DOCX reader's child process. mammoth reads DOCX through JSZip, whose licence is
 * "MIT OR GPL-3.0-or-later"; both are optional dependencies and are loaded only here, never in
 * the service's process (docx.ts forks this file once per document). Its CPU work (unzipping,
 * XML) stays off the event loop too. One request in over the IPC pipe, one answer out, exit.
 */
export type DocxRequest = { type: 'read'; bytes: Uint8Array };
export type DocxAnswer = { type: 'html'; html: string } | { type: 'unavailable'; message: string } | { type: 'failed'; message: string };

const send = (answer: DocxAnswer) => new Promise<void>((resolve) => (process.send ? process.send(answer, () => resolve()) : resolve()));

process.once('message', (request: DocxRequest) => {
  void (async () => {
    let mammoth: typeof import('mammoth');
    try {
      mammoth = (await import('mammoth')).default;
    } catch (err) {
      await send({ type: 'unavailable', message: (err as Error).message });
      process.exit(0);
    }
    try {
      const html = (await mammoth.convertToHtml({ buffer: Buffer.from(request.bytes) })).value;
      await send({ type: 'html', html });
    } catch (err) {
      await send({ type: 'failed', message: (err as Error).message });
    }
    process.exit(0);
  })();
});
process.on('disconnect', () => process.exit(0));
