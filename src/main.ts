/** `npm start`: one Switchboard process. */
import { fullProcess } from './compose.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL);
  const service = await startService({ config, log, parts: fullProcess });

  if (service.bootstrap.demoToken) {
    const lines = [
      '',
      '  Switchboard is ready. These tokens are shown once; keep them.',
      service.bootstrap.adminToken ? `  Admin token (ADMIN API):  ${service.bootstrap.adminToken}` : '  Admin token: from ADMIN_TOKEN',
      `  Demo user token:          ${service.bootstrap.demoToken}`,
      '',
      `  Try: curl -H "Authorization: Bearer ${service.bootstrap.demoToken}" ${config.publicBaseUrl}/api/user/me`,
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  }
  log.info({ url: service.url }, 'Switchboard listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
