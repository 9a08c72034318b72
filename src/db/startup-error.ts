/**
 * A reason the service cannot start that the operator fixes (configuration, DATA_DIR, the
 * database's address): main prints the message as one line, without a stack, and exits 2.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'connection reset',
  '28P01': 'password authentication failed',
  '28000': 'authentication refused',
  '3D000': 'the database does not exist',
};

/** host:port/database of a connection string: never its user, password or parameters. */
export function databaseAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(an unparseable DATABASE_URL)';
  }
}

/**
 * The start-up's first database work (the migrations) failed: a StartupError in one line
 * when the address, the credentials or a migration is at fault; anything else as it is.
 */
export function startupDatabaseError(err: unknown, url: string): unknown {
  const chain: { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }[] = [];
  for (let e = err as (typeof chain)[number] | undefined, i = 0; e && typeof e === 'object' && i < 4; e = e.cause as typeof e, i++) {
    chain.push(e);
    // AggregateError (several addresses of one host): the first says enough.
    if (Array.isArray(e.errors) && e.errors[0]) chain.push(e.errors[0] as (typeof chain)[number]);
  }
  for (const e of chain) {
    const reason = typeof e.code === 'string' ? CONNECTION_CODES[e.code] : undefined;
    if (reason) return new StartupError(`Cannot connect to the database at ${databaseAddress(url)}: ${reason}`);
  }
  const failedQuery = chain.find((e) => typeof e.message === 'string' && e.message.startsWith('Failed query:'));
  const cause = failedQuery?.cause as { message?: unknown } | undefined;
  if (cause && typeof cause.message === 'string') return new StartupError(`A database migration failed: ${cause.message}`);
  return err;
}
