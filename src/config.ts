import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const seconds = z
  .string()
  .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'a comma-separated list of seconds, e.g. 5,300,1800')
  .transform((v) => v.split(',').map(Number));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Encrypts stored credentials and signs expiring links (src/lib/secrets.ts); the same on every instance. */
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PUBLIC_APP_URL: z.string().url().optional(),
  DEFAULT_PHONE_REGION: z.string().regex(/^[A-Z]{2}$/, 'a two-letter region code such as DE').default('DE'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(300),
  /** Seconds a client may take to send a whole request (headers and body); slowloris guard. */
  HTTP_REQUEST_TIMEOUT: z.coerce.number().positive().max(3600).default(30),
  /** Seconds a client may take to send the request headers. */
  HTTP_HEADERS_TIMEOUT: z.coerce.number().positive().max(3600).default(10),
  /** Seconds a WebSocket (media stream, browser call) has to prove itself: Twilio's `start`, a browser's token. */
  WS_START_TIMEOUT: z.coerce.number().positive().max(300).default(5),
  /** Seconds between pings of every WebSocket; one without an answer by the next ping is dropped. */
  WS_HEARTBEAT_INTERVAL: z.coerce.number().positive().max(3600).default(20),
  /** Unproven WebSockets one process holds at most; 0: a quarter of its file-descriptor limit (16–1000). */
  WS_PENDING_MAX: z.coerce.number().int().min(0).default(0),
  /** Unproven WebSockets of one remote address at most; 0: no per-address cap. */
  WS_PENDING_PER_ADDRESS: z.coerce.number().int().min(0).default(64),
  /**
   * Seconds live calls may go on after SIGTERM/SIGINT before the rest are ended ("the service
   * shut down"); meanwhile no new calls or dialer work are taken (src/service.ts).
   */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  SANDBOX_TIME_SCALE: z.coerce.number().min(0).default(1),
  WEBHOOK_RETRY_SCHEDULE: seconds.default([5, 300, 1800, 7200, 18000, 36000, 36000]),
  /** Days a finished webhook message's delivery log is kept (src/webhooks/retention.ts); 0 keeps it forever. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /** Hours a finished background job stays in pg-boss's job table before it is archived. */
  JOB_ARCHIVE_AFTER_HOURS: z.coerce.number().int().min(1).default(12),
  /** Days an archived background job is kept before pg-boss deletes it. */
  JOB_RETENTION_DAYS: z.coerce.number().int().min(1).default(7),
  /**
   * Seconds a webhook job may stay taken before it counts as abandoned (its process died) and is
   * handed out again; pg-boss looks for such jobs every half of it (at most every 120 s). Longer
   * than a delivery attempt (15 s) with room to record it.
   */
  JOB_EXPIRE_SECONDS: z.coerce.number().int().min(30).max(3600).default(120),
  ALLOW_PRIVATE_TARGETS: bool.default(false),
  /** Knowledge bases (issue 29): an optional OpenAI-compatible /v1/embeddings server for hybrid search. */
  EMBEDDINGS_BASE_URL: z.string().url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  /** Largest knowledge-base upload (PDF, DOCX, TXT), in megabytes. */
  KNOWLEDGE_MAX_DOCUMENT_MB: z.coerce.number().positive().max(200).default(20),
  LLM_BASE_URL: z.string().url().optional(),
  LLM_API_KEY: z.string().optional(),
  /** Speech-to-text: Deepgram live when its key is set (src/providers/stt/deepgram). */
  DEEPGRAM_API_KEY: z.string().optional(),
  DEEPGRAM_URL: z.string().url().default('wss://api.deepgram.com/v1/listen'),
  /**
   * Deepgram model: unset = nova-3 on live /v1/listen; a Flux model (`flux-general-en`, any name
   * starting with `flux`) selects the Flux protocol on /v2/listen (DEEPGRAM_URL's /v1/listen path becomes /v2/listen).
   */
  DEEPGRAM_MODEL: z.string().trim().min(1).optional(),
  /**
   * A Smart Turn v3 ONNX file (pipecat-ai/smart-turn-v3 on Hugging Face, BSD-2-Clause; the operator
   * downloads it, nothing is fetched at run time): an audio signal for the end of the caller's turn.
   * Unset: no audio turn model.
   */
  TURN_MODEL_PATH: z.string().trim().min(1).optional(),
  /** Speech-to-text: an OpenAI-compatible /v1/audio/transcriptions server, used when there is no Deepgram key. */
  STT_BASE_URL: z.string().url().optional(),
  STT_API_KEY: z.string().optional(),
  STT_MODEL: z.string().default('whisper-1'),
  /** Text-to-speech: ElevenLabs stream-input, for voices whose provider is `elevenlabs`. */
  ELEVENLABS_API_KEY: z.string().optional(),
  ELEVENLABS_URL: z.string().url().default('wss://api.elevenlabs.io'),
  ELEVENLABS_MODEL: z.string().default('eleven_flash_v2_5'),
  /** Text-to-speech: an OpenAI-compatible /v1/audio/speech server, for voices whose provider is `openai`. */
  TTS_BASE_URL: z.string().url().optional(),
  TTS_API_KEY: z.string().optional(),
  TTS_MODEL: z.string().default('tts-1'),
  /** Speech-to-speech (mode multimodal): an OpenAI Realtime WebSocket endpoint. */
  REALTIME_URL: z.string().url().optional(),
  REALTIME_API_KEY: z.string().optional(),
  /** The embeddable widget: calls per minute one widget key may start, and one visitor (IP address) per key. */
  WIDGET_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  WIDGET_CALLS_PER_VISITOR_PER_MINUTE: z.coerce.number().int().min(1).default(5),
  /** Widget calls one visitor address may have at once per key (waiting for their page or connected). */
  WIDGET_CALLS_PER_ADDRESS: z.coerce.number().int().min(1).default(2),
  /** Percent of the owner's max_calls_in_parallel one widget key's calls may hold (at least one call). */
  WIDGET_KEY_SHARE: z.coerce.number().int().min(1).max(100).default(50),
  /** Recordings (issue 16): a folder, or an S3-compatible bucket when all four S3 settings are set. */
  RECORDINGS_DIR: z.string().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  /** How long a recording link handed out with a call record or a webhook stays valid. */
  RECORDING_LINK_TTL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /** Twilio (issue 16): the deployment's own account, used for users without their own; the API base is configurable so tests reach a double. */
  TWILIO_ACCOUNT_SID: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'an account SID: AC followed by 32 hex digits').optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_API_URL: z.string().url().default('https://api.twilio.com'),
  /** `production` (set by the Docker image) turns some start-up warnings into errors (a plain-http PUBLIC_BASE_URL with Twilio numbers). */
  NODE_ENV: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A bearer token that may read /metrics (besides the admin token), for a Prometheus scraper. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** OpenTelemetry traces over OTLP/HTTP to `<endpoint>/v1/traces` when set (src/observability/tracing.ts). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** `k=v,k2=v2` headers of every trace export (e.g. a vendor's API key). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().default('switchboard'),
  /** `auto`: pino-pretty lines when stdout is a terminal, JSON lines otherwise (src/logger.ts). */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  CARRIER_COST_PER_MINUTE: z.coerce.number().min(0).default(0.014),
  PLATFORM_COST_PER_MINUTE: z.coerce.number().min(0).default(0.05),
});

export type Env = z.infer<typeof envSchema>;

/** The names of every setting, for the README/.env.example consistency test and `doctor`. */
export const SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface Config extends Env {
  publicBaseUrl: string;
  publicAppUrl: string;
}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws a ConfigError naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const local = `http://localhost:${e.PORT}`;
  return {
    ...e,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? local).replace(/\/+$/, ''),
    publicAppUrl: (e.PUBLIC_APP_URL ?? local).replace(/\/+$/, ''),
  };
}
