/**
 * A knowledge base's lexicon as search keeps it in the process: every lexeme of its chunks with
 * the number of chunks holding it (BM25's document frequency, from ts_stat), and an index of the
 * lexemes' trigrams (pg_trgm's: lower case, a word padded with two spaces before and one after)
 * to find the lexemes spelt like a word the base does not know ("Lindquist" → lindqvist,
 * "kostet" → kost).
 */
export interface Correction {
  lexeme: string;
  similarity: number;
}

/** pg_trgm's trigrams of one word: letters and digits, lower case, accents folded. */
export function trigrams(word: string): Set<string> {
  const w = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const padded = `  ${w} `;
  const out = new Set<string>();
  if (!w) return out;
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

export class Lexicon {
  private readonly words: string[];
  private readonly gramCounts: Uint16Array;
  private readonly postings = new Map<string, number[]>();
  /** Approximate bytes held (for the cache's budget). */
  readonly bytes: number;

  constructor(readonly stamp: string, private readonly df: Map<string, number>) {
    this.words = [...df.keys()];
    this.gramCounts = new Uint16Array(this.words.length);
    let bytes = 64 + this.words.length * 2;
    this.words.forEach((word, i) => {
      const grams = trigrams(word);
      this.gramCounts[i] = grams.size;
      bytes += 2 * word.length + 64 + grams.size * 8;
      for (const g of grams) {
        const list = this.postings.get(g);
        if (list) list.push(i);
        else {
          this.postings.set(g, [i]);
          bytes += 64;
        }
      }
    });
    this.bytes = bytes;
  }

  frequency(lexeme: string): number {
    return this.df.get(lexeme) ?? 0;
  }

  /** The lexemes most similar to a word (pg_trgm's similarity: shared trigrams / all trigrams of both), best first. */
  similar(word: string, threshold: number, max: number): Correction[] {
    const grams = trigrams(word);
    if (grams.size === 0) return [];
    const shared = new Map<number, number>();
    for (const g of grams) for (const i of this.postings.get(g) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    const found: Correction[] = [];
    for (const [i, n] of shared) {
      const similarity = n / (grams.size + this.gramCounts[i] - n);
      if (similarity >= threshold) found.push({ lexeme: this.words[i], similarity });
    }
    return found.sort((a, b) => b.similarity - a.similarity || a.lexeme.localeCompare(b.lexeme)).slice(0, max);
  }
}
