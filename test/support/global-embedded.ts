import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { createLogger } from '../../src/logger.js';
import { prepareTemplate } from './template.js';

export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-'));
  fs.chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: dir, log: createLogger('warn'), ephemeral: true });
  const template = 'sb_template';
  await prepareTemplate(server.url, template);
  project.provide('pgServerUrl', server.url);
  project.provide('pgTemplate', template);
  project.provide('pgPrefix', 'sbt_');
  return async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
    pgTemplate: string;
    pgPrefix: string;
  }
}
