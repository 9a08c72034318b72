/**
 * The phone network and the vendors of `npm run bench turn-taking` part (g), in a process of their
 * own (their work is not the service's): the Twilio double, whose person on each call goes
 * through the corpus (rotated per call) for the call's length, and the vendor doubles at 0 ms.
 * Prints `{twilio: {url, accountSid, authToken}, env}` as one JSON line, then reads the service's
 * local URL from stdin; runs until stdin closes.
 *
 * Environment: CALLS (numbers scripted: +14155570000 …), ITEMS (items per call).
 */
import { TwilioDouble } from '../../test/support/doubles/twilio.js';
import { startVoiceDoubles } from '../../test/support/doubles/voice.js';
import { loadCorpus } from './corpus.js';
import { steps, teachDoubles } from './harness.js';

const CALLS = Number(process.env.CALLS ?? 200);
const ITEMS = Number(process.env.ITEMS ?? 8);
const PUBLIC = 'https://sb.example';

const corpus = await loadCorpus();
const voice = await startVoiceDoubles();
await teachDoubles(voice, corpus);
let target = '';
const double = await TwilioDouble.start({
  keepAudio: false,
  route: (url) => url.replace(PUBLIC.replace('https', 'wss'), target.replace('http', 'ws')).replace(PUBLIC, target),
});
// English calls: complete sentences, questions, paused sentences, keys, and interruptions and
// backchannels over long replies, each call starting elsewhere in the list.
const items = corpus.utterances.filter((x) => x.lang === 'en');
for (let i = 0; i < CALLS; i++) {
  const mine = Array.from({ length: ITEMS }, (_, k) => items[(i * 3 + k) % items.length]!);
  double.script(`+1415557${String(i).padStart(4, '0')}`, { ringMs: 200, steps: steps(corpus, { lang: 'en', items: mine }) });
}
process.stdout.write(`${JSON.stringify({ twilio: { url: double.url, accountSid: double.accountSid, authToken: double.authToken }, env: voice.envFor({ stt: 'deepgram' }) })}\n`);
process.stdin.on('data', (c) => {
  target = String(c).trim();
});
process.stdin.on('end', async () => {
  await double.close();
  await voice.close();
  process.exit(0);
});
