/**
 * The words the end-of-turn judges read, as data per language. To add a language, add an entry
 * to `LANGUAGES` (the key is the ISO 639-1 code; `en-US`, `de-AT` use their base language).
 *
 * How the ending lists were chosen (why some common words are missing on purpose):
 * - A word belongs in a `strong` list only when a clause that ends in it is almost never finished
 *   ("I'd like to book a", "ich hätte gern einen"). Words that often END a finished clause stay
 *   out or go to `weak`: English particles ("sign up", "log in", "turn it off"), German separable
 *   prefixes ("ich rufe morgen an", "ich komme mit", "ich höre auf": an, auf, aus, bei, durch,
 *   mit, nach, um, vor, zu are in no list, so "einen Termin mit …" reads finished and the audio
 *   model has to catch it), pronoun uses ("I called
 *   her" — "her" is in no list, "das ist das", "I think so").
 * - `completePhrases` are endings that look open but are finished ("I think so", "and so on").
 * - A question with a stranded preposition ("what are you looking for", "wo kommst du her") is
 *   complete: a clause that begins with a `questionWords` word wins over a preposition ending.
 * - Hesitations are matched after letter runs are collapsed ("ummm" → "um", "ähhh" → "äh").
 */

export type EndingReason = 'article' | 'preposition' | 'conjunction' | 'possessive' | 'hesitation' | 'dangling';

export interface LanguageWords {
  /** Clause endings that leave it open, by reason: a strong sign the caller goes on. */
  strong: Partial<Record<EndingReason, readonly string[]>>;
  /** Endings that are often open but sometimes finished: a weaker sign. */
  weak: Partial<Record<EndingReason, readonly string[]>>;
  /** Hesitation sounds (also the spelled-out fillers); matched on collapsed letter runs. */
  hesitations: readonly string[];
  /** Multi-word endings that look open but are finished. */
  completePhrases: readonly string[];
  /** Words that open a wh-question (a question without "?" is still complete). */
  questionWords: readonly string[];
  /** Words that open a yes/no question when they come first (inverted auxiliary or modal). */
  questionOpeners: readonly string[];
  /** Listener sounds and words that acknowledge without taking the floor. */
  backchannels: readonly string[];
  /**
   * Verb-final languages (German): a question opened by one of these modals is finished only when
   * it ends in an infinitive ("Können Sie mir die Rechnung schicken?"), not on "…die Rechnung an".
   */
  modalOpeners?: readonly string[];
  /** How an infinitive ends (`en`, `ern`, `eln`), and the few that end otherwise (`sein`, `tun`). */
  infinitive?: { endings: readonly string[]; words: readonly string[] };
}

