import { describe, expect, it } from 'vitest';
import { chunkText } from '../../src/knowledge/chunk.js';
import { detectLanguage } from '../../src/knowledge/language.js';

describe('chunkText', () => {
  it('keeps the heading path and starts a chunk at each section', () => {
    const chunks = chunkText('# Clinic\n\nIntro.\n\n## Prices\n\nCleaning 89 euros.\n\n## Team\n\nDr. Lindqvist.\n\n# Other\n\nText.');
    expect(chunks).toEqual([
      { heading: 'Clinic', content: 'Intro.' },
      { heading: 'Clinic › Prices', content: 'Cleaning 89 euros.' },
      { heading: 'Clinic › Team', content: 'Dr. Lindqvist.' },
      { heading: 'Other', content: 'Text.' },
    ]);
  });

  it('cuts long text in windows that overlap, losing no word', () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`);
    const chunks = chunkText(words.join(' '), { targetWords: 100, overlapWords: 20 });
    expect(chunks.map((c) => c.content.split(' ').length)).toEqual([100, 100, 100, 100, 100, 100]);
    expect(chunks[1].content.split(' ')[0]).toBe('w80');
    const seen = new Set(chunks.flatMap((c) => c.content.split(' ')));
    expect(seen.size).toBe(500);
  });

  it('keeps paragraphs whole when they fit', () => {
    const p = (n: number, tag: string) => Array.from({ length: n }, () => tag).join(' ');
    const chunks = chunkText(`${p(60, 'a')}\n\n${p(60, 'b')}\n\n${p(60, 'c')}`, { targetWords: 130, overlapWords: 10 });
    expect(chunks[0].content).toBe(`${p(60, 'a')} ${p(60, 'b')}`);
    expect(chunks[1].content.endsWith(p(60, 'c'))).toBe(true);
  });
});

describe('detectLanguage', () => {
  it('names the configuration by the stop words a passage uses', () => {
    expect(detectLanguage('The practice is open for you on weekdays and we are happy to help.')).toBe('english');
    expect(detectLanguage('Die Praxis ist für Sie von Montag bis Freitag geöffnet und wir helfen gern.')).toBe('german');
    expect(detectLanguage('Cleaning 89 €')).toBe('simple');
  });
});
