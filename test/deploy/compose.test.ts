/**
 * compose.yaml and its load balancer, read as Docker Compose and nginx would: PostgreSQL, one
 * shared recording store (MinIO) and three Switchboard instances behind nginx; every
 * instance's environment passes every documented setting (docs/configuration.md) but the few
 * that do not apply, and the load balancer passes WebSocket upgrades to all three.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, SETTING_NAMES } from '../../src/config.js';
import { recordingStoreFor, S3RecordingStore } from '../../src/recordings/store.js';
import { documentedSettings, ROOT } from '../support/configuration-table.js';

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  command?: string[] | string;
  deploy?: { replicas?: number };
  entrypoint?: string[];
}
const compose = parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
/** The Switchboard service: one service, run as several replicas. */
const instances = ['app'];
const nginx = fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');

/** Compose's `${NAME:-default}` / `${NAME:?message}` / `${NAME}` substitution, with `vars` as the .env file. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    const v = vars[name];
    if (v !== undefined && v !== '') return v;
    if (op === '?') throw new Error(`${name} is required: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

describe('compose.yaml', () => {
  it('runs PostgreSQL, a recording store, three Switchboard instances and a load balancer', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'lb', 'minio', 'minio-bucket', 'postgres']);
    // `docker compose exec app switchboard …` reaches the first of them.
    expect(services.app.deploy?.replicas).toBe(3);
    expect(services.postgres.image).toMatch(/^postgres:(1[5-9])/);
    expect(services.postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(services.postgres.volumes?.some((v) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
  });

  it('gives the instances an environment made only of documented settings', () => {
    const documented = documentedSettings();
    const first = services[instances[0]].environment!;
    for (const name of instances) {
      const s = services[name];
      expect(s.build).toBe('.');
      expect(s.environment).toEqual(first);
      expect(Object.keys(s.environment!).filter((k) => !documented.includes(k))).toEqual([]);
      expect(s.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
      // Reached through the load balancer only.
      expect(s.ports ?? []).toEqual([]);
      expect(s.expose).toEqual([first.PORT]);
    }
    for (const required of ['DATABASE_URL', 'ADMIN_TOKEN', 'SECRET_KEY', 'PUBLIC_BASE_URL']) expect(Object.keys(first)).toContain(required);
  });

  it('passes every setting from the environment or .env, except those that do not apply under compose', () => {
    // The embedded database (here: the postgres service), the recordings folder (here: the
    // shared store) and NODE_ENV (the image sets production).
    const notApplicable = ['DATA_DIR', 'EMBEDDED_PG_PORT', 'NODE_ENV', 'RECORDINGS_DIR'];
    const env = services.app.environment!;
    expect(SETTING_NAMES.filter((n) => !(n in env)).sort()).toEqual(notApplicable);
    // Fixed by the compose setup itself.
    const fixed = ['DATABASE_URL', 'PORT', 'HOST', 'LOG_FORMAT'];
    for (const [name, value] of Object.entries(env)) {
      if (fixed.includes(name)) continue;
      // `${NAME:-default}`, `${NAME:-}` (the service's default) or `${NAME:?why}` (required).
      expect(String(value), name).toMatch(new RegExp(`^\\$\\{${name}:[-?][^}]*\\}$`));
    }
    // A value from .env reaches the instance.
    expect(interpolate(String(env.ALLOW_PRIVATE_TARGETS), { ALLOW_PRIVATE_TARGETS: 'true' })).toBe('true');
    expect(interpolate(String(env.TWILIO_AUTH_TOKEN), { TWILIO_AUTH_TOKEN: 'tok' })).toBe('tok');
  });

  it('keeps recordings in one store shared by every instance: MinIO, its bucket made before they start', () => {
    const vars = { POSTGRES_PASSWORD: 'pw-0123456789', ADMIN_TOKEN: 'admin-token-0123456789', SECRET_KEY: 'k'.repeat(48), S3_SECRET_ACCESS_KEY: 's3-secret-0123' };
    const resolve = (e: Record<string, string>) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, interpolate(String(v), vars)]));
    const minio = resolve(services.minio.environment!);
    const bucket = resolve(services['minio-bucket'].environment!);
    expect(services.minio.image).toMatch(/^minio\/minio/);
    expect(services.minio.volumes?.some((v) => v.endsWith(':/data'))).toBe(true);
    expect(String(services['minio-bucket'].command)).toContain('mc mb --ignore-existing "store/$$S3_BUCKET"');
    for (const name of instances) {
      const config = loadConfig(resolve(services[name].environment!));
      expect(recordingStoreFor(config)).toBeInstanceOf(S3RecordingStore);
      expect(new URL(config.S3_ENDPOINT!).hostname).toBe('minio');
      expect(config.S3_ACCESS_KEY_ID).toBe(minio.MINIO_ROOT_USER);
      expect(config.S3_SECRET_ACCESS_KEY).toBe(minio.MINIO_ROOT_PASSWORD);
      expect(config.S3_BUCKET).toBe(bucket.S3_BUCKET);
      expect(services[name].depends_on).toMatchObject({ 'minio-bucket': { condition: 'service_completed_successfully' } });
    }
    expect(() => interpolate(String(services.minio.environment!.MINIO_ROOT_PASSWORD), {})).toThrow(/S3_SECRET_ACCESS_KEY is required/);
  });

  it('has an environment the service accepts, pointing at the compose PostgreSQL', () => {
    const vars = { POSTGRES_PASSWORD: 'pw-0123456789', ADMIN_TOKEN: 'admin-token-0123456789', SECRET_KEY: 'k'.repeat(48), S3_SECRET_ACCESS_KEY: 's3-secret-0123' };
    const env = Object.fromEntries(Object.entries(services.app.environment!).map(([k, v]) => [k, interpolate(String(v), vars)]));
    const config = loadConfig(env);
    const db = new URL(config.DATABASE_URL!);
    const pgEnv = Object.fromEntries(Object.entries(services.postgres.environment!).map(([k, v]) => [k, interpolate(String(v), vars)]));
    expect(db.hostname).toBe('postgres');
    expect(db.port).toBe('5432');
    expect(db.username).toBe(pgEnv.POSTGRES_USER);
    expect(db.password).toBe(pgEnv.POSTGRES_PASSWORD);
    expect(db.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.LOG_FORMAT).toBe('json');
    // Secrets have no defaults: compose refuses to start without them.
    expect(() => interpolate(String(services.app.environment!.SECRET_KEY), {})).toThrow(/SECRET_KEY is required/);
    expect(() => interpolate(String(services.postgres.environment!.POSTGRES_PASSWORD), {})).toThrow(/POSTGRES_PASSWORD is required/);
  });

  it('publishes only the load balancer, whose nginx config spreads over every replica and passes WebSocket upgrades', () => {
    const lb = services.lb;
    expect(lb.ports).toEqual(['8080:80']);
    const mount = lb.volumes!.find((v) => v.includes('nginx.conf'))!;
    expect(mount.split(':')[0]).toBe('./deploy/nginx.conf');
    expect(mount.split(':')[1]).toBe('/etc/nginx/nginx.conf');
    const upstream = /upstream\s+(\w+)\s*\{([^}]*)\}/.exec(nginx)!;
    const servers = [...upstream[2].matchAll(/server\s+([\w.-]+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
    // One name, every replica's address (Docker's DNS answers all of them for the service).
    expect(servers.sort()).toEqual(instances.map((n) => `${n}:${services[n].environment!.PORT}`).sort());
    expect(services.lb.depends_on).toEqual(instances);
    expect(nginx).toMatch(new RegExp(`proxy_pass\\s+http://${upstream[1]};`));
    expect(nginx).toMatch(/listen\s+80;/);
    expect(nginx).toMatch(/proxy_http_version\s+1\.1;/);
    expect(nginx).toMatch(/proxy_set_header\s+Upgrade\s+\$http_upgrade;/);
    expect(nginx).toMatch(/map\s+\$http_upgrade\s+\$connection_upgrade\s*\{[^}]*default\s+upgrade;/);
    expect(nginx).toMatch(/proxy_set_header\s+Connection\s+\$connection_upgrade;/);
    // Long enough for a call's media stream.
    expect(Number(/proxy_read_timeout\s+(\d+)s;/.exec(nginx)?.[1])).toBeGreaterThanOrEqual(3600);
  });
});

/** Docker Compose's own command, when this machine has one: `docker compose` (v2) or `docker-compose`. */
const composeCli = (() => {
  if (spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0) return ['docker-compose'];
  return null;
})();

