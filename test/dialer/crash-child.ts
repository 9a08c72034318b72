/**
 * A whole Switchboard process (call engine, dialer, webhooks) on CRASH_DATABASE_URL, for the
 * dialer's crash test: started with `node --import tsx`, SIGKILLed mid-campaign, started again.
 */
import { fullProcess } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';

const config = loadConfig({
  ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
  LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'silent',
  RATE_LIMIT_PER_MINUTE: '0',
  SANDBOX_TIME_SCALE: process.env.SANDBOX_TIME_SCALE ?? '0.05',
});
const service = await startService({
  config,
  databaseUrl: process.env.CRASH_DATABASE_URL,
  listen: false,
  parts: fullProcess,
  poolSize: 5,
  log: createLogger(config.LOG_LEVEL),
});
process.stdout.write(`READY ${service.ctx.instanceId}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
