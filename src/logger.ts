import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { build as prettyStream } from 'pino-pretty';

/** `auto`: readable lines when stdout is a terminal, one JSON object per line otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Log options shared by the HTTP server and the background parts. Secrets and personal
 * data never belong in a log line: the redact list is a safety net, not a licence.
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.headers.authorization',
        'token',
        '*.token',
        'phone_number',
        '*.phone_number',
        'transcript',
        '*.transcript',
      ],
      censor: '[redacted]',
    },
    serializers: {
      // Query strings may carry phone numbers (call list filters): log the path only.
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
    },
  };
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
