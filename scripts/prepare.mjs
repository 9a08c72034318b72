// `prepare`: `npm ci` and `npm install` build the project here (dist/ and the dashboard's
// web/dist/). npm also runs `prepare` when `npx switchboard` links this folder into its npx
// cache (npm_command=exec); building then would rewrite dist/ under a running service and
// take many seconds, so under npx nothing is built: bin/switchboard.js runs the dist/ there
// is, and says how to build it when there is none.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

if (process.env.npm_command === 'exec') process.exit(0);

const root = path.resolve(import.meta.dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
run(process.execPath, ['scripts/ensure-embedded-postgres.mjs']);
run('tsc', ['-p', 'tsconfig.build.json']);
run('vite', ['build', 'web', '--logLevel', 'warn']);
run('vite', ['build', '-c', 'web/vite.widget.config.ts', '--logLevel', 'warn']);
