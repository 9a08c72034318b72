/**
 * The scripted caller corpus of `npm run bench turn-taking` (issue 26): English and German
 * utterances of six kinds — complete sentences, questions, sentences with a 0.8–1.5 s pause
 * inside an incomplete clause, hard interruptions and backchannels spoken while the assistant
 * replies, and sentences with a key pressed in the middle.
 *
 * The audio is made with the project's local voice (eSpeak NG, src/providers/tts/local) at
 * 8 kHz, each piece trimmed to its sound so "the caller's last sound" is known to the sample,
 * and cached under `.cache/turn-taking/` (gitignored; keyed by the script and the voice), so
 * later runs skip the synthesis. Nothing is committed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bytesToInt16, int16ToBytes, rms } from '../../src/audio/pcm.js';
import { LocalTts } from '../../src/providers/tts/local/index.js';
import { root } from '../lib.js';

export const RATE = 8000;

export type Lang = 'en' | 'de';
export type Category = 'complete' | 'question' | 'paused' | 'interruption' | 'backchannel' | 'dtmf';

export interface Utterance {
  id: string;
  lang: Lang;
  category: Category;
  /** The whole script text (what the transcript must hold for it). */
  text: string;
  /** Spoken pieces in order: one, or two around the pause (`paused`) or the key (`dtmf`). */
  parts: string[];
  /** `paused`: the silence between the two pieces, ms. */
  pauseMs?: number;
  /** `dtmf`: the key pressed between the two pieces. */
  key?: string;
  /** `interruption`/`backchannel`: the question that makes the assistant talk long first. */
  trigger?: string;
}

/** Audio of one piece: 8 kHz PCM16, trimmed to its sound (20 ms kept either side). */
export interface Piece {
  text: string;
  samples: Int16Array;
}

export interface Corpus {
  utterances: Utterance[];
  /** Audio per piece text and language: `${lang}:${text}`. */
  audio: Map<string, Int16Array>;
  /** How the audio was obtained (synthesised now, or from the cache). */
  source: string;
}

const u = (lang: Lang, category: Category, n: number, text: string, extra: Partial<Utterance> = {}): Utterance => ({
  id: `${lang}-${category}-${String(n).padStart(2, '0')}`,
  lang,
  category,
  text,
  parts: [text],
  ...extra,
});

const paused = (lang: Lang, n: number, first: string, rest: string, pauseMs: number) =>
  u(lang, 'paused', n, `${first} ${rest}`, { parts: [first, rest], pauseMs });

const keyed = (lang: Lang, n: number, first: string, key: string, rest: string) => u(lang, 'dtmf', n, `${first} ${rest}`, { parts: [first, rest], key });

/** The questions that make the assistant reply at length (one long reply each, see LONG_REPLIES). */
export const TRIGGERS: Record<Lang, string[]> = {
  en: ['Can you tell me everything about your opening hours?', 'What are all the options for delivery?', 'How does the cancellation policy work?'],
  de: ['Können Sie mir alles über Ihre Öffnungszeiten sagen?', 'Welche Möglichkeiten gibt es für die Lieferung?'],
};

/** The assistant's long replies to the triggers (the LLM double's script), several sentences each. */
export const LONG_REPLIES: Record<string, string> = {
  [TRIGGERS.en[0]]:
    'We are open from eight in the morning until six in the evening on weekdays. On Saturdays we open at nine and close at two. On Sundays and public holidays we stay closed, but you can always leave us a message.',
  [TRIGGERS.en[1]]:
    'You can choose standard delivery, which takes three to five working days. Express delivery arrives the next working day if you order before noon. You can also pick your order up at one of our stores free of charge.',
  [TRIGGERS.en[2]]:
    'You can cancel free of charge up to twenty four hours before your appointment. After that we charge half of the price. If you do not come at all, we charge the full price, unless you were ill.',
  [TRIGGERS.de[0]]:
    'Wir haben werktags von acht Uhr morgens bis sechs Uhr abends geöffnet. Samstags öffnen wir um neun und schließen um zwei. Sonntags und an Feiertagen bleibt das Geschäft geschlossen.',
  [TRIGGERS.de[1]]:
    'Sie können die Standardlieferung wählen, sie dauert drei bis fünf Werktage. Die Expresslieferung kommt am nächsten Werktag, wenn Sie vor zwölf Uhr bestellen. Sie können Ihre Bestellung auch kostenlos im Laden abholen.',
};

