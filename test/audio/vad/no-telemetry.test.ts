/**
 * Issue 27 item 5: the VAD runtime must not phone home. onnxruntime-node's official builds
 * carry Microsoft's 1DS telemetry (a device id and event store under ~/.cache/Microsoft,
 * /tmp/mat-debug-<pid>.log, uploads to mobile.events.data.microsoft.com); src/audio/onnx-runtime.ts
 * turns it off. Each case starts the VAD in a child process with a fresh HOME and an
 * environment without the CI variables (the runtime stays quiet on its own under CI=true,
 * which would hide a regression in CI), scores real speech, and then looks for the files.
 * Where strace is installed (CI installs it), the child also runs under strace and stays 12 s
 * after loading (without the switch the runtime creates its files at once and looks up its
 * collector ~10 s later): no socket to an internet address, no resolver configuration read (a
 * DNS lookup), no such file opened. Both children run at once, mostly asleep.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** What the runtime itself honours besides our switch: none may reach the child. */
const QUIETING = /^(CI|TF_BUILD|GITHUB_ACTIONS|GITLAB_CI|CIRCLECI|TRAVIS|JENKINS_URL|CODEBUILD_BUILD_ID|BUILDKITE|TEAMCITY_VERSION|APPVEYOR|BITBUCKET_BUILD_NUMBER|SYSTEM_TEAMFOUNDATIONCOLLECTIONURI|ORT_.*)$/;
const strace = spawnSync('strace', ['-V']).status === 0;
const LINGER_MS = 12_000;
const homes: string[] = [];

afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

/** The VAD, loaded the way the service loads it, scoring a real caller's question; prints its pid. */
function childScript(thread: 'worker' | 'main'): string {
  const src = (p: string) => JSON.stringify(pathToFileURL(path.join(ROOT, p)).href);
  return `
    const { SileroVadRunner } = await import(${src('src/audio/vad/silero.ts')});
    const { detectSpeech } = await import(${src('src/audio/vad/detector.ts')});
    const { fixtureAudio } = await import(${src('test/support/audio-fixtures.ts')});
    const runner = await SileroVadRunner.load({ thread: '${thread}' });
    const segments = await detectSpeech(runner.open(16000), fixtureAudio('book-appointment'), 16000);
    runner.close();
    console.log(JSON.stringify({ pid: process.pid, segments: segments.length }));
    await new Promise((r) => setTimeout(r, ${strace ? LINGER_MS : 0}));
  `;
}

interface ChildRun {
  home: string;
  result: { pid: number; segments: number };
  trace: string | null;
}

async function runChild(thread: 'worker' | 'main'): Promise<ChildRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-vad-home-'));
  homes.push(home);
  const env: NodeJS.ProcessEnv = { HOME: home };
  for (const [k, v] of Object.entries(process.env)) if (!QUIETING.test(k) && k !== 'HOME') env[k] = v;
  const trace = path.join(home, 'strace.txt');
  const script = path.join(home, 'vad-child.mts');
  fs.writeFileSync(script, childScript(thread));
  const node = [process.execPath, '--import', 'tsx', script];
  const cmd = strace ? ['strace', '-f', '-qq', '-e', 'trace=connect,sendto,sendmsg,openat,open,mkdir,mkdirat', '-o', trace, ...node] : node;
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the VAD child failed (${code}): ${err}`);
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as ChildRun['result'];
  return { home, result, trace: strace ? fs.readFileSync(trace, 'utf8') : null };
}

const runs = new Map<string, ChildRun>();
beforeAll(async () => {
  const [worker, main] = await Promise.all([runChild('worker'), runChild('main')]);
  runs.set('worker', worker).set('main', main);
}, 90_000);

describe('the VAD runtime keeps to itself (no telemetry, no debug files)', () => {
  it.each(['worker', 'main'] as const)('VAD in the %s thread: it scored speech, and nothing of Microsoft appeared', (thread) => {
    const { home, result, trace } = runs.get(thread)!;
    expect(result.segments).toBeGreaterThan(0); // the runtime really ran
    expect(fs.existsSync(path.join(home, '.cache', 'Microsoft'))).toBe(false);
    expect(fs.readdirSync('/tmp').filter((f) => f.startsWith(`mat-debug-${result.pid}`))).toEqual([]);
    if (!trace) return console.log('strace is not installed: the network check was skipped');
    const lines = trace.split('\n');
    // tsx talks to its own process over a Unix socket; an internet socket is the telemetry's.
    expect(lines.filter((l) => /AF_INET6?\b/.test(l))).toEqual([]);
    expect(lines.filter((l) => /resolv\.conf|nsswitch\.conf|\/etc\/hosts/.test(l))).toEqual([]);
    expect(lines.filter((l) => /mat-debug|\.cache\/Microsoft|onnxruntime\.db|deviceid/.test(l))).toEqual([]);
  });
});
