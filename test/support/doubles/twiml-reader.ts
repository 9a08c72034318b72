/**
 * Reads the TwiML verbs the Twilio double acts on, as Twilio reads them: `<Connect><Stream>` with
 * its parameters, `<Say>`, `<Pause>`, `<Hangup>`, `<Dial>` to a number (a cold transfer) and
 * `<Dial><Conference>` (a warm transfer's bridge) with the attributes that decide who starts and
 * who ends the room.
 */
import { XMLParser } from 'fast-xml-parser';

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true, trimValues: true, parseTagValue: false });

export interface StreamSpec {
  url: string;
  parameters: Record<string, string>;
}

export interface ConferenceSpec {
  room: string;
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
  /** undefined: Twilio's default hold music; '': silence. */
  waitUrl: string | undefined;
  beep: boolean;
}

export interface ReadTwiml {
  stream: StreamSpec | null;
  said: string[];
  /** `language` of each `<Say>`, in order (undefined: Twilio's default). */
  sayLanguages: (string | undefined)[];
  pauseSeconds: number;
  hangup: boolean;
  dialed: string[];
  conference: ConferenceSpec | null;
}

const flag = (value: unknown, byDefault: boolean) => (value === undefined ? byDefault : String(value) === 'true');

export function readTwiml(twiml: string): ReadTwiml {
  const doc = xml.parse(twiml) as any[];
  const response = doc.find((n) => 'Response' in n)?.Response ?? [];
  const out: ReadTwiml = { stream: null, said: [], sayLanguages: [], pauseSeconds: 0, hangup: false, dialed: [], conference: null };
  for (const verb of response) {
    if ('Connect' in verb) {
      const s = (verb.Connect as any[]).find((n) => 'Stream' in n);
      if (s) {
        const parameters: Record<string, string> = {};
        for (const p of s.Stream as any[]) {
          if ('Parameter' in p) parameters[p[':@'].name] = String(p[':@'].value);
        }
        out.stream = { url: s[':@'].url, parameters };
      }
    } else if ('Say' in verb) {
      out.said.push((verb.Say as any[]).map((t) => t['#text'] ?? '').join(''));
      out.sayLanguages.push(verb[':@']?.language);
    } else if ('Pause' in verb) {
      out.pauseSeconds += Number(verb[':@']?.length ?? 1);
    } else if ('Hangup' in verb) {
      out.hangup = true;
    } else if ('Dial' in verb) {
      // `<Dial>+49…</Dial>`, `<Dial><Number>+49…</Number></Dial>` or `<Dial><Conference>room</Conference></Dial>`.
      for (const n of verb.Dial as any[]) {
        if ('#text' in n) out.dialed.push(String(n['#text']).trim());
        else if ('Number' in n) out.dialed.push((n.Number as any[]).map((t) => String(t['#text'] ?? '')).join('').trim());
        else if ('Conference' in n) {
          const a = n[':@'] ?? {};
          out.conference = {
            room: (n.Conference as any[]).map((t) => String(t['#text'] ?? '')).join('').trim(),
            startConferenceOnEnter: flag(a.startConferenceOnEnter, true),
            endConferenceOnExit: flag(a.endConferenceOnExit, false),
            waitUrl: a.waitUrl,
            beep: a.beep === undefined ? true : String(a.beep) !== 'false',
          };
        }
      }
    }
  }
  return out;
}
