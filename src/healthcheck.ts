/**
 * The container's health check (`node dist/healthcheck.js`, see Dockerfile): exit 0 when this
 * host's Switchboard answers GET /ready (database reachable) within 4 s, else 1. A script
 * rather than curl so the runtime image needs nothing beyond Node.
 */
const port = process.env.PORT && process.env.PORT !== '' ? process.env.PORT : '8080';
const url = `http://127.0.0.1:${port}/ready`;

try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  if (!res.ok) console.error(`${url} answered ${res.status}`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`${url} unreachable: ${(err as Error).message}`);
  process.exit(1);
}
