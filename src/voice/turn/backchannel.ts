/**
 * Is what the caller said while the assistant talks only a backchannel ("mhm", "uh-huh",
 * "yeah", "okay", "genau", "ja ja")? Then it does not take the floor: the reply goes on (or
 * resumes after a pause). Anything else ("stop", "wait", "no, that's wrong") is an interruption.
 *
 * The words per language are in languages.ts; an assistant adds its own (the assistant field
 * `backchannel_words`: at most BACKCHANNEL_WORDS_MAX strings of at most BACKCHANNEL_WORD_MAX_LENGTH
 * characters each). Matching is forgiving about how an STT spells them:
 * - case, Unicode form, punctuation: "Mhm.", "OK!", "uh-huh," all match;
 * - hyphens are spaces ("uh-huh" = "uh huh", "mm-hmm" = "mm hmm");
 * - letter runs are collapsed ("mhmm" = "mhm", "yeahhh" = "yeah", "okaaay" = "okay");
 * - repeats and chains of backchannels are one backchannel ("mhm mhm", "yeah yeah yeah",
 *   "jaja", "oh okay sure", "ja genau").
 */
import { collapseRuns, languageWords } from './languages.js';

export const BACKCHANNEL_WORDS_MAX = 50;
export const BACKCHANNEL_WORD_MAX_LENGTH = 40;

/** A phrase as the detector compares it: lower-case words, letter runs collapsed, punctuation gone. */
export function normaliseBackchannel(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/[-‐‑–—_/]+/g, ' ')
    .split(/\s+/)
    .map((w) => collapseRuns(w.replace(/[^\p{L}\p{N}']+/gu, '').replace(/^'+|'+$/g, '')))
    .filter((w) => w !== '');
}

export type OverlapKind =
  /** No words at all (a cough, line noise, or the STT has nothing yet). */
  | 'no-words'
  /** Only backchannel words: the assistant keeps the floor. */
  | 'backchannel'
  /** Real words: the caller takes the floor. */
  | 'words';

export class BackchannelDetector {
  private readonly phrases = new Set<string>();
  private readonly singles: string[] = [];
  private longest = 1;

  /** `language`: ISO 639-1 (region ignored); `extra`: the assistant's own words (any language). */
  constructor(language: string, extra: readonly string[] = []) {
    for (const phrase of [...(languageWords(language)?.backchannels ?? []), ...extra]) this.add(phrase);
  }

  private add(phrase: string): void {
    const tokens = normaliseBackchannel(phrase);
    if (tokens.length === 0) return;
    this.phrases.add(tokens.join(' '));
    if (tokens.length === 1) this.singles.push(tokens[0]);
    this.longest = Math.max(this.longest, tokens.length);
  }

  classify(text: string): OverlapKind {
    const tokens = normaliseBackchannel(text);
    if (tokens.length === 0) return 'no-words';
    return this.covers(tokens) ? 'backchannel' : 'words';
  }

  isBackchannel(text: string): boolean {
    return this.classify(text) === 'backchannel';
  }

  /** Whether the tokens split into a chain of known phrases (dynamic programming over positions). */
  private covers(tokens: string[]): boolean {
    const reachable = new Array<boolean>(tokens.length + 1).fill(false);
    reachable[0] = true;
    for (let i = 0; i < tokens.length; i++) {
      if (!reachable[i]) continue;
      for (let n = 1; n <= this.longest && i + n <= tokens.length; n++) {
        if (this.phrases.has(tokens.slice(i, i + n).join(' '))) reachable[i + n] = true;
      }
      if (this.isRepeat(tokens[i])) reachable[i + 1] = true;
    }
    return reachable[tokens.length];
  }

  /** "jaja", "mhmhm": one known word said several times without a space. */
  private isRepeat(token: string): boolean {
    return this.singles.some((w) => token.length > w.length && token.length % w.length === 0 && w.repeat(token.length / w.length) === token);
  }
}
