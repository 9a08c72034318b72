#!/usr/bin/env node
/** `npx switchboard …`: the operator's command line (src/cli/program.ts). */
import { runCli } from './program.js';

// An explicit exit: the embedded PostgreSQL package's exit hook would otherwise end the
// process with its own code. Output is written synchronously to files, pipes and terminals on
// the platforms we run on, so nothing printed is lost.
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
