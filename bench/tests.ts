/**
 * `npm run bench tests`: 100 text-mode scenarios of the example suite (examples/tests, cycled,
 * each with repeat 1) on the offline LLM stand-in, in one process, at the runner's default
 * concurrency and above. Target (issue 30): all 100 within 60 s, every one passing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseAssistantFile } from '../src/assistant-tests/assistant-file.js';
import { runScenarios } from '../src/assistant-tests/runner.js';
import { parseScenarioDocument, type Scenario } from '../src/assistant-tests/scenario.js';
import { END_CALL_TOOL } from '../src/calls/session-types.js';
import { OfflineStandInLlm } from '../src/providers/llm/stand-in.js';
import { benchLogger, root, settingsNote, type Row } from './lib.js';

export const settings = settingsNote({ LLM_BASE_URL: '(unset: the offline stand-in)' });

const SCENARIOS = 100;
const TARGET_S = 60;

export async function run(): Promise<Row[]> {
  const dir = path.join(root, 'examples/tests');
  const assistantFile = parseAssistantFile(fs.readFileSync(path.join(dir, 'assistant.yaml'), 'utf8'));
  if ('errors' in assistantFile) throw new Error(JSON.stringify(assistantFile.errors));
  const examples: Scenario[] = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'assistant.yaml')
    .sort()
    .flatMap((f) => {
      const r = parseScenarioDocument(fs.readFileSync(path.join(dir, f), 'utf8'), f);
      if ('errors' in r) throw new Error(`${f}: ${JSON.stringify(r.errors)}`);
      return r.scenarios;
    });
  const scenarios = Array.from({ length: SCENARIOS }, (_, i) => ({ ...examples[i % examples.length]!, name: `${examples[i % examples.length]!.name} #${i + 1}`, repeat: 1 }));
  const llm = new OfflineStandInLlm(END_CALL_TOOL);
  const rows: Row[] = [];
  for (const concurrency of [4, 16]) {
    const logger = benchLogger(process.env.LOG_LEVEL ?? 'info');
    const started = performance.now();
    const result = await runScenarios(scenarios, assistantFile.assistant, { llm, log: logger.log }, { concurrency });
    const seconds = (performance.now() - started) / 1000;
    logger.close();
    const runs = result.scenarios.flatMap((s) => s.runs.map((r) => r.durationMs)).sort((a, b) => a - b);
    rows.push({
      concurrency,
      scenarios: result.total,
      passed: result.passed,
      'total s': seconds.toFixed(2),
      'scenarios/s': (result.total / seconds).toFixed(1),
      'run p50 ms': runs[Math.floor(runs.length / 2)] ?? 0,
      'run p95 ms': runs[Math.min(runs.length - 1, Math.ceil(runs.length * 0.95) - 1)] ?? 0,
      target: `${SCENARIOS} in < ${TARGET_S} s, all passed`,
      met: seconds < TARGET_S && result.passed === SCENARIOS ? 'yes' : 'no',
    });
  }
  return rows;
}
