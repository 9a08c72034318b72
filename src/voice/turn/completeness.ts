/**
 * Does the caller's transcript so far read like a finished turn? A judgement of the words only,
 * per language (the lists are data in languages.ts), for interim and final transcripts:
 *
 * - trails off ("so…", "I was going to...", a cut-off "appoint-")      → incomplete
 * - ends in a comma, semicolon or colon ("Yes, …": the recogniser heard the clause go on)
 *                                                                       → leaning incomplete
 * - ends in a hesitation ("um", "uh", "äh", "ähm", "you know")          → incomplete
 * - ends in an article, possessive, preposition, conjunction, or a dangling "to" / "I'm"
 *   (strong lists: "a", "the", "my", "einen", "für", "and", "weil")    → incomplete
 * - the same with a word that often ends a finished clause too (weak lists: "her", "so", "die",
 *   "mit")                                                              → leaning incomplete
 * - a question ("?", or opened by a question word / inverted auxiliary) → complete
 * - any other clause                                                    → complete
 *
 * The result is a probability-like score that the turn is complete (the end-of-turn policy mixes
 * it with VAD silence, an audio model and the STT's own turn events) plus the reason, so a log or
 * a test can say why. It is a heuristic: "I need a table" and "I need a table for" are told apart,
 * "…einen Termin mit" (a separable prefix looks the same) is not; the audio model is the signal for
 * prosody. German questions opened by a modal must end in their infinitive ("Können Sie mir die
 * Rechnung an…" goes on; "…schicken" is finished).
 */
import { collapseRuns, languageWords, words, type EndingReason, type LanguageWords } from './languages.js';

export type CompletenessReason =
  | 'empty'
  | 'trailing-off'
  | 'continuing'
  | EndingReason
  | 'question'
  | 'complete-phrase'
  | 'complete-clause'
  | 'unknown-language';

export interface Completeness {
  /** 0 … 1: how likely the words are a finished turn. */
  probability: number;
  /** probability ≥ 0.5. */
  complete: boolean;
  reason: CompletenessReason;
  /** For ending-word reasons: whether the word was in the strong or the weak list. */
  strength?: 'strong' | 'weak';
  /** The ending (or opening, for questions) that decided. */
  match?: string;
}

/** The scores per reason: one table, so the policy's tests and the docs can name them. */
export const COMPLETENESS_SCORES = {
  trailingOff: 0.1,
  continuing: 0.35,
  hesitation: 0.1,
  strongEnding: 0.15,
  weakEnding: 0.35,
  empty: 0.5,
  unknownLanguage: 0.6,
  clause: 0.8,
  punctuatedClause: 0.9,
  question: 0.95,
} as const;

/** Leading words that do not change what the clause is ("so what time…", "und wo…"). */
const DISCOURSE = new Set(['so', 'and', 'but', 'okay', 'ok', 'well', 'oh', 'um', 'uh', 'und', 'also', 'aber', 'ja', 'na', 'äh', 'ähm']);
const LONGEST_PHRASE = 4;

interface Index {
  endings: Map<string, { kind: 'complete' } | { kind: 'open'; reason: EndingReason; strength: 'strong' | 'weak' }>;
  hesitations: Set<string>;
  questionWords: Set<string>;
  questionOpeners: Set<string>;
}

const indexes = new WeakMap<LanguageWords, Index>();

function indexOf(lists: LanguageWords): Index {
  let index = indexes.get(lists);
  if (index) return index;
  const endings: Index['endings'] = new Map();
  const phrase = (p: string) => words(p).join(' ');
  // Weak first, strong over it, complete phrases over both: the more specific list wins.
  for (const strength of ['weak', 'strong'] as const) {
    for (const [reason, list] of Object.entries(lists[strength]) as [EndingReason, readonly string[]][]) {
      for (const p of list) endings.set(phrase(p), { kind: 'open', reason, strength });
    }
  }
  for (const p of lists.completePhrases) endings.set(phrase(p), { kind: 'complete' });
  index = {
    endings,
    hesitations: new Set(lists.hesitations.map((h) => words(h).map(collapseRuns).join(' '))),
    questionWords: new Set(lists.questionWords.map(phrase)),
    questionOpeners: new Set(lists.questionOpeners.map(phrase)),
  };
  indexes.set(lists, index);
  return index;
}

