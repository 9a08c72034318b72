/**
 * A whole Switchboard process (call engine, dialer, webhooks, HTTP on INSTANCE_PORT) on
 * INSTANCE_DATABASE_URL with the Twilio settings of the environment: the second instance of
 * the two-instance Twilio test, which the test may SIGKILL mid-call.
 */
import { fullProcess } from '../../../src/compose.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { startService } from '../../../src/service.js';

const config = loadConfig({
  ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
  LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'silent',
  RATE_LIMIT_PER_MINUTE: '0',
  SANDBOX_TIME_SCALE: '0',
  PORT: process.env.INSTANCE_PORT ?? '0',
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL,
  TWILIO_ACCOUNT_SID: process.env.TWILIO_ACCOUNT_SID,
  TWILIO_AUTH_TOKEN: process.env.TWILIO_AUTH_TOKEN,
  TWILIO_API_URL: process.env.TWILIO_API_URL,
  SECRET_KEY: process.env.SECRET_KEY,
});
const service = await startService({
  config,
  databaseUrl: process.env.INSTANCE_DATABASE_URL,
  listen: true,
  parts: fullProcess,
  poolSize: 5,
  log: createLogger(config.LOG_LEVEL),
});
process.stdout.write(`READY ${service.ctx.instanceId} ${service.url}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
