#!/usr/bin/env node
/** `npx switchboard …`: the operator's command line (src/cli/program.ts). */
import { loadEnvFile } from '../env-file.js';
import { runCli } from './program.js';

// An explicit exit: the embedded PostgreSQL package's exit hook would otherwise end the
// process with its own code. Output is written synchronously to files, pipes and terminals on
// the platforms we run on, so nothing printed is lost.
// The same `.env` as `npm start`, so `switchboard` finds the same database and settings.
loadEnvFile();
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