/** Words that end in a comma, semicolon or colon (a closing quote or bracket after it allowed): the clause goes on. */
export function endsMidClause(text: string): boolean {
  return /[,;:]["'”»)]*$/.test(text.trim());
}

function result(probability: number, reason: CompletenessReason, extra: Partial<Completeness> = {}): Completeness {
  return { probability, complete: probability >= 0.5, reason, ...extra };
}

/**
 * Judges `text` in `language` (ISO 639-1, region suffix ignored). `lists` replaces the built-in
 * word lists (tests, or a language the service has none for).
 */
export function judgeCompleteness(text: string, language: string, lists: LanguageWords | undefined = languageWords(language)): Completeness {
  const trimmed = text.normalize('NFKC').trim();
  const tokens = words(trimmed);
  if (tokens.length === 0) return result(COMPLETENESS_SCORES.empty, 'empty');
  if (/(\.\.\.|…)$/.test(trimmed) || /\p{L}[-–—]$/u.test(trimmed)) return result(COMPLETENESS_SCORES.trailingOff, 'trailing-off');
  if (endsMidClause(trimmed)) return result(COMPLETENESS_SCORES.continuing, 'continuing', { match: trimmed.slice(-1) });
  const asked = /[?¿]["'”»)]*$/.test(trimmed);
  const punctuated = /[.!]["'”»)]*$/.test(trimmed);
  if (!lists) {
    if (asked) return result(COMPLETENESS_SCORES.question, 'question', { match: '?' });
    return result(punctuated ? COMPLETENESS_SCORES.clause : COMPLETENESS_SCORES.unknownLanguage, 'unknown-language');
  }
  const index = indexOf(lists);

  // Hesitation at the end (letter runs collapsed: "ummm", "ähhh").
  const collapsed = tokens.map(collapseRuns);
  for (let n = Math.min(LONGEST_PHRASE, tokens.length); n >= 1; n--) {
    const tail = collapsed.slice(-n).join(' ');
    if (index.hesitations.has(tail)) return result(COMPLETENESS_SCORES.hesitation, 'hesitation', { match: tokens.slice(-n).join(' ') });
  }
  if (asked) return result(COMPLETENESS_SCORES.question, 'question', { match: '?' });

  let first = 0;
  while (first < tokens.length - 1 && DISCOURSE.has(tokens[first])) first++;
  const opener = tokens[first];
  const whQuestion = index.questionWords.has(opener) && tokens.length - first >= 2;
  const yesNoQuestion = index.questionOpeners.has(opener) && tokens.length - first >= 3;

  for (let n = Math.min(LONGEST_PHRASE, tokens.length); n >= 1; n--) {
    const tail = tokens.slice(-n).join(' ');
    const ending = index.endings.get(tail);
    if (!ending) continue;
    if (ending.kind === 'complete') return result(punctuated ? COMPLETENESS_SCORES.punctuatedClause : COMPLETENESS_SCORES.clause, 'complete-phrase', { match: tail });
    // "What are you looking for", "who did you talk to": a wh-question strands its preposition.
    if (whQuestion && (ending.reason === 'preposition' || ending.reason === 'dangling' || ending.strength === 'weak')) return result(COMPLETENESS_SCORES.clause, 'question', { match: opener });
    if (ending.strength === 'weak' && yesNoQuestion) return result(COMPLETENESS_SCORES.clause, 'question', { match: opener });
    const score = ending.strength === 'strong' ? COMPLETENESS_SCORES.strongEnding : COMPLETENESS_SCORES.weakEnding;
    return result(score, ending.reason, { strength: ending.strength, match: tail });
  }
  if (yesNoQuestion && lists.modalOpeners?.includes(opener) && lists.infinitive) {
    // German modal questions end in their infinitive: "Können Sie mir die Rechnung an…" goes on.
    const last = tokens[tokens.length - 1];
    const { endings, words: irregular } = lists.infinitive;
    // As sure a sign as a dangling article: the verb the modal promised is still to come.
    if (!irregular.includes(last) && !endings.some((e) => last.endsWith(e))) return result(COMPLETENESS_SCORES.strongEnding, 'dangling', { strength: 'strong', match: last });
  }
  if (whQuestion || yesNoQuestion) return result(COMPLETENESS_SCORES.clause, 'question', { match: opener });
  return result(punctuated ? COMPLETENESS_SCORES.punctuatedClause : COMPLETENESS_SCORES.clause, 'complete-clause');
}
