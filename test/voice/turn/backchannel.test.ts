import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BackchannelDetector, normaliseBackchannel } from '../../../src/voice/turn/backchannel.js';
import { LANGUAGES } from '../../../src/voice/turn/languages.js';

describe('backchannels', () => {
  const en = new BackchannelDetector('en-US');
  const de = new BackchannelDetector('de');

  it.each([
    ['mhm', 'backchannel'],
    ['Mhm.', 'backchannel'],
    ['Mm-hmm.', 'backchannel'],
    ['mmhmm', 'backchannel'],
    ['Uh-huh,', 'backchannel'],
    ['uh huh', 'backchannel'],
    ['Yeah.', 'backchannel'],
    ['Yeahhh', 'backchannel'],
    ['OK!', 'backchannel'],
    ['Okay, sure.', 'backchannel'],
    ['mhm mhm', 'backchannel'],
    ['yeah yeah yeah', 'backchannel'],
    ['Oh, I see.', 'backchannel'],
    ['Right, right.', 'backchannel'],
    ['Stop.', 'words'],
    ['Wait a second.', 'words'],
    ['No, that is wrong.', 'words'],
    ['Yeah, but I want Tuesday.', 'words'],
    ['', 'no-words'],
    [' ... ', 'no-words'],
  ])('English %j → %s', (text, kind) => {
    expect(en.classify(text)).toBe(kind);
  });

  it.each([
    ['ja', 'backchannel'],
    ['Ja ja.', 'backchannel'],
    ['jaja', 'backchannel'],
    ['Genau.', 'backchannel'],
    ['Ja, genau.', 'backchannel'],
    ['Stimmt.', 'backchannel'],
    ['Aha.', 'backchannel'],
    ['Ach so.', 'backchannel'],
    ['Okay.', 'backchannel'],
    ['Alles klar.', 'backchannel'],
    ['Halt, warten Sie.', 'words'],
    ['Nein, das stimmt nicht.', 'words'],
    ['Ja, aber lieber Dienstag.', 'words'],
  ])('German %j → %s', (text, kind) => {
    expect(de.classify(text)).toBe(kind);
  });

  it('the turn-taking bench corpus: its backchannels are backchannels, its interruptions are words', () => {
    for (const t of ['mhm', 'uh-huh', 'yeah', 'okay', 'right', 'sure']) expect(en.classify(t), t).toBe('backchannel');
    for (const t of ['ja', 'genau', 'okay', 'mhm']) expect(de.classify(t), t).toBe('backchannel');
    for (const t of ['Stop.', 'Wait.', "No, that's wrong.", 'Stop, wait a second.', 'Hold on, that is not what I asked.']) expect(en.classify(t), t).toBe('words');
    for (const t of ['Stopp.', 'Warten Sie.', 'Nein, das ist falsch.', 'Moment, das stimmt nicht.']) expect(de.classify(t), t).toBe('words');
  });

  it("an assistant's own words extend the list, spelled however the STT spells them", () => {
    const custom = new BackchannelDetector('en', ['Roger that', 'copy', 'Jawoll']);
    expect(custom.isBackchannel('Roger that.')).toBe(true);
    expect(custom.isBackchannel('roger-that')).toBe(true);
    expect(custom.isBackchannel('Copy, copy.')).toBe(true);
    expect(custom.isBackchannel('jawoll')).toBe(true);
    expect(en.isBackchannel('Roger that.')).toBe(false);
    // A language without a list has only the assistant's words.
    expect(new BackchannelDetector('xx', ['vale']).isBackchannel('Vale, vale.')).toBe(true);
  });

  it('normalises case, punctuation, hyphens and drawn-out letters the same way on both sides', () => {
    expect(normaliseBackchannel('  Uh-HUH!!  ')).toEqual(['uh', 'huh']);
    expect(normaliseBackchannel('Mhmmm…')).toEqual(['mhm']);
    expect(normaliseBackchannel('O.K.')).toEqual(['ok']);
  });

  it('any chain of listed backchannels, in any case, with any punctuation between, is a backchannel', () => {
    for (const lang of ['en', 'de'] as const) {
      const detector = new BackchannelDetector(lang);
      const word = fc.constantFrom(...LANGUAGES[lang].backchannels);
      const sep = fc.constantFrom(' ', ', ', '. ', '! ', ' - ', '… ');
      fc.assert(
        fc.property(fc.array(fc.tuple(word, sep, fc.boolean()), { minLength: 1, maxLength: 5 }), (parts) => {
          const text = parts.map(([w, s, upper]) => (upper ? w.toUpperCase() : w) + s).join('');
          expect(detector.classify(text)).toBe('backchannel');
        }),
      );
    }
  });

  it('a backchannel followed by any word outside the list is real words', () => {
    // Last words of multi-word entries ("see" of "i see") could complete a phrase across the comma.
    const phraseEnds = new Set(LANGUAGES.en.backchannels.map(normaliseBackchannel).filter((t) => t.length > 1).map((t) => t.at(-1)));
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGES.en.backchannels), fc.stringMatching(/^[a-z]{3,9}$/), (b, word) => {
        fc.pre(!en.isBackchannel(word) && !phraseEnds.has(normaliseBackchannel(word)[0]));
        expect(en.classify(`${b}, ${word}`)).toBe('words');
      }),
    );
  });
});
