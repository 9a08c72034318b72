/**
 * The Prometheus metrics of one process (issue 18), served at `/metrics` by src/http/metrics.ts.
 *
 * A leaf: it imports prom-client only, so the engine, the dialer, webhook delivery and the
 * voice pipeline can record into it (through `ctx.services.metrics`) without a cycle. Each
 * process has its own registry (tests run several services in one process). Counters count
 * what happened in this process; gauges that describe shared state (the dialer's backlog,
 * webhook retries waiting) are read from the database at scrape time by callbacks the parts
 * register, so every instance reports the same cluster-wide value for them (aggregate with
 * `max`, not `sum`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Stages of one conversational turn the voice pipeline times (seconds from the turn's start or of the stage). */
export type TurnStage = string;

/** What the voice pipeline needs: one call per measured stage of a turn. */
export interface TurnMetrics {
  /** `stage`: e.g. `stt_final`, `llm_first_token`, `tts_first_audio`, `turn` (end of caller speech → first agent audio). */
  turnStage(stage: TurnStage, milliseconds: number): void;
}

/** How a webhook attempt ended: sent (2xx), retry planned, given up after the schedule, or not retried by rule (410, switched off, refused target). */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'gave_up' | 'stopped';

type GaugeSource = () => number | Promise<number>;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TURN_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];

export class Metrics implements TurnMetrics {
  readonly registry = new Registry();
  private defaultsStarted = false;

  private readonly httpRequests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending its answer, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });

  private readonly callsFinished = new Counter({
    name: 'switchboard_calls_finished_total',
    help: 'Calls this process ran to their final status, by that status.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  private readonly dialerClaims = new Counter({
    name: 'switchboard_dialer_claims_total',
    help: 'Leads this process claimed from running campaigns and placed a call for.',
    registers: [this.registry],
  });

  private readonly leadsSettled = new Counter({
    name: 'switchboard_dialer_leads_settled_total',
    help: "Campaign calls whose lead this process settled, by what became of the lead (completed, retry, next-contact, reached-max-retries, released).",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'switchboard_webhook_attempts_total',
    help: 'Webhook delivery attempts this process made, by outcome (delivered, retry, gave_up, stopped).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly turnStages = new Histogram({
    name: 'switchboard_voice_turn_stage_seconds',
    help: 'Timings of the stages of conversational turns (voice pipeline), by stage.',
    labelNames: ['stage'] as const,
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });

  private readonly sources = new Map<string, { gauge: Gauge; read: Map<string, GaugeSource> }>();

  /** One answered HTTP request; `route` is the route's pattern (`/api/user/calls/:id`), never the raw path. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  callFinished(status: string): void {
    this.callsFinished.inc({ status });
  }

  dialerClaimed(count: number): void {
    if (count > 0) this.dialerClaims.inc(count);
  }

  leadSettled(outcome: string): void {
    this.leadsSettled.inc({ outcome });
  }

  webhookAttempt(outcome: WebhookAttemptOutcome, count = 1): void {
    if (count > 0) this.webhookAttempts.inc({ outcome }, count);
  }

  turnStage(stage: TurnStage, milliseconds: number): void {
    if (Number.isFinite(milliseconds) && milliseconds >= 0) this.turnStages.observe({ stage }, milliseconds / 1000);
  }

  /**
   * A gauge read when scraped, e.g. the calls this process runs or a count in the database.
   * `labels` tells several sources of one gauge apart (e.g. pool connections by state).
   * Registering the same name and labels again replaces the source.
   */
  gauge(name: string, help: string, read: GaugeSource, labels: Record<string, string> = {}): void {
    let entry = this.sources.get(name);
    if (!entry) {
      const reads = new Map<string, GaugeSource>();
      const labelNames = Object.keys(labels);
      const gauge = new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          await Promise.all(
            [...reads].map(async ([key, source]) => {
              try {
                const value = await source();
                this.set(JSON.parse(key) as Record<string, string>, value);
              } catch {
                // A source that cannot answer (database down) leaves the gauge out rather than failing the scrape.
                this.remove(JSON.parse(key) as Record<string, string>);
              }
            }),
          );
        },
      });
      entry = { gauge, read: reads };
      this.sources.set(name, entry);
    }
    entry.read.set(JSON.stringify(labels), read);
  }

  /**
   * The exposition text. Node's default metrics (event-loop delay, heap, CPU, handles) start
   * with the first scrape, so processes nobody scrapes (tests, the CLI) do not sample the loop.
   */
  async scrape(): Promise<{ contentType: string; body: string }> {
    if (!this.defaultsStarted) {
      this.defaultsStarted = true;
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
