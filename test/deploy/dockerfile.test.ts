/**
 * The Dockerfile without a container runtime (the test machines have none): its runtime
 * stage's own steps — production-only install, copies of the build output, the non-root user,
 * the start command and the health check — run in a clean folder standing in for /app. The
 * build stage's output is this checkout's (its `npm ci` built dist/ and web/dist/).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';
import { commandOf, envOf, parseDockerfile, type Stage } from '../support/dockerfile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const stages = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1)!;
const build = stages.find((s) => s.name === 'build')!;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-image-'));
fs.chmodSync(folder, 0o755);
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const asRoot = process.getuid?.() === 0;

/** Files of the build context matching a COPY source (`*`, `?` and `[…]` globs in the last segment). */
function contextFiles(source: string): string[] {
  const dir = path.dirname(source);
  const base = path.basename(source);
  if (!/[*?[]/.test(base)) return fs.existsSync(path.join(ROOT, source)) ? [source] : [];
  const pattern = new RegExp(`^${base.replace(/\./g, '\\.').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return fs.readdirSync(path.join(ROOT, dir)).filter((f) => pattern.test(f)).map((f) => path.join(dir, f));
}

function copy(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

interface Image {
  env: Record<string, string>;
  user?: { uid: number; gid: number };
  healthcheck: string[];
  cmd: string[];
  log: string[];
}

/** Runs the stage's instructions in `folder` the way the builder would in its WORKDIR. */
function assemble(stage: Stage): Image {
  const image: Image = { env: {}, healthcheck: [], cmd: [], log: [] };
  for (const ins of stage.instructions) {
    switch (ins.keyword) {
      case 'ENV':
        Object.assign(image.env, envOf(ins.args));
        break;
      case 'COPY': {
        const parts = ins.args.split(/\s+/);
        const dest = parts.pop()!;
        for (const source of parts) {
          if (ins.flags.from) {
            // From the build stage: its WORKDIR is /app, standing for this checkout.
            expect(ins.flags.from).toBe(build.name);
            const rel = path.relative('/app', source);
            copy(path.join(ROOT, rel), path.join(folder, dest.endsWith('/') ? path.join(dest, path.basename(rel)) : dest));
          } else {
            const files = contextFiles(source);
            if (!source.includes('[')) expect(files, `COPY ${source}`).not.toEqual([]);
            for (const f of files) copy(path.join(ROOT, f), path.join(folder, dest.endsWith('/') || parts.length > 1 ? path.join(dest, path.basename(f)) : dest));
          }
        }
        break;
      }
      case 'RUN': {
        image.log.push(ins.args);
        const res = spawnSync('/bin/sh', ['-c', ins.args], { cwd: folder, env: { ...process.env, ...image.env }, encoding: 'utf8', timeout: 240_000 });
        expect(res.status, `RUN ${ins.args}\n${res.stdout}\n${res.stderr}`).toBe(0);
        break;
      }
      case 'USER': {
        const [uid, gid] = ins.args.split(':').map(Number);
        image.user = { uid, gid: gid ?? uid };
        break;
      }
      case 'HEALTHCHECK':
        image.healthcheck = commandOf(ins.args.replace(/^CMD\s+/, ''));
        break;
      case 'CMD':
        image.cmd = commandOf(ins.args);
        break;
    }
  }
  return image;
}

function healthy(image: Image, port: number): number | null {
  const [bin, ...args] = image.healthcheck;
  const res = spawnSync(bin, args, {
    cwd: folder,
    env: { PATH: process.env.PATH, ...image.env, PORT: String(port) },
    encoding: 'utf8',
    timeout: 10_000,
    ...(asRoot && image.user ? image.user : {}),
  });
  return res.status;
}

// The image has nothing to do with the test database: once, in the embedded project.
describe.runIf(inject('pgPrefix') === 'sbt_')('Dockerfile', () => {
  it('builds with the dev dependencies, then runs production ones only, as a non-root user, with a health check', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(build.instructions.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args) && !i.args.includes('--omit=dev'))).toBe(true);
    const runs = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true);
    const user = runtime.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(0|root)(:|$)/);
    expect(runtime.instructions.some((i) => i.keyword === 'HEALTHCHECK')).toBe(true);
  });

  it('runs its own steps in a clean folder: the install, the start command and the health check', async () => {
    const image = assemble(runtime);
    // Production dependencies only.
    for (const dev of ['vitest', 'typescript', 'vite', 'drizzle-kit', 'playwright-core']) {
      expect(fs.existsSync(path.join(folder, 'node_modules', dev)), dev).toBe(false);
    }
    expect(fs.existsSync(path.join(folder, 'node_modules', 'fastify'))).toBe(true);
    expect(fs.existsSync(path.join(folder, 'dist', 'main.js'))).toBe(true);
    if (asRoot && image.user) expect(fs.statSync(path.join(folder, 'data')).uid).toBe(image.user.uid);

    if (asRoot && image.user && spawnSync('getent', ['passwd', String(image.user.uid)]).status !== 0) {
      // The node image has this user (`node`); PostgreSQL's initdb needs the uid to have a name.
      expect(spawnSync('useradd', ['--uid', String(image.user.uid), '--no-create-home', '--shell', '/usr/sbin/nologin', 'node']).status).toBe(0);
    }
    const port = await freePort();
    expect(healthy(image, port)).not.toBe(0); // nothing listens yet

    const [bin, ...args] = image.cmd;
    const child = spawn(bin, args, {
      cwd: folder,
      // What `docker run -e PORT=…` would give it: the image's ENV over a bare environment.
      env: { PATH: process.env.PATH, HOME: folder, ...image.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot && image.user ? image.user : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    try {
      let status: number | null = null;
      for (let i = 0; i < 120 && status !== 0; i++) {
        if (child.exitCode !== null) throw new Error(`the start command exited:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 1000));
        status = healthy(image, port);
      }
      expect(status, `${stdout}\n${stderr}`).toBe(0);
      // The first start's banner (stderr) and a token that works.
      for (let i = 0; i < 50 && !/Demo user token:\s+\S+/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
      const token = /Demo user token:\s+(\S+)/.exec(stderr)?.[1];
      const me = await fetch(`http://127.0.0.1:${port}/api/user/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status, stderr).toBe(200);
      // LOG_FORMAT=json: every stdout line is a JSON log record.
      for (const line of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
      // The dashboard is served from the copied web/dist.
      const page = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      // `switchboard` on the image's PATH (`docker compose exec … switchboard users list`): the
      // wrapper runs /app/bin/switchboard.js, which here is the folder's, with production
      // dependencies only, against the running service's database.
      const wrapper = fs.readFileSync(path.join(folder, 'usr/local/bin/switchboard'), 'utf8');
      expect(fs.statSync(path.join(folder, 'usr/local/bin/switchboard')).mode & 0o111).not.toBe(0);
      const [cliBin, ...cliArgs] = /^exec (\S+) (\S+) "\$@"$/m.exec(wrapper)!.slice(1).map((a) => a.replace(/^\/app\//, `${folder}/`));
      const cli = spawnSync(cliBin!, [...cliArgs, '--json', 'users', 'list'], {
        cwd: folder,
        env: { PATH: process.env.PATH, HOME: folder, ...image.env },
        encoding: 'utf8',
        timeout: 60_000,
        ...(asRoot && image.user ? image.user : {}),
      });
      expect(cli.status, cli.stderr).toBe(0);
      expect((JSON.parse(cli.stdout) as { email: string }[]).length).toBeGreaterThan(0);
    } finally {
      const exited = new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    expect(healthy(image, port)).not.toBe(0);
  }, 420_000);
});
