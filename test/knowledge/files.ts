/** Real documents made for the knowledge tests: a PDF (pdf-lib), a DOCX (docx) and their uploads. */
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestService } from '../support/service.js';

/** A PDF whose pages carry the given lines (empty: a page with a drawn box and no text at all). */
export async function makePdf(pages: string[][]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([595, 842]);
    if (lines.length === 0) page.drawRectangle({ x: 50, y: 50, width: 200, height: 100, borderWidth: 2 });
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 12, font }));
  }
  return Buffer.from(await pdf.save());
}

export async function makeDocx(sections: { heading: string; paragraphs: string[] }[]): Promise<Buffer> {
  const doc = new Document({
    sections: [{
      children: sections.flatMap((s) => [
        new Paragraph({ text: s.heading, heading: HeadingLevel.HEADING_1 }),
        ...s.paragraphs.map((p) => new Paragraph({ text: p })),
      ]),
    }],
  });
  return Buffer.from(await Packer.toBuffer(doc));
}

/** POST a file as multipart/form-data, as a browser or curl -F would. */
export async function upload(t: TestService, token: string, kbId: number, file: Buffer, fileName: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(file)]), fileName);
  const res = await t.service.app.inject({
    method: 'POST',
    url: `/api/user/knowledgebases/${kbId}/documents`,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    payload: form,
  });
  return { status: res.statusCode, body: res.json() };
}
