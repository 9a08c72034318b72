/**
 * The load generator's own process: reads autocannon options as JSON on stdin, runs them, and
 * writes the summary (`LoadResult` in lib.ts) as JSON on stdout. Started by `generateLoad`.
 *
 * Why a process of its own: autocannon stamps a response's latency when its event loop gets to
 * it, so each of its own GC pauses is added to every request in flight. In the benchmark's
 * process, after seeding a million calls, V8 ran a 10-14 ms mark-compact about every 300 ms
 * while driving (33 per 10 s), and those pauses, not the service, made the p99: right after a
 * fresh seed, the same service and database measured first-page p99 36-51 ms from there and
 * 29-34 ms from a fresh process.
 */
import autocannon from 'autocannon';

const input: string[] = [];
for await (const chunk of process.stdin) input.push(String(chunk));
const result = await autocannon(JSON.parse(input.join('')) as autocannon.Options);
process.stdout.write(
  JSON.stringify({
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }),
);
