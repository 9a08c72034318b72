/**
 * The README as a new user meets it (issue 18): every ```sh block parses in plain `sh` (dash
 * here, the strictest common one), shell commands sit only in ```sh or ```bash blocks, and the
 * five-minute tour's blocks, run one after the other by `sh` against the real entry point on a
 * fresh embedded database, end with the call and the campaign's lead completed — its waits
 * poll for the state they need, so a slow machine takes longer instead of failing.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startMain, stopMain, type MainProcess } from './support/main-process.js';

const README = fs.readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');

interface Block {
  lang: string;
  body: string;
  /** The heading the block sits under. */
  section: string;
  line: number;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^(#{1,6}) (.*)/.exec(lines[i]!);
    if (heading) section = heading[2]!;
    const fence = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    out.push({ lang: fence[1]!, body: body.join('\n'), section, line: start + 1 });
  }
  return out;
}

const all = blocks(README);
/** Lines that are shell commands (not output, comments or config). */
const COMMAND = /^\s*(\$ )?(npm|npx|curl|export|sh|node|docker|sleep|psql|pg_dump|pg_restore|openssl|cd|git)\b/m;

describe('README shell blocks', () => {
  it('every ```sh block parses with plain sh', () => {
    const sh = all.filter((b) => b.lang === 'sh');
    expect(sh.length).toBeGreaterThan(2);
    for (const b of sh) {
      try {
        execFileSync('sh', ['-n'], { input: b.body, stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (err) {
        throw new Error(`README.md:${b.line} (${b.section}) is not plain sh: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
      }
    }
  });

  it('shell commands are fenced as sh or bash, never in an unmarked or other block', () => {
    const misfenced = all.filter((b) => b.lang !== 'sh' && b.lang !== 'bash' && COMMAND.test(b.body)).map((b) => `README.md:${b.line} \`\`\`${b.lang}`);
    expect(misfenced).toEqual([]);
  });

  it('opens with the two commands and names the Node version package.json requires', () => {
    const run = all.find((b) => b.section === 'Run it' && b.lang === 'sh');
    expect(run?.body.trim()).toBe('npm ci && npm start');
    const engines = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const version = /^>=(\d+\.\d+)$/.exec(engines)?.[1];
    expect(version).toBeDefined();
    expect(README).toContain(`Node.js ${version} or newer`);
  });

  it('the tour has no fixed sleeps: its waits poll for a state with a timeout', () => {
    const tour = all.filter((b) => b.section !== '' && isTour(b) && b.lang === 'sh').map((b) => b.body).join('\n');
    expect(tour).not.toMatch(/^\s*sleep \d+\s*(#.*)?$/m);
    expect(tour.match(/until .* \|\| \[ \$n -ge \d+ \]; do sleep 1; n=\$\(\(n\+1\)\); done/g)?.length).toBeGreaterThanOrEqual(2);
  });
});

/** The tour: the blocks under "A five-minute tour" and its subsections, up to the next top-level section. */
function isTour(b: Block): boolean {
  const start = README.indexOf('## A five-minute tour');
  const end = README.indexOf('\n## ', start + 1);
  const at = README.split('\n').slice(0, b.line - 1).join('\n').length;
  return at > start && at < end;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-tour-'));
fs.chmodSync(dataDir, 0o755);
let main: MainProcess | undefined;
afterAll(async () => {
  if (main) await stopMain(main.child);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(inject('pgPrefix') === 'sbt_')('the README tour, run by sh', () => {
  it('places the call and runs the campaign as written', async () => {
    main = await startMain({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const token = /Demo user token:\s+(\S+)/.exec(main.output())?.[1];
    expect(token).toMatch(/^sb_/);
    const host = main.url.replace('http://', '');
    const script = all
      .filter((b) => b.lang === 'sh' && isTour(b))
      .map((b) => b.body)
      .join('\n')
      .replace(/^export TOKEN=sb_….*$/m, `export TOKEN=${token}`)
      .replaceAll('localhost:8080', host);
    expect(script).toContain(`export TOKEN=${token}`);
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-e'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (c) => resolve({ code: c, stdout, stderr }));
      child.stdin.end(script);
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // What the tour promises, read back through the API.
    const get = async (route: string) => (await fetch(`${main!.url}${route}`, { headers: { authorization: `Bearer ${token}` } })).json();
    const call = await get('/api/user/calls/1');
    expect(call).toMatchObject({ id: 1, status: 'completed' });
    // The greeting with the call's variable (on a busy machine the simulated customer may talk
    // over the rest of it, so only its start is certain).
    expect(call.transcript).toContain('AI: Hi Sam');
    expect(stdout).toContain('"status":"completed"');
    const leads = (await get('/api/user/leads')) as { status: string }[];
    expect(leads.length).toBe(1);
    expect(leads[0]!.status).toBe('completed');
  }, 300_000);
});
