import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPLETENESS_SCORES, judgeCompleteness } from '../../../src/voice/turn/completeness.js';
import { LANGUAGES } from '../../../src/voice/turn/languages.js';

type Row = [text: string, complete: boolean, reason: string];

const ENGLISH: Row[] = [
  ['I would like to book an appointment for Tuesday.', true, 'complete-clause'],
  ['I would like to book an appointment for Tuesday', true, 'complete-clause'],
  ['What time do you open?', true, 'question'],
  ['what time do you open', true, 'question'],
  ['Can you move my appointment to Friday', true, 'question'],
  ['What are you looking for', true, 'question'],
  ['Who did you talk to', true, 'question'],
  ['Yes.', true, 'complete-clause'],
  ['I think so', true, 'complete-phrase'],
  ['Please sign me up', true, 'complete-clause'],
  ['I called her', true, 'complete-clause'],
  ['I would like to book a', false, 'article'],
  ['Could I get the', false, 'article'],
  ['I need an appointment for', false, 'preposition'],
  ['It is about my', false, 'possessive'],
  ['I want to change it because', false, 'conjunction'],
  ['Tuesday and', false, 'conjunction'],
  ['I was going to', false, 'dangling'],
  ['My name is um', false, 'hesitation'],
  ['My name is, uhhh', false, 'hesitation'],
  ['so the thing is, you know', false, 'hesitation'],
  ['I was wondering...', false, 'trailing-off'],
  ['I was wondering if so…', false, 'trailing-off'],
  ['Can I make an appoint-', false, 'trailing-off'],
  ['I would like to pay by', false, 'preposition'],
  ['She said that', false, 'conjunction'],
  // The pause points of the turn-taking bench's paused sentences.
  ['I would like to book', false, 'dangling'],
  ['My daughter needs a check up and', false, 'conjunction'],
  ['Could you send the invoice to', false, 'dangling'],
  ['I was thinking about', false, 'preposition'],
  ['The best time for me would be um', false, 'hesitation'],
  ['I ordered the blue one but', false, 'conjunction'],
  ['I need to get', false, 'dangling'],
  ['What would you like to order', true, 'question'],
  ['I would like to cancel', true, 'complete-clause'],
];

const GERMAN: Row[] = [
  ['Ich möchte einen Termin am Dienstag.', true, 'complete-clause'],
  ['Wann haben Sie geöffnet?', true, 'question'],
  ['wann haben Sie geöffnet', true, 'question'],
  ['Können Sie meinen Termin verschieben', true, 'question'],
  ['Ich rufe morgen an', true, 'complete-clause'],
  ['Das ist in Ordnung', true, 'complete-phrase'],
  ['Genau.', true, 'complete-clause'],
  ['Ich hätte gern einen', false, 'article'],
  ['Ich brauche einen Termin für', false, 'preposition'],
  ['Es geht um meine', false, 'possessive'],
  ['Ich möchte absagen, weil', false, 'conjunction'],
  ['Dienstag oder', false, 'conjunction'],
  ['Mein Name ist äh', false, 'hesitation'],
  ['Mein Name ist ähm', false, 'hesitation'],
  ['Also ich wollte ähhh', false, 'hesitation'],
  ['Ich wollte fragen, ob...', false, 'trailing-off'],
  ['Ich hätte gern', false, 'dangling'],
  ['Ich würde gerne einen Termin für', false, 'preposition'],
  ['Meine Adresse hat sich geändert und', false, 'conjunction'],
  ['Können Sie mir die Rechnung an', false, 'dangling'],
  ['Können Sie mir die Rechnung an meine neue Adresse schicken?', true, 'question'],
  ['Können Sie mir die Rechnung an meine neue Adresse schicken', true, 'question'],
  ['Kann man dort parken', true, 'question'],
  ['Könnten Sie das bitte', false, 'dangling'],
  ['Haben Sie morgen Zeit', true, 'question'],
  ['Am besten passt es mir äh', false, 'hesitation'],
];

describe('text completeness: English', () => {
  it.each(ENGLISH)('%j → complete %s (%s)', (text, complete, reason) => {
    const j = judgeCompleteness(text, 'en-US');
    expect({ complete: j.complete, reason: j.reason }).toEqual({ complete, reason });
  });
});

describe('text completeness: German', () => {
  it.each(GERMAN)('%j → complete %s (%s)', (text, complete, reason) => {
    const j = judgeCompleteness(text, 'de-DE');
    expect({ complete: j.complete, reason: j.reason }).toEqual({ complete, reason });
  });

  it('a modal question without its infinitive scores as open as a dangling article (the end-of-turn policy waits the long silence)', () => {
    expect(judgeCompleteness('Können Sie mir die Rechnung an', 'de')).toMatchObject({ probability: COMPLETENESS_SCORES.strongEnding, reason: 'dangling', strength: 'strong' });
  });

  it('a separable prefix that is also a preposition does not make a finished clause incomplete', () => {
    for (const text of ['Ich komme mit', 'Ich rufe an', 'Ich höre auf', 'Wir ziehen um']) expect(judgeCompleteness(text, 'de').complete, text).toBe(true);
  });
});