/** The assistant's answer to everything else (short: one sentence). */
export const SHORT_REPLY = 'Alright, I have noted that down for you.';

export function script(): Utterance[] {
  const list: Utterance[] = [
    u('en', 'complete', 1, 'I would like to book an appointment for Tuesday.'),
    u('en', 'complete', 2, 'My name is Peter Miller.'),
    u('en', 'complete', 3, 'I need to change my delivery address.'),
    u('en', 'complete', 4, 'The package arrived damaged yesterday.'),
    u('en', 'complete', 5, 'Please call me back tomorrow morning.'),
    u('en', 'complete', 6, 'That sounds good to me.'),
    u('en', 'complete', 7, 'I have been a customer for five years.'),
    u('en', 'complete', 8, 'My order number is four five six.'),
    u('en', 'complete', 9, 'I would prefer the afternoon.'),
    u('en', 'complete', 10, 'Thank you, that is all I needed.'),
    u('de', 'complete', 1, 'Ich möchte einen Termin für Dienstag vereinbaren.'),
    u('de', 'complete', 2, 'Mein Name ist Anna Schmidt.'),
    u('de', 'complete', 3, 'Das Paket ist gestern beschädigt angekommen.'),
    u('de', 'complete', 4, 'Bitte rufen Sie mich morgen früh zurück.'),
    u('de', 'complete', 5, 'Der Nachmittag passt mir besser.'),
    u('de', 'complete', 6, 'Vielen Dank, das war alles.'),
    u('en', 'question', 1, 'Do you have any free slots on Friday?'),
    u('en', 'question', 2, 'How much does the basic plan cost?'),
    u('en', 'question', 3, 'Can I pay by credit card?'),
    u('en', 'question', 4, 'Where is your nearest office?'),
    u('en', 'question', 5, 'Is parking available at the clinic?'),
    u('en', 'question', 6, 'When will my order arrive?'),
    u('de', 'question', 1, 'Haben Sie am Freitag noch einen Termin frei?'),
    u('de', 'question', 2, 'Was kostet der Basistarif?'),
    u('de', 'question', 3, 'Kann ich mit Karte bezahlen?'),
    u('de', 'question', 4, 'Wo ist Ihre nächste Filiale?'),
    u('de', 'question', 5, 'Wann kommt meine Bestellung an?'),
    paused('en', 1, 'I would like to book', 'an appointment for Tuesday.', 1200),
    paused('en', 2, 'My daughter needs a check up and', 'a vaccination next week.', 1000),
    paused('en', 3, 'Could you send the invoice to', 'my office address please?', 1500),
    paused('en', 4, 'I was thinking about', 'upgrading my contract.', 800),
    paused('en', 5, 'The best time for me would be um', 'Thursday at four.', 1300),
    paused('en', 6, 'I ordered the blue one but', 'you sent me the red one.', 900),
    paused('de', 1, 'Ich würde gerne einen Termin für', 'nächsten Montag buchen.', 1200),
    paused('de', 2, 'Meine Adresse hat sich geändert und', 'ich wohne jetzt in Berlin.', 1000),
    paused('de', 3, 'Können Sie mir die Rechnung an', 'meine neue Adresse schicken?', 1500),
    paused('de', 4, 'Am besten passt es mir äh', 'am Donnerstag um vier.', 800),
    keyed('en', 1, 'My customer number is', '5', 'on the letter you sent.'),
    keyed('en', 2, 'I want to talk to', '1', 'someone in sales.'),
    keyed('en', 3, 'Please put me through to', '0', 'the front desk.'),
    keyed('de', 1, 'Meine Kundennummer steht', '7', 'auf dem Brief.'),
    keyed('de', 2, 'Ich möchte mit', '2', 'dem Vertrieb sprechen.'),
  ];
  const interruptions: Record<Lang, string[]> = {
    en: ['Stop.', 'Wait.', "No, that's wrong.", 'Stop, wait a second.', 'Hold on, that is not what I asked.'],
    de: ['Stopp.', 'Warten Sie.', 'Nein, das ist falsch.', 'Moment, das stimmt nicht.'],
  };
  const backchannels: Record<Lang, string[]> = {
    en: ['mhm', 'uh-huh', 'yeah', 'okay', 'right', 'sure'],
    de: ['ja', 'genau', 'okay', 'mhm'],
  };
  for (const lang of ['en', 'de'] as const) {
    interruptions[lang].forEach((text, i) => list.push(u(lang, 'interruption', i + 1, text, { trigger: TRIGGERS[lang][i % TRIGGERS[lang].length] })));
    backchannels[lang].forEach((text, i) => list.push(u(lang, 'backchannel', i + 1, text, { trigger: TRIGGERS[lang][(i + 1) % TRIGGERS[lang].length] })));
  }
  return list;
}

