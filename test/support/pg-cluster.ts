/**
 * A throw-away PostgreSQL 15 cluster of a test's own (initdb + pg_ctl, run as `postgres`: the
 * server refuses root), on a free port, that the test may stop and start under a running
 * service. Needs PostgreSQL 15's server binaries and root (for `runuser -u postgres`), and runs
 * only in the embedded project (the cluster is the test's, not the run's database):
 * `canRunCluster` says whether this machine and project can.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../src/db/embedded.js';

const BIN = '/usr/lib/postgresql/15/bin';

export const canRunCluster = (): boolean => fs.existsSync(path.join(BIN, 'pg_ctl')) && process.getuid?.() === 0 && inject('pgPrefix') === 'sbt_';

function asPostgres(args: string[]): string {
  return execFileSync('runuser', ['-u', 'postgres', '--', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface PgCluster {
  port: number;
  url: string;
  start(): void;
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops it (if running) and removes its files. */
  remove(): void;
}

/** Creates and starts a cluster in a new temporary folder named after `prefix`. */
export async function startCluster(prefix: string): Promise<PgCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  fs.chownSync(dir, uid, gid);
  asPostgres([path.join(BIN, 'initdb'), '-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const pgCtl = (...args: string[]) => asPostgres([path.join(BIN, 'pg_ctl'), '-D', path.join(dir, 'data'), ...args]);
  const cluster: PgCluster = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => void pgCtl('-l', path.join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-w', 'start'),
    stop: (mode = 'fast') => void pgCtl('-m', mode, '-w', 'stop'),
    remove: () => {
      try {
        cluster.stop('immediate');
      } catch {
        /* already stopped */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
