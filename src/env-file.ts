/**
 * `.env` in the working directory, read at start by the service and the command line, so that
 * `cp .env.example .env` and `npm start` is all a newcomer does. The process's own environment
 * wins over the file (a container's or process manager's setting is never overridden).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Loads `<dir>/.env` when it exists; returns its path, or null when there is none. */
export function loadEnvFile(dir: string = process.cwd()): string | null {
  const file = path.join(dir, '.env');
  if (!existsSync(file)) return null;
  process.loadEnvFile(file);
  return file;
}
