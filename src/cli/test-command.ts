/**
 * `switchboard test <file-or-folder>... [--assistant ID] [--junit FILE] [--json]`: runs
 * scenario files against an assistant in this process, on the configured LLM (the offline
 * stand-in without LLM_BASE_URL). The assistant is the stored one (`--assistant`, read from the
 * local database) or the suite's own `assistant.yaml` beside the scenarios; with `--url --token`
 * they run on a running service through its API instead (test-remote.ts). Exit code: 0 all
 * passed, 1 any failed, 2 unusable input (a bad file, no assistant, a scenario naming a tool
 * the assistant lacks).
 */
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { ASSISTANT_FILES, parseAssistantFile } from '../assistant-tests/assistant-file.js';
import { loadTestAssistant, type TestAssistant } from '../assistant-tests/assistant.js';
import { junitXml } from '../assistant-tests/junit.js';
import { runScenarios, type RunnerDeps, type SuiteResult } from '../assistant-tests/runner.js';
import { validateAgainstAssistant } from '../assistant-tests/assistant-checks.js';
import { formatErrors, parseScenarioDocument, type Scenario } from '../assistant-tests/scenario.js';
import { END_CALL_TOOL } from '../calls/session-types.js';
import { assistants } from '../db/schema.js';
import { credentialSealer } from '../lib/secrets.js';
import { createLlmProvider } from '../providers/llm/index.js';
import type { LlmProvider } from '../providers/llm/types.js';
import { ProviderRegistry } from '../providers/registry.js';
import { speechProviders } from '../providers/speech.js';
import { LocalTts } from '../providers/tts/local/index.js';
import { CarrierRegistry } from '../telephony/registry.js';
import { SandboxCarrier } from '../telephony/sandbox/carrier.js';
import { audioRefusal, type AudioDeps } from '../assistant-tests/audio.js';
import { knowledgeOfRuns, processAudio } from '../assistant-tests/run-queue.js';
import { CliError, withDatabase, type Session } from './session.js';
import { runRemotely } from './test-remote.js';

export interface TestCommandOptions {
  assistant?: number;
  junit?: string;
  concurrency?: number;
  url?: string;
  token?: string;
}

const SCENARIO_FILE = /\.(ya?ml|json)$/i;