describe('text completeness: scores and reasons', () => {
  it('strong endings score lower than weak ones, weak lower than a clause, a clause lower than a question', () => {
    expect(judgeCompleteness('I want the', 'en').probability).toBe(COMPLETENESS_SCORES.strongEnding);
    expect(judgeCompleteness('I talked to her', 'en').probability).toBe(COMPLETENESS_SCORES.clause);
    expect(judgeCompleteness('It was his', 'en')).toMatchObject({ probability: COMPLETENESS_SCORES.weakEnding, strength: 'weak', reason: 'possessive' });
    expect(judgeCompleteness('Fine.', 'en').probability).toBe(COMPLETENESS_SCORES.punctuatedClause);
    expect(judgeCompleteness('Really?', 'en').probability).toBe(COMPLETENESS_SCORES.question);
  });

  it('words that end in a comma go on ("Yes, …"): leaning incomplete, in any language', () => {
    expect(judgeCompleteness('Yes,', 'en')).toMatchObject({ reason: 'continuing', complete: false, probability: COMPLETENESS_SCORES.continuing });
    expect(judgeCompleteness('Moment,', 'de').reason).toBe('continuing');
    expect(judgeCompleteness('Bueno;', 'es').reason).toBe('continuing');
    expect(judgeCompleteness('Yes.', 'en').complete).toBe(true);
  });

  it('nothing said is neither complete nor incomplete evidence', () => {
    for (const text of ['', '   ', '...', '?!']) expect(judgeCompleteness(text, 'en')).toMatchObject({ reason: 'empty', probability: 0.5 });
  });

  it('a language without lists still reads punctuation and trailing off', () => {
    expect(judgeCompleteness('¿Qué hora es?', 'es').reason).toBe('question');
    expect(judgeCompleteness('Quisiera una cita para...', 'es').reason).toBe('trailing-off');
    expect(judgeCompleteness('Quisiera una cita para el', 'es')).toMatchObject({ reason: 'unknown-language', complete: true });
  });

  it('word lists can be replaced, so a language is added as data', () => {
    const es = { ...LANGUAGES.en, strong: { article: ['el', 'la', 'una'] }, weak: {}, hesitations: ['eh', 'este'], completePhrases: [], questionWords: ['qué'], questionOpeners: [] };
    expect(judgeCompleteness('Quisiera una cita para el', 'es', es)).toMatchObject({ complete: false, reason: 'article', match: 'el' });
    expect(judgeCompleteness('Quisiera una cita, este', 'es', es).reason).toBe('hesitation');
  });
});

describe('text completeness: properties', () => {
  const language = fc.constantFrom('en', 'de');
  const plain = fc.stringMatching(/^[a-zA-ZäöüÄÖÜß ,']{0,60}$/);
  const listWord = (pick: (lang: string) => readonly string[]) =>
    language.chain((lang) => fc.tuple(fc.constant(lang), fc.constantFrom(...pick(lang))));

  it('any text followed by a strong article, preposition, conjunction or possessive is incomplete', () => {
    const strong = (lang: string) =>
      Object.values(LANGUAGES[lang].strong)
        .flat()
        .filter((w) => !w.includes(' '));
    fc.assert(
      fc.property(plain, listWord(strong), (prefix, [lang, word]) => {
        const j = judgeCompleteness(`${prefix} ${word}`, lang);
        // A question word opening the clause may strand a preposition; everything else is open.
        if (j.reason === 'question' || j.reason === 'complete-phrase') return;
        expect(j.complete).toBe(false);
      }),
    );
  });

  it('any text followed by a hesitation or an ellipsis is incomplete, however the letters are drawn out', () => {
    fc.assert(
      fc.property(plain, listWord((l) => LANGUAGES[l].hesitations.filter((h) => !h.includes(' '))), fc.integer({ min: 1, max: 4 }), (prefix, [lang, word], stretch) => {
        const drawn = word + word.slice(-1).repeat(stretch - 1);
        expect(judgeCompleteness(`${prefix} ${drawn}`, lang).complete).toBe(false);
        expect(judgeCompleteness(`${prefix} ${word}...`, lang).reason).toBe('trailing-off');
      }),
    );
  });

  it('a question mark after a non-hesitation makes it complete; case and spacing never matter', () => {
    fc.assert(
      fc.property(plain, language, (text, lang) => {
        const j = judgeCompleteness(text, lang);
        expect(judgeCompleteness(`  ${text.toUpperCase()}  `, lang).complete).toBe(j.complete);
        expect(j.probability).toBeGreaterThanOrEqual(0);
        expect(j.probability).toBeLessThanOrEqual(1);
        expect(j.complete).toBe(j.probability >= 0.5);
        const asked = judgeCompleteness(`${text}?`, lang);
        if (asked.reason !== 'hesitation' && asked.reason !== 'empty') expect(asked.complete).toBe(true);
      }),
    );
  });
});
