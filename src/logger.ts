import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { REDACTED, redactLogLine, redactPaths, redactText, scrubUrls } from './lib/redact.js';

/** `auto`: readable lines when stdout is a terminal, one JSON object per line otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Log options shared by the HTTP server and the background parts. Secrets and personal
 * data never belong in a log line: the redaction list (src/lib/redact.ts) is a safety net,
 * not a licence. It is applied twice: pino's `redact` paths for the usual places of secret
 * fields, and every finished line (`streamWrite`), message and nested fields included, so a
 * secret, e-mail address, phone number or URL query in any field of any line is caught.
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths(), censor: REDACTED },
    serializers: {
      err: serializeError,
      // Query strings may carry phone numbers (call list filters): log the path only.
      // Anything else logged as `req` (no url) is kept as it is: the redaction list covers it.
      req: (req: { id?: string; method?: string; url?: unknown }) =>
        typeof req?.url === 'string' ? { id: req.id, method: req.method, path: req.url.split('?')[0] } : req,
    },
    hooks: { streamWrite: redactLogLine },
  };
}

export { scrubUrls };

/**
 * Errors as pino logs them, minus what must never reach a log: the parameters of a failed
 * query (Drizzle puts them in the message and in `params`: token hashes, e-mail addresses,
 * secrets); the rest of the list (URLs, e-mail addresses, …) is applied to the whole line.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const scrub = (v: unknown) => (typeof v === 'string' ? redactText(v.replace(/\nparams: [^\n]*/g, '\nparams: [redacted]')) : v);
  const clean = (o: Record<string, unknown>, depth: number): Record<string, unknown> => {
    delete o.params;
    for (const key of ['message', 'stack', 'query', 'url', 'target']) if (key in o) o[key] = scrub(o[key]);
    if (depth < 3 && o.cause && typeof o.cause === 'object') o.cause = clean({ ...(o.cause as Record<string, unknown>) }, depth + 1);
    return o;
  };
  return out && typeof out === 'object' ? clean(out, 0) : out;
}

/** True when log lines should be rendered for a person rather than a log collector. */
export function wantsPretty(format: LogFormat, stdoutIsTty = Boolean(process.stdout.isTTY)): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * The process logger. Pretty output is rendered in this thread (a synchronous stream, no
 * worker transport), so a line is complete on the terminal before the next statement runs
 * and nothing interleaves with the start-up banner.
 */
export function createLogger(level = 'info', format: LogFormat = 'json', destination?: DestinationStream): Logger {
  if (wantsPretty(format)) {
    const pretty = prettyStream({
      colorize: Boolean(process.stdout.isTTY),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
      ...(destination ? { destination } : {}),
    });
    return pino(loggerOptions(level), pretty);
  }
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

export type { Logger };
