/**
 * `npm run bench turn-taking` (issue 26): what a caller gets from turn-taking at DEFAULT
 * assistant settings, end to end through the service on the Twilio double.
 *
 * 1. Conversations: the corpus (bench/turn-taking/corpus.ts: ≥ 60 English and German caller
 *    utterances made with the local voice — complete sentences, questions, sentences paused
 *    0.8–1.5 s inside an incomplete clause, hard interruptions and backchannels over a long
 *    reply, keys pressed mid-sentence) is spoken by the person on the Twilio double at real pace
 *    to assistants created through the API with no turn-taking setting touched; the vendors are
 *    the protocol doubles at zero added latency (Deepgram live, chat completions, OpenAI speech).
 *    All in this process, a few calls at once (bench/turn-taking/harness.ts). Figures (a)–(f)
 *    come from what the person heard on the Twilio socket, in call time, and from the call
 *    records (bench/turn-taking/figures.ts).
 * 2. Load (g): N concurrent such calls with the Twilio and vendor doubles in a process of their
 *    own; the event-loop delay of the service's process (bench/turn-taking/load.ts).
 *
 *   npm run bench turn-taking
 *   npx tsx bench/turn-taking.ts [--quick]       # --quick or BENCH_TURN_QUICK=1: a short run
 *
 * Settings: BENCH_TURN_CONCURRENCY (calls at once in part 1, default 4), BENCH_TURN_N (part 2's
 * calls, default 200; quick 20), BENCH_TURN_LOAD_SECONDS (its measured window, default 30;
 * quick 10), BENCH_TURN_SKIP_LOAD=1 (part 1 only).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fullProcess } from '../src/compose.js';
import { startService } from '../src/service.js';
import { startVoiceDoubles } from '../test/support/doubles/voice.js';
import { startRoutedTwilioDouble, twilioEnv } from '../test/support/twilio-service.js';
import { benchDatabase, benchLogger, printTable, root, settingsNote, type Row } from './lib.js';
import { loadCorpus, script, type Utterance } from './turn-taking/corpus.js';
import { breakdown, headline, loadRow, type LoadFigures } from './turn-taking/figures.js';
import { ADMIN_TOKEN, benchConfig, converse, httpApi, teachDoubles } from './turn-taking/harness.js';

const self = fileURLToPath(import.meta.url);
const QUICK = process.argv.includes('--quick') || process.env.BENCH_TURN_QUICK === '1';
const CONCURRENCY = Number(process.env.BENCH_TURN_CONCURRENCY ?? 4);

/** The quick run: one utterance of each kind per language. */
export function quickScript(all: Utterance[] = script()): Utterance[] {
  const seen = new Set<string>();
  return all.filter((x) => {
    const key = `${x.lang}:${x.category}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The machine's 1-minute load average (other work shares its cores). */
function loadAverage(): string {
  const [one] = os.loadavg();
  return `load avg ${one!.toFixed(1)} on ${os.cpus().length} cores (shared)`;
}

/** What the conversations and the load change of the defaults (bench/run.ts prints it under the table). */
export const settings = settingsNote({
  RATE_LIMIT_PER_MINUTE: '0 (one admin token sets up every line)',
  'vendors': 'Twilio, Deepgram, chat and speech protocol doubles at 0 ms',
});

async function conversations(utterances: Utterance[]): Promise<{ rows: Row[]; detail: Row[] }> {
  const corpus = await loadCorpus(utterances);
  const voice = await startVoiceDoubles();
  await teachDoubles(voice, corpus);
  let local = '';
  const double = await startRoutedTwilioDouble(() => local);
  const database = await benchDatabase(true, 'sb_bench_turns');
  const config = benchConfig({ ...voice.envFor({ stt: 'deepgram' }), ...twilioEnv(double) });
  const logs = benchLogger(config.LOG_LEVEL);
  const service = await startService({ config, databaseUrl: database.url, listen: true, parts: fullProcess, log: logs.log });
  local = service.url!;
  const loadBefore = loadAverage();
  try {
    const { observations, llm, recognition } = await converse({ api: httpApi(service.url!, ADMIN_TOKEN), double, voice }, corpus, utterances, {
      concurrency: CONCURRENCY,
      progress: (done, of) => process.stderr.write(`bench turn-taking: call ${done}/${of} done\n`),
    });
    const under = { conversations: `defaults; ${CONCURRENCY} calls at once; doubles in this process at 0 ms; ${loadBefore} → ${loadAverage()}` };
    const kinds = new Map<string, number>();
    for (const x of utterances) kinds.set(`${x.lang} ${x.category}`, (kinds.get(`${x.lang} ${x.category}`) ?? 0) + 1);
    const corpusRow: Row = {
      metric: 'corpus',
      measured: `${utterances.length} utterances + ${new Set(utterances.flatMap((x) => (x.trigger ? [x.trigger] : []))).size} trigger questions: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`,
      target: '≥ 60, en + de',
      'pass/fail': utterances.length >= 60 ? 'pass' : 'n/a (quick)',
      'measured under': corpus.source,
    };
    const doublesRow: Row = {
      metric: "the STT double's recognition (clip matching) on this process's event loop",
      measured: `${Math.round(recognition.ms)} ms in ${recognition.calls} matches (${(recognition.ms / Math.max(1, llm.turns)).toFixed(1)} ms per turn, longest ${recognition.maxMs.toFixed(1)} ms)`,
      target: '',
      'pass/fail': '',
      'measured under': 'time a turn may have waited on the double, not on the service',
    };
    return { rows: headline(observations, llm, under), detail: [...breakdown(observations, { conversations: 'as above' }), corpusRow, doublesRow] };
  } finally {
    await service.close();
    logs.close();
    await double.close();
    await voice.close();
    await database.cleanup();
  }
}

/** Part 2 in a child process (bench/turn-taking/load.ts), so its figures are that workload's alone. */
function load(): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'turn-taking', 'load.ts'), ...(QUICK ? ['--quick'] : [])], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`turn-taking load failed (${code}):\n${out}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as LoadFigures);
    });
  });
}

export async function run(): Promise<Row[]> {
  const utterances = QUICK ? quickScript() : script();
  const { rows, detail } = await conversations(utterances);
  if (process.env.BENCH_TURN_SKIP_LOAD !== '1') {
    process.stderr.write('bench turn-taking: (g) concurrent calls\n');
    rows.push(loadRow(await load()));
  }
  return [...rows, ...detail];
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === self) {
  const started = Date.now();
  const rows = await run();
  printTable(`Turn-taking at default settings, through the Twilio double (${Math.round((Date.now() - started) / 1000)} s)`, rows, settings);
  process.exit(0);
}
