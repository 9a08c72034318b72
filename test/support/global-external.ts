import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { dropDatabasesWithPrefix, prepareTemplate } from './template.js';

export default async function setup(project: TestProject) {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const prefix = `sbx_${randomBytes(4).toString('hex')}_`;
  const template = `${prefix}template`;
  await prepareTemplate(serverUrl, template);
  project.provide('pgServerUrl', serverUrl);
  project.provide('pgTemplate', template);
  project.provide('pgPrefix', prefix);
  return async () => {
    await dropDatabasesWithPrefix(serverUrl, prefix);
  };
}