/** Every piece of audio the corpus needs, with its language. */
function pieces(utterances: Utterance[]): Array<{ lang: Lang; text: string }> {
  const seen = new Map<string, { lang: Lang; text: string }>();
  for (const x of utterances) {
    for (const text of [...x.parts, ...(x.trigger ? [x.trigger] : [])]) seen.set(`${x.lang}:${text}`, { lang: x.lang, text });
  }
  return [...seen.values()];
}

/** The caller speaks with voices no seeded assistant uses (scripts/fixtures.ts does the same). */
const CALLER_VOICE: Record<Lang, string> = { en: 'en-us+m3', de: 'de+m3' };
const LEVEL = 32768 * 10 ** (-45 / 20);
const FRAME = RATE / 100;

/** Sample offsets of the first and after the last 10 ms frame above −45 dBFS (−1, −1: none). */
function loudSpan(samples: Int16Array): { first: number; last: number } {
  let first = -1;
  let last = -1;
  for (let i = 0; i + FRAME <= samples.length; i += FRAME) {
    if (rms(samples.subarray(i, i + FRAME)) >= LEVEL) {
      if (first < 0) first = i;
      last = i + FRAME;
    }
  }
  return { first, last };
}

/** The samples from 20 ms before the first to 20 ms after the last loud 10 ms frame. */
export function trimToSound(samples: Int16Array): Int16Array {
  const { first, last } = loudSpan(samples);
  if (first < 0) return samples;
  const pad = RATE / 50;
  return samples.slice(Math.max(0, first - pad), Math.min(samples.length, last + pad));
}

/** Offsets (ms) of the first and after the last loud 10 ms frame of a piece. */
export function soundSpan(samples: Int16Array): { firstMs: number; lastMs: number } {
  const { first, last } = loudSpan(samples);
  return { firstMs: (Math.max(0, first) / RATE) * 1000, lastMs: (Math.max(0, last) / RATE) * 1000 };
}

export const CACHE_DIR = path.join(root, '.cache', 'turn-taking');

/** The corpus with its audio: from the cache when it holds this script, else synthesised with eSpeak NG and cached. */
export async function loadCorpus(utterances: Utterance[] = script()): Promise<Corpus> {
  const wanted = pieces(utterances);
  const key = createHash('sha256').update(JSON.stringify({ wanted, CALLER_VOICE, RATE, v: 1 })).digest('hex').slice(0, 16);
  const file = path.join(CACHE_DIR, `corpus-${key}.json`);
  const audio = new Map<string, Int16Array>();
  if (fs.existsSync(file)) {
    const cached = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    for (const [k, b64] of Object.entries(cached)) audio.set(k, bytesToInt16(Buffer.from(b64, 'base64')));
    return { utterances, audio, source: `eSpeak NG (local voice), cached in ${path.relative(root, file)}` };
  }
  const tts = new LocalTts({ size: 1 });
  try {
    const status = await tts.status();
    if (!status.available) throw new Error(`the local voice (eSpeak NG) is not available: ${status.reason}`);
    for (const { lang, text } of wanted) {
      const { samples } = await tts.speak(text, { voice: CALLER_VOICE[lang], language: lang, sampleRate: RATE });
      audio.set(`${lang}:${text}`, trimToSound(samples));
    }
  } finally {
    tts.close();
  }
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const out: Record<string, string> = {};
  for (const [k, samples] of audio) out[k] = int16ToBytes(samples).toString('base64');
  fs.writeFileSync(file, JSON.stringify(out));
  return { utterances, audio, source: 'eSpeak NG (local voice), synthesised at bench start' };
}

export function pieceAudio(corpus: Corpus, lang: Lang, text: string): Int16Array {
  const samples = corpus.audio.get(`${lang}:${text}`);
  if (!samples) throw new Error(`no audio for ${lang}:${text}`);
  return samples;
}
