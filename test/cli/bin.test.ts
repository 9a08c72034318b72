/**
 * `npx switchboard` as an operator runs it next to a running service: it runs the built
 * command line and never rebuilds the project (npm runs `prepare` when npx links this folder
 * into its cache; a build there rewrote dist/ under the running service). Without dist/ the
 * command says how to build it instead of failing without a word.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bin-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Newest modification time of any file under `dir`. */
function newest(dir: string): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) max = Math.max(max, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

describe.runIf(inject('pgPrefix') === 'sbt_')('the switchboard bin', () => {
  it('is a checked-in script, not a file of the build output', () => {
    expect(pkg.bin.switchboard).toBe('bin/switchboard.js');
    expect(fs.statSync(path.join(ROOT, pkg.bin.switchboard)).mode & 0o111).not.toBe(0);
  });

  it('npx switchboard runs the built command line and rebuilds nothing', () => {
    expect(fs.existsSync(path.join(ROOT, 'dist/cli/main.js')), 'the checkout is built (npm ci)').toBe(true);
    const before = newest(path.join(ROOT, 'dist'));
    // A fresh npm cache, so npx links this folder anew and npm runs its `prepare`, as on the first run.
    const env = { ...process.env, npm_config_cache: path.join(tmp, 'npm-cache'), npm_config_update_notifier: 'false' };
    const res = spawnSync('npx', ['--yes', 'switchboard', '--help'], { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Usage: switchboard');
    expect(newest(path.join(ROOT, 'dist'))).toBe(before);
  }, 120_000);

  it('prepare builds nothing when npx runs it', () => {
    // PATH without the build tools: a build would fail, so exit 0 means nothing was attempted.
    const res = spawnSync(process.execPath, [path.join(ROOT, 'scripts/prepare.mjs')], {
      cwd: ROOT,
      env: { PATH: path.dirname(process.execPath), npm_command: 'exec', npm_lifecycle_event: 'prepare' },
      encoding: 'utf8',
    });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout + res.stderr).toBe('');
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
  });

  it('without dist/ says that the project is not built and how to build it', () => {
    fs.mkdirSync(path.join(tmp, 'bin'));
    fs.copyFileSync(path.join(ROOT, 'bin/switchboard.js'), path.join(tmp, 'bin/switchboard.js'));
    const res = spawnSync(process.execPath, [path.join(tmp, 'bin/switchboard.js'), 'users', 'list'], { cwd: tmp, encoding: 'utf8' });
    expect(res.status).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('dist/cli/main.js is missing: the project is not built');
    expect(res.stderr).toContain('npm ci');
  });
});
