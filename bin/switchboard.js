#!/usr/bin/env node
// `switchboard` (`npx switchboard`, and on the PATH of the container image): runs the built
// command line, dist/cli/main.js. It never builds: building under a running service would
// rewrite the dist/ it runs from. Without dist/ it says how to make it and stops.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const main = path.join(root, 'dist', 'cli', 'main.js');
if (!fs.existsSync(main)) {
  console.error(
    `switchboard: ${path.relative(process.cwd(), main) || main} is missing: the project is not built.\n` +
      `Build it once with \`npm ci\` (or \`npm run build\`) in ${root}, then run the command again.`,
  );
  process.exit(1);
}
await import(pathToFileURL(main).href);