describe.runIf(composeCli !== null)('compose.yaml, read by Docker Compose itself', () => {
  const run = (env: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-compose-'));
    try {
      fs.copyFileSync(path.join(ROOT, 'compose.yaml'), path.join(dir, 'compose.yaml'));
      fs.writeFileSync(path.join(dir, '.env'), env);
      const [bin, ...args] = composeCli!;
      return spawnSync(bin!, [...args, 'config'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('accepts the file with the README .env, and passes a setting from .env to the instances', () => {
    const res = run('ADMIN_TOKEN=admin-token-0123456789\nSECRET_KEY=' + 'k'.repeat(48) + '\nPOSTGRES_PASSWORD=pw-0123\nS3_SECRET_ACCESS_KEY=s3-secret-0123\nALLOW_PRIVATE_TARGETS=true\n');
    expect(res.status, res.stderr).toBe(0);
    const config = parse(res.stdout) as { services: Record<string, Service> };
    for (const name of instances) expect(config.services[name]!.environment!.ALLOW_PRIVATE_TARGETS).toBe('true');
  });

  it('refuses to start without the secrets, naming the missing one', () => {
    const res = run('');
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/set (POSTGRES_PASSWORD|ADMIN_TOKEN|SECRET_KEY|S3_SECRET_ACCESS_KEY)/);
  });
});
