import { pino, type Logger, type LoggerOptions } from 'pino';

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

export function createLogger(level = 'info'): Logger {
  return pino(loggerOptions(level));
}

export type { Logger };
