/**
 * One whole Switchboard process (call engine, dialer, webhook delivery) on INSTANCE_DATABASE_URL
 * for the multi-instance test: started with `node --import tsx`, SIGKILLed or SIGTERMed by it.
 * Prints `READY <instance id>` once its parts run.
 */
import { fullProcess } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';

const config = loadConfig({
  ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
  LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'silent',
  LOG_FORMAT: 'json',
  RATE_LIMIT_PER_MINUTE: '0',
  SANDBOX_TIME_SCALE: process.env.SANDBOX_TIME_SCALE ?? '0.005',
  ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
  // The killed instance's webhook jobs come back after 30 s (the shortest allowed), not 2 min.
  JOB_EXPIRE_SECONDS: process.env.JOB_EXPIRE_SECONDS ?? '30',
});
const service = await startService({
  config,
  databaseUrl: process.env.INSTANCE_DATABASE_URL,
  listen: false,
  parts: fullProcess,
  poolSize: Number(process.env.INSTANCE_POOL_SIZE ?? 10),
  log: createLogger(config.LOG_LEVEL, 'json'),
});
process.stdout.write(`READY ${service.ctx.instanceId}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