const EN: LanguageWords = {
  strong: {
    article: ['a', 'an', 'the'],
    possessive: ['my', 'your', 'our', 'their', 'its'],
    preposition: ['of', 'for', 'with', 'at', 'from', 'into', 'onto', 'about', 'between', 'without', 'towards', 'toward', 'during', 'until', 'till', 'via', 'per', 'than', 'upon', 'among', 'within', 'across', 'against', 'beside', 'besides', 'near'],
    conjunction: ['and', 'or', 'but', 'because', 'cause', "'cause", 'if', 'although', 'whereas', 'unless', 'whether', 'nor', 'plus'],
    // "I would like to book …": verbs a caller hardly ever leaves without their object.
    dangling: ['to', "i'm", "we're", "it's", "that's", "there's", "i'd", "i'll", "we'll", 'to book', 'to make', 'to schedule', 'to reserve', 'to arrange', 'to buy', 'to order'],
  },
  weak: {
    possessive: ['his'],
    conjunction: ['so', 'that', 'while', 'since', 'as', 'when', 'where', 'which', 'who', 'then'],
    preposition: ['by', 'like', 'on', 'in'],
    dangling: ['to get', 'to know', 'to ask', 'to talk', 'to speak', 'to send', 'to add', 'to report', 'i', 'we', 'is', 'are', 'was', 'were', 'am', 'be', 'been', 'want', 'need', 'would', 'could', 'should', 'can', 'will', 'just', 'maybe', 'also', 'really', 'very', 'some', 'any', 'this', 'these', 'those', 'another', 'other'],
  },
  hesitations: ['um', 'uh', 'er', 'erm', 'uhm', 'hm', 'ah', 'eh', 'you know', 'i mean', 'let me think', 'let me see', 'hold on'],
  completePhrases: ['think so', 'hope so', 'guess so', 'believe so', 'suppose so', 'said so', 'do so', 'and so on', 'or so', 'even so', 'is that so', 'as well', 'so far', 'in and out', 'and all that', 'or something', 'or not', 'and stuff', 'at all', 'after all', 'of course', 'for sure', 'for now', 'with it', 'with me', 'with you', 'for me', 'for you', 'for it', 'for that', 'of it', 'of that', 'of them', 'about it', 'about that', 'about them', 'than that', 'than me', 'that one', 'this one', 'like that', 'like this', 'like it', 'by then', 'since then', 'until then', 'back then', 'just then', 'and then some', 'his own', 'it is', 'that is', 'there is', 'here it is', 'that was', 'it was', 'i am', 'i was', 'i can', 'i will', 'i would', 'i could', 'i should', 'we can', 'we will', 'you can', 'yes i can', 'yes we can', 'i do', 'i need', 'i want', 'if you want', 'if you like', 'if you can', 'as you like', 'as i said', 'as well as'],
  questionWords: ['what', 'where', 'when', 'who', 'whom', 'whose', 'why', 'how', 'which', "what's", "where's", "who's", "how's", "when's", "why's"],
  questionOpeners: ['can', 'could', 'would', 'will', 'shall', 'should', 'may', 'might', 'must', 'do', 'does', 'did', 'is', 'are', 'was', 'were', 'have', 'has', 'had', "isn't", "aren't", "don't", "doesn't", "didn't", "can't", "won't", "wouldn't", "couldn't", "shouldn't"],
  backchannels: ['mhm', 'mm-hmm', 'mm hmm', 'mm', 'hmm', 'uh-huh', 'uh huh', 'yeah', 'yea', 'yep', 'yup', 'yes', 'okay', 'ok', 'k', 'kay', 'right', 'sure', 'alright', 'all right', 'i see', 'got it', 'gotcha', 'oh', 'ah', 'aha', 'oh okay', 'oh right', 'oh i see', 'cool', 'great', 'good', 'fine', 'nice', 'exactly', 'true', 'indeed', 'sure thing', 'makes sense', 'that makes sense', 'i understand', 'understood', 'go on', 'go ahead', 'wow', 'um', 'uh', 'er', 'erm', 'uhm'],
};

