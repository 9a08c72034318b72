/** `npm start`: one Switchboard process. */
import { fullProcess } from './compose.js';
import { ConfigError, loadConfig } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger } from './logger.js';
import { StartupError } from './db/startup-error.js';
import { startService } from './service.js';

function firstStartBanner(tokens: { adminToken?: string; demoToken?: string }, baseUrl: string): string {
  const rule = '  ' + '─'.repeat(72);
  const lines = [
    '',
    rule,
    '  Switchboard is ready. These tokens are shown once; keep them.',
    tokens.adminToken ? `  Admin token (ADMIN API):  ${tokens.adminToken}` : '  Admin token: from ADMIN_TOKEN',
    `  Demo user token:          ${tokens.demoToken}`,
    '',
    `  Try: curl -H "Authorization: Bearer ${tokens.demoToken}" ${baseUrl}/api/user/me`,
    `  Dashboard: ${baseUrl}/`,
    rule,
    '',
  ];
  return lines.join('\n') + '\n';
}

/** Beyond the grace period: post-call work (30 s), webhooks (25 s), settling leads (10 s), the job queue (10 s), and some. */
const SHUTDOWN_BACKSTOP_SECONDS = 90;

async function main(): Promise<void> {
  let config;
  try {
    loadEnvFile();
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  const service = await startService({ config, log, parts: fullProcess });

  log.info({ url: service.url }, 'Switchboard listening');
  if (service.bootstrap.demoToken) {
    // The banner is for the person at the terminal, not for the log collector: it goes to
    // stderr, framed, after the log lines of start-up, so stdout stays one JSON object per
    // line and the tokens never enter a log pipeline.
    process.stderr.write(firstStartBanner(service.bootstrap, config.publicBaseUrl));
    log.info('first start: the admin and demo tokens were printed on stderr');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second Ctrl-C (or SIGTERM): no more waiting for live calls; they are ended now, and
      // their records and webhooks still go out.
      log.info({ signal }, 'second signal: ending live calls now');
      service.hurry();
      return;
    }
    stopping = true;
    log.info({ signal, graceSeconds: config.SHUTDOWN_GRACE_SECONDS }, 'shutting down');
    // Every step of the shutdown is bounded (grace period, post-call work, webhooks, job
    // queue); this is the backstop should one hang anyway.
    const force = setTimeout(() => {
      log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, (config.SHUTDOWN_GRACE_SECONDS + SHUTDOWN_BACKSTOP_SECONDS) * 1000);
    force.unref();
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // What the operator must fix (DATA_DIR, DATABASE_URL, a refused migration): one line, exit 2.
  if (err instanceof StartupError) {
    console.error(`switchboard: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
