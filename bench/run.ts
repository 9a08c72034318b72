/**
 * `npm run bench [name ...]`: runs the benchmarks under bench/ and prints one table each.
 * Without names, all of them. Each module exports `run(): Promise<Row[]>`, and `settings`: the
 * line saying that the service ran at its defaults and which it changed (settingsNote in lib.ts).
 * Arguments starting with `--` (e.g. `--quick`) are left to the suites, which read them from process.argv.
 */
import fs from 'node:fs';
import path from 'node:path';
import { printTable, root, type Row } from './lib.js';

const suites: { name: string; file: string; title: string }[] = [
  { name: 'foundation', file: 'foundation.ts', title: 'Foundation: auth + reference routes vs bare Fastify' },
  { name: 'calls-list', file: 'calls-list.ts', title: 'Call list on 1,000,000 calls' },
  { name: 'calls-concurrency', file: 'calls-concurrency.ts', title: '1,000 concurrent sandbox calls in one process' },
  { name: 'webhooks', file: 'webhooks.ts', title: 'Webhook deliveries' },
  { name: 'dialer', file: 'dialer.ts', title: 'Dialer throughput' },
  { name: 'twilio', file: 'twilio.ts', title: '200 concurrent Twilio calls in one process (Twilio double at real pace)' },
  { name: 'dashboard', file: 'dashboard.ts', title: 'Dashboard: the call list page of an account with 1,000,000 calls' },
  { name: 'vad', file: 'vad.ts', title: 'Silero VAD: cost per window and N calls at real pace in one process' },
  { name: 'retention', file: 'retention.ts', title: 'Retention: pruning the webhook delivery log under a writer' },
  { name: 'knowledge', file: 'knowledge.ts', title: 'Knowledge bases: retrieval quality (recall@5, MRR) and search latency with 10,000 chunks' },
  { name: 'voice', file: 'voice.ts', title: 'Voice core: platform latency per turn, barge-in reaction, N concurrent calls' },
  { name: 'turn-signals', file: 'turn-signals.ts', title: 'End-of-turn signals: Smart Turn off the event loop, text judge, backchannels, policy' },
  { name: 'turn-taking', file: 'turn-taking.ts', title: 'Turn-taking at default settings, through the Twilio double (issue 26)' },
  { name: 'home', file: 'home.ts', title: 'Home page: results of an account with 100,000 calls over 90 days (and another account\'s 20,000)' },
  { name: 'tests', file: 'tests.ts', title: 'Assistant tests: 100 text-mode scenarios of examples/tests on the offline stand-in' },
];

// Options (`--quick`) are the suites' own; the other arguments name suites.
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
for (const suite of suites) {
  if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
  const file = path.join(root, 'bench', suite.file);
  if (!fs.existsSync(file)) continue;
  const mod = (await import(file)) as { run(): Promise<Row[]>; settings?: string };
  const started = Date.now();
  const rows = await mod.run();
  printTable(`${suite.title} (${Math.round((Date.now() - started) / 1000)} s)`, rows, mod.settings);
}
process.exit(0);