const DE: LanguageWords = {
  strong: {
    article: ['der', 'den', 'dem', 'des', 'eine', 'einen', 'einem', 'einer', 'eines', 'keine', 'keinen', 'keinem', 'keiner', 'keines'],
    possessive: ['meine', 'meinen', 'meinem', 'meiner', 'meines', 'deine', 'deinen', 'deinem', 'deiner', 'deines', 'seine', 'seinen', 'seinem', 'seiner', 'seines', 'ihre', 'ihren', 'ihrem', 'ihrer', 'ihres', 'unsere', 'unseren', 'unserem', 'unserer', 'unseres', 'eure', 'euren', 'eurem', 'eurer', 'eures', 'unser', 'euer', 'mein', 'dein'],
    preposition: ['für', 'von', 'vom', 'in', 'im', 'ins', 'beim', 'zum', 'zur', 'gegen', 'ohne', 'zwischen', 'wegen', 'trotz', 'seit', 'außer', 'unter', 'hinter', 'neben', 'mit dem', 'mit der', 'bis zum', 'bis zur', 'am', 'ans', 'aufs', 'über'],
    conjunction: ['und', 'oder', 'aber', 'denn', 'weil', 'dass', 'ob', 'wenn', 'sondern', 'sowie', 'obwohl', 'bevor', 'nachdem', 'sodass', 'falls', 'sobald', 'sowohl', 'entweder', 'weder', 'als ob', 'damit ich', 'damit wir'],
    dangling: ['ich hätte gern', 'ich hätte gerne', 'ich würde gern', 'ich würde gerne'],
  },
  weak: {
    article: ['die', 'das', 'ein', 'kein'],
    possessive: ['sein', 'ihr'],
    conjunction: ['als', 'also', 'bis', 'während', 'wie', 'wo', 'was'],
    dangling: ['ich möchte', 'ich brauche', 'ich suche', 'ich will', 'ich', 'wir', 'ist', 'sind', 'war', 'bin', 'habe', 'hätte', 'würde', 'möchte', 'brauche', 'sehr', 'noch', 'auch', 'mal', 'so'],
  },
  hesitations: ['äh', 'ähm', 'öh', 'öhm', 'eh', 'em', 'hm', 'tja', 'naja', 'na ja', 'sozusagen', 'quasi', 'moment', 'moment mal', 'warte mal', 'lass mich überlegen', 'wie soll ich sagen'],
  completePhrases: ['ich weiß', 'weiß ich nicht', 'das war es', 'das wars', 'das war’s', 'und so weiter', 'oder so', 'und so', 'ich denke schon', 'glaube schon', 'so ist es', 'genau so', 'das ist es', 'na also', 'ich bin dabei', 'bin dabei', 'mit mir', 'mit dir', 'mit ihnen', 'mit ihm', 'mit ihr', 'für mich', 'für sie', 'für dich', 'für uns', 'für ihn', 'von mir', 'von ihnen', 'von ihm', 'von ihr', 'ohne mich', 'gegen mich', 'zu mir', 'zu ihnen', 'zu hause', 'im moment', 'in ordnung', 'ist gut', 'schon gut', 'ihr seid'],
  questionWords: ['was', 'wo', 'wann', 'wer', 'wen', 'wem', 'wessen', 'warum', 'wieso', 'weshalb', 'wie', 'welche', 'welcher', 'welches', 'welchen', 'welchem', 'woher', 'wohin', 'womit', 'wofür', 'worüber', 'wozu', 'wovon'],
  questionOpeners: ['können', 'kann', 'kannst', 'könnten', 'könnte', 'würden', 'würde', 'haben', 'hast', 'hat', 'habt', 'ist', 'sind', 'bist', 'gibt', 'geht', 'darf', 'dürfen', 'soll', 'sollen', 'muss', 'müssen', 'wollen', 'willst', 'wissen', 'weißt', 'kommt', 'kommen', 'stimmt'],
  modalOpeners: ['können', 'kann', 'kannst', 'könnten', 'könnte', 'könntest', 'würden', 'würde', 'würdest', 'darf', 'dürfen', 'soll', 'sollen', 'sollte', 'sollten', 'muss', 'müssen', 'will', 'willst', 'wollen', 'möchten', 'möchtest'],
  infinitive: { endings: ['en', 'ern', 'eln'], words: ['sein', 'tun'] },
  backchannels: ['ja', 'jap', 'jo', 'jup', 'jaja', 'ja ja', 'jawohl', 'genau', 'okay', 'ok', 'stimmt', 'aha', 'achso', 'ach so', 'ah', 'ach', 'oh', 'mhm', 'hm', 'hmm', 'mm', 'richtig', 'klar', 'na klar', 'alles klar', 'gut', 'sehr gut', 'super', 'prima', 'toll', 'schön', 'verstehe', 'ich verstehe', 'verstanden', 'in ordnung', 'passt', 'sicher', 'natürlich', 'echt', 'wirklich', 'interessant', 'ja genau', 'ja klar', 'ja gut', 'ah ja', 'ach ja', 'ah okay', 'na gut', 'jep', 'äh', 'ähm', 'öh', 'öhm'],
};

export const LANGUAGES: Readonly<Record<string, LanguageWords>> = { en: EN, de: DE };

/** The word lists for an ISO code (`en`, `en-US`, `de_DE`); undefined for a language without lists. */
export function languageWords(language: string): LanguageWords | undefined {
  return LANGUAGES[baseLanguage(language)];
}

export function baseLanguage(language: string): string {
  return language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/**
 * A transcript as a list of lower-case words: Unicode-normalised, curly apostrophes made
 * straight, punctuation dropped (apostrophes and hyphens inside a word are kept).
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '').replace(/^'+(?=[^\p{L}]|$)|'+$/gu, ''))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
}

/** Runs of one letter collapsed to one ("ummm" → "um", "mhmm" → "mhm", "ähhh" → "äh"). */
export function collapseRuns(word: string): string {
  return word.replace(/(\p{L})\1+/gu, '$1');
}