/** The scenario files a path names: the file itself, or every scenario file under a folder (sorted). */
function scenarioFiles(target: string): string[] {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) throw new CliError(`${target}: no such file or folder`, 2);
  if (stat.isFile()) return [target];
  return fs
    .readdirSync(target, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && SCENARIO_FILE.test(e.name) && !ASSISTANT_FILES.includes(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Every scenario of the files, or exit 2 with every problem as `file:line: reason`. */
function readScenarios(targets: string[], io: Session['io']): Scenario[] {
  const files = [...new Set(targets.flatMap(scenarioFiles))];
  if (files.length === 0) throw new CliError(`no scenario files (*.yaml, *.yml, *.json) in ${targets.join(', ')}`, 2);
  const scenarios: Scenario[] = [];
  let bad = false;
  for (const file of files) {
    const shown = path.relative(process.cwd(), file) || file;
    const parsed = parseScenarioDocument(fs.readFileSync(file, 'utf8'), shown);
    if ('errors' in parsed) {
      bad = true;
      io.stderr(formatErrors(shown, parsed.errors) + '\n');
    } else scenarios.push(...parsed.scenarios);
  }
  if (bad) throw new CliError('the scenario files above cannot be run', 2);
  return scenarios;
}

/** The suite's own assistant: the one assistant file in the folders given (or the files' folders). */
function suiteAssistant(targets: string[]): TestAssistant {
  const dirs = [...new Set(targets.map((t) => (fs.statSync(t).isDirectory() ? t : path.dirname(t))))];
  const found = [...new Set(dirs.flatMap((d) => ASSISTANT_FILES.map((f) => path.join(d, f)).filter((f) => fs.existsSync(f))))];
  if (found.length === 0) throw new CliError(`no assistant to test: pass --assistant ID, or put an assistant.yaml beside the scenarios (${dirs.join(', ')})`, 2);
  if (found.length > 1) throw new CliError(`more than one assistant file (${found.join(', ')}): run them apart, or pass --assistant ID`, 2);
  const parsed = parseAssistantFile(fs.readFileSync(found[0]!, 'utf8'));
  if ('errors' in parsed) throw new CliError(formatErrors(found[0]!, parsed.errors), 2);
  return parsed.assistant;
}

function report(s: Session, result: SuiteResult): void {
  const { io } = s;
  for (const sc of result.scenarios) {
    const mark = sc.status === 'passed' ? 'PASS' : sc.status === 'failed' ? 'FAIL' : 'ERROR';
    io.stdout(`${mark}  ${sc.name}  (${sc.file}:${sc.line})  ${sc.summary}\n`);
    if (sc.status === 'passed') continue;
    const run = sc.runs.find((r) => r.status !== 'passed');
    for (const a of run?.assertions ?? []) {
      if (a.outcome !== 'passed') io.stdout(`      ${a.outcome === 'failed' ? 'x' : '-'} ${sc.file}:${a.line} ${a.kind}: ${a.message}\n`);
    }
  }
  const skipped = result.scenarios.flatMap((sc) => sc.runs.slice(0, 1).flatMap((r) => r.assertions.filter((a) => a.outcome === 'skipped').map((a) => `${sc.file}:${a.line}`)));
  if (skipped.length) io.stdout(`skipped (not passed): ${skipped.length} judge assertion(s) — no LLM is configured (${skipped.join(', ')})\n`);
  io.stdout(`${result.passed} passed, ${result.failed} failed, ${result.errored} could not run — ${result.total} scenario(s) in ${(result.durationMs / 1000).toFixed(1)} s\n`);
}

export async function testCommand(s: Session, targets: string[], o: TestCommandOptions): Promise<number> {
  const scenarios = readScenarios(targets, s.io);
  if (o.url || o.token) {
    if (!o.url || !o.token || o.assistant === undefined) throw new CliError('--url needs --token and --assistant ID (the assistant on that service)', 2);
    const sources = [...new Set(targets.flatMap(scenarioFiles))].map((f) => fs.readFileSync(f, 'utf8'));
    return finish(s, o, await runRemotely(o.url, o.token, o.assistant, sources, scenarios));
  }
  const llm = createLlmProvider(s.config, END_CALL_TOOL);
  const sealer = credentialSealer(s.config);
  const speech = scenarios.some((sc) => sc.mode === 'audio') ? audioOfCli(s, llm) : null;
  const run = async (assistant: TestAssistant, knowledge?: RunnerDeps['knowledge']) => {
    const shape = { tools: assistant.tools, builtinTools: assistant.builtin_tools, postCallSchema: assistant.post_call_schema, postCallEvaluation: assistant.post_call_evaluation, audioRefusal: speech && audioRefusal(speech.audio) };
    const problems = scenarios.flatMap((sc) => validateAgainstAssistant(sc, shape).map((e) => `${sc.file}:${e.line}: ${e.message}`));
    if (problems.length) {
      s.io.stderr(problems.join('\n') + '\n');
      throw new CliError(`the scenarios above do not fit assistant "${assistant.name}"`, 2);
    }
    return runScenarios(scenarios, assistant, { llm, log: s.log, unseal: (sealed) => sealer.unseal(sealed), audio: speech?.audio, knowledge }, { concurrency: o.concurrency ?? 4 });
  };
  try {
    return await runLocally(s, o, targets, run);
  } finally {
    speech?.close();
  }
}

/** Audio mode on the command line: the configured speech providers (with the local voice) and a sandbox line of its own. */
function audioOfCli(s: Session, llm: LlmProvider): { audio: AudioDeps | undefined; close(): void } {
  const local = new LocalTts({ size: 1 });
  const providers = new ProviderRegistry(llm, speechProviders(s.config, {}, local));
  return { audio: processAudio({ carriers: new CarrierRegistry([new SandboxCarrier({ timeScale: 1 })]), providers, log: s.log }), close: () => local.close() };
}

async function runLocally(s: Session, o: TestCommandOptions, targets: string[], run: (assistant: TestAssistant, knowledge?: RunnerDeps['knowledge']) => Promise<SuiteResult>): Promise<number> {
  let result: SuiteResult;
  if (o.assistant !== undefined) {
    const id = o.assistant;
    result = await withDatabase(s, async ({ database }) => {
      const [owner] = await database.db.select({ userId: assistants.userId }).from(assistants).where(eq(assistants.id, id));
      const assistant = owner ? await loadTestAssistant(database.db, owner.userId, id) : null;
      if (!assistant) throw new CliError(`assistant ${id} not found`, 2);
      // The assistant's own knowledge base, read from this database (a suite's assistant.yaml has none).
      return run(assistant, knowledgeOfRuns({ database, config: s.config }, owner!.userId));
    });
  } else {
    result = await run(suiteAssistant(targets));
  }
  return finish(s, o, result);
}

function finish(s: Session, o: TestCommandOptions, result: SuiteResult): number {
  if (o.junit) fs.writeFileSync(o.junit, junitXml(result));
  if (s.out.json) s.io.stdout(JSON.stringify(result, null, 2) + '\n');
  else report(s, result);
  return result.status === 'passed' ? 0 : 1;
}
