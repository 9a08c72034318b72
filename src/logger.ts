import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { REDACTED, redactField, redactPaths, redactText, redactValue, scrubUrls } from './lib/redact.js';

/** `auto`: readable lines when stdout is a terminal, one JSON object per line otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Log options shared by the HTTP server and the background parts. Secrets and personal
 * data never belong in a log line: the redaction list (src/lib/redact.ts) is a safety net,
 * not a licence. It is applied to what each log call is given, before pino serializes it
 * (`hooks.logMethod`): every field by its name and value at any depth, the message and the
 * format arguments; errors through `serializeError`; child loggers' bindings in
 * `createLogger`. pino's `redact` paths cover the usual places of secret fields once more.
 * A call at a disabled level costs nothing: pino does not call the hook for it. (It used to be
 * applied to every finished line — parse, walk, stringify — which cost the API more than half
 * its throughput at `info`.)
 */
function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths(), censor: REDACTED },
    serializers: {
      err: serializeError,
      // Query strings may carry phone numbers (call list filters): log the path only.
      req: (req: { id?: string; method?: string; url?: unknown }) =>
        typeof req?.url === 'string' ? { id: req.id, method: req.method, path: redactText(req.url.split('?')[0]!) } : redactValue(req),
      res: (res: { statusCode?: unknown }) => (res && typeof res === 'object' ? { statusCode: res.statusCode } : res),
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, redactLogArguments(args as unknown[]) as Parameters<typeof method>);
      },
    },
  };
}

/**
 * Marks the fields of a log call built only from values that cannot hold a secret or personal
 * data (numbers, route patterns, fixed words; a constant message): the list is not applied to
 * them. The request line (src/http/request-log.ts) is one, written for every request.
 */
export const SAFE_FIELDS: unique symbol = Symbol('log fields safe by construction');

/** Fields whose serializer (above) decides what is logged of them. */
const SERIALIZED = new Set(['err', 'req', 'res']);

/** The fields of a log call or a child's bindings as they may be logged. */
function redactFields(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = (fields as Record<string, unknown>)[key];
    if (SERIALIZED.has(key)) out[key] = value;
    else if (value instanceof Error) out[key] = serializeError(value);
    else out[key] = redactField(key, value);
  }
  return out;
}

/**
 * The arguments of a log call (`[fields?, message?, ...format arguments]`) as they may be
 * logged. pino takes the message of an error when the call gives none: it is given here, redacted.
 */
function redactLogArguments(args: unknown[]): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  const first = args[0];
  if (first !== null && typeof first === 'object' && (first as { [SAFE_FIELDS]?: true })[SAFE_FIELDS] === true) return args;
  if (first !== null && typeof first === 'object') {
    out.push(first instanceof Error ? first : redactFields(first));
    i = 1;
    const err = first instanceof Error ? first : (first as { err?: unknown; msg?: unknown }).msg === undefined ? (first as { err?: unknown }).err : undefined;
    if (args.length === 1 && err instanceof Error) out.push(redactText(String(err.message)));
  }
  for (; i < args.length; i++) out.push(typeof args[i] === 'string' ? redactText(args[i] as string) : redactValue(args[i]));
  return out;
}

/** A logger whose children's bindings (`child`, `setBindings`) pass the redaction list too. */
function redactingBindings(logger: Logger): Logger {
  const { child, setBindings } = logger;
  logger.child = function (this: Logger, bindings, options) {
    // No options (Fastify passes `{}` per request): pino's quicker path for a child.
    const opts = options && Object.keys(options).length > 0 ? options : undefined;
    return child.call(this, redactFields(bindings), opts);
  } as Logger['child'];
  logger.setBindings = function (this: Logger, bindings) {
    setBindings.call(this, redactFields(bindings));
  };
  return logger;
}

export { scrubUrls };

/**
 * Errors as pino logs them, minus what must never reach a log: the parameters of a failed
 * query (Drizzle puts them in the message and in `params`: token hashes, e-mail addresses,
 * secrets), and the rest of the list applied to every field (a PostgreSQL error's `detail`
 * names the offending value; URLs, e-mail addresses, … in messages and stacks).
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  const dropParams = (v: unknown) => (typeof v === 'string' ? v.replace(/\nparams: [^\n]*/g, '\nparams: [redacted]') : v);
  const clean = (o: Record<string, unknown>, depth: number): Record<string, unknown> => {
    delete o.params;
    for (const key of ['message', 'stack', 'query']) if (key in o) o[key] = dropParams(o[key]);
    if (depth < 3 && o.cause && typeof o.cause === 'object') o.cause = clean({ ...(o.cause as Record<string, unknown>) }, depth + 1);
    return o;
  };
  return out && typeof out === 'object' ? redactValue(clean(out, 0)) : out;
}

/** True when log lines should be rendered for a person rather than a log collector. */
export function wantsPretty(format: LogFormat, stdoutIsTty = Boolean(process.stdout.isTTY)): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * The process logger. Pretty output is rendered in this thread (a synchronous stream, no
 * worker transport), so a line is complete on the terminal before the next statement runs
 * and nothing interleaves with the start-up banner. JSON lines go to stdout through an
 * asynchronous sonic-boom: the lines written while a write is under way go out together in
 * the next one, from libuv's thread pool, instead of one synchronous write(2) per line on the
 * event loop (see bufferedStdout); pino flushes what is buffered when the process exits.
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
    return redactingBindings(pino(loggerOptions(level), pretty));
  }
  return redactingBindings(pino(loggerOptions(level), destination ?? bufferedStdout()));
}

/** How long a JSON line may wait in the buffer before it is written. */
const STDOUT_FLUSH_MS = 200;

/**
 * stdout for JSON lines: written asynchronously (libuv's thread pool) in chunks of 8 KiB, and at
 * least every STDOUT_FLUSH_MS, instead of one write per line; pino flushes it at exit.
 */
function bufferedStdout(): DestinationStream {
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  const timer = setInterval(() => {
    try {
      stdout.flush();
    } catch {
      clearInterval(timer); // ended (process exit)
    }
  }, STDOUT_FLUSH_MS).unref();
  return stdout;
}

export type { Logger };
