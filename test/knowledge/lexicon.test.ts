/** A base's lexicon: document frequencies, and the lexemes spelt like a word the base does not know (pg_trgm's similarity). */
import { expect, it } from 'vitest';
import { Lexicon, trigrams } from '../../src/knowledge/lexicon.js';

it("makes pg_trgm's trigrams: lower case, accents folded, padded two spaces before and one after", () => {
  expect([...trigrams('Café')]).toEqual(['  c', ' ca', 'caf', 'afe', 'fe ']);
  expect(trigrams('?!').size).toBe(0);
});

it('finds a misspelt name and another form of a word, best first, above the threshold only', () => {
  const lexicon = new Lexicon('s1', new Map([['lindqvist', 2], ['kost', 40], ['linde', 1], ['wartezimm', 3]]));
  expect(lexicon.frequency('kost')).toBe(40);
  expect(lexicon.frequency('nowhere')).toBe(0);
  expect(lexicon.similar('Lindquist', 0.4, 2).map((c) => c.lexeme)).toEqual(['lindqvist']);
  // "Lindquist" and "lindqvist" share 7 of 13 trigrams
  expect(lexicon.similar('Lindquist', 0.4, 2)[0].similarity).toBeCloseTo(7 / 13);
  expect(lexicon.similar('kostet', 0.4, 2).map((c) => c.lexeme)).toEqual(['kost']);
  expect(lexicon.similar('zebra', 0.4, 2)).toEqual([]);
  expect(lexicon.bytes).toBeGreaterThan(0);
});
