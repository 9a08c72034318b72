/**
 * One PostgreSQL LISTEN connection that reconnects by itself. `onConnected` runs after every
 * (re)connection: notifications sent while it was down are lost, so a listener that keeps a
 * cache should drop it there.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { loopFailureLogger } from './unavailable.js';

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  applicationName: string;
  log: Logger;
  onNotify(payload: string): void;
  onConnected?(): void;
  /** Delay before a reconnection attempt (default 1 s). */
  retryMs?: number;
}

export class PgListener {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(private readonly opts: ListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.channel)) throw new Error(`invalid channel name: ${opts.channel}`);
  }

  /** Resolves once the first connection attempt has finished (listening or scheduled to retry). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  private failedLogger: ((err: unknown) => void) | undefined;
  private failed(err: unknown): void {
    this.failedLogger ??= loopFailureLogger(this.opts.log.child({ channel: this.opts.channel }), 'LISTEN failed');
    this.failedLogger(err);
  }

  private async connect(): Promise<void> {
    const { log, channel } = this.opts;
    const client = new pg.Client({ connectionString: this.opts.connectionString, application_name: this.opts.applicationName });
    const again = () => {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.stopped) this.retry = setTimeout(() => void this.connect(), this.opts.retryMs ?? 1000);
    };
    client.on('error', (err) => {
      log.warn({ err, channel }, 'LISTEN connection lost; reconnecting');
      again();
    });
    client.on('notification', (msg) => {
      if (msg.channel === channel) this.opts.onNotify(msg.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.opts.onConnected?.();
    } catch (err) {
      // Retried every second while the database is away: one warning per 30 s, not one per try.
      this.failed(err);
      again();
    }
  }
}
