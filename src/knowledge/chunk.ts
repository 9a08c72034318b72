/**
 * Text → passages for search: sections under their headings (`# …` lines, as html.ts and the
 * DOCX path write them), packed into chunks of a few hundred words; a long section is cut into
 * windows that overlap, so a sentence on a cut is whole in one of them. Every chunk carries its
 * heading path ("Prices › Dental hygiene"), which is indexed with a higher weight.
 */
export interface TextChunk {
  heading: string;
  content: string;
}

export interface ChunkOptions {
  targetWords: number;
  overlapWords: number;
}

const DEFAULTS: ChunkOptions = { targetWords: 180, overlapWords: 30 };
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

interface Section {
  path: string[];
  paragraphs: string[];
}

function sections(text: string): Section[] {
  const out: Section[] = [];
  const path: string[] = [];
  let current: Section = { path: [], paragraphs: [] };
  let paragraph: string[] = [];
  const endParagraph = () => {
    const p = paragraph.join(' ').replace(/\s+/g, ' ').trim();
    if (p) current.paragraphs.push(p);
    paragraph = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const h = HEADING.exec(line.trim());
    if (h) {
      endParagraph();
      if (current.paragraphs.length > 0) out.push(current);
      const level = h[1].length;
      path.length = Math.min(path.length, level - 1);
      path[level - 1] = h[2].trim();
      current = { path: path.filter(Boolean), paragraphs: [] };
    } else if (line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line.trim());
    }
  }
  endParagraph();
  if (current.paragraphs.length > 0) out.push(current);
  return out;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

export function chunkText(text: string, options: Partial<ChunkOptions> = {}): TextChunk[] {
  const { targetWords, overlapWords } = { ...DEFAULTS, ...options };
  const chunks: TextChunk[] = [];
  for (const section of sections(text)) {
    const heading = section.path.join(' › ');
    let pending: string[] = [];
    let fresh = 0; // words in `pending` not yet in a chunk
    const flush = () => {
      if (fresh > 0) chunks.push({ heading, content: pending.join(' ') });
      pending = fresh > 0 ? pending.slice(-overlapWords) : pending;
      fresh = 0;
    };
    for (const paragraph of section.paragraphs) {
      const w = words(paragraph);
      // Paragraphs stay whole when they fit; a long one is cut in windows of targetWords.
      if (fresh > 0 && pending.length + w.length > targetWords) flush();
      for (const word of w) {
        pending.push(word);
        fresh++;
        if (pending.length >= targetWords) flush();
      }
    }
    flush();
  }
  return chunks;
}
