import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const seconds = z
  .string()
  .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'a comma-separated list of seconds, e.g. 5,300,1800')
  .transform((v) => v.split(',').map(Number));

/*
 * Every setting, in groups, each with the sentence the configuration reference shows
 * (docs/configuration.md is generated from these by scripts/config-reference.ts; a test keeps
 * it in step). A description says what the setting does and what "unset" means.
 */

const server = {
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('TCP port the HTTP server listens on.'),
  HOST: z.string().default('0.0.0.0').describe('Address the HTTP server listens on.'),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'The address carriers and callers reach the service at, for links, callbacks and media streams (unset: `http://localhost:PORT`). Twilio needs an `https://` address it can reach.',
    ),
  PUBLIC_APP_URL: z.string().url().optional().describe('The address of the dashboard, for links to it (unset: `http://localhost:PORT`).'),
  /** `production` (set by the Docker image) turns some start-up warnings into errors. */
  NODE_ENV: z
    .string()
    .optional()
    .describe(
      '`production` (the Docker image sets it): a plain-http `PUBLIC_BASE_URL` while Twilio numbers exist stops the start (Twilio refuses plain-http media streams) instead of only warning, as on a laptop with a tunnel.',
    ),
};

const database = {
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe('An external PostgreSQL (`postgres://user:password@host:5432/db`). Unset: the embedded PostgreSQL, with its data under `DATA_DIR`.'),
  DATA_DIR: z.string().default('./data').describe("The embedded PostgreSQL's data, the generated `secret.key`, and recordings unless `RECORDINGS_DIR` or S3 is set. One running process per folder."),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0).describe('Port of the embedded PostgreSQL; 0: a free port.'),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe(
      'Bearer token of the admin API (at least 16 characters); when set it is the only admin token. Unset: the token generated on the first embedded start, or made by `npx switchboard admin-token rotate`.',
    ),
  /** Encrypts stored credentials and signs expiring links (src/lib/secrets.ts); the same on every instance. */
  SECRET_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'At least 32 characters; encrypts stored credentials (provider keys, Twilio credentials) and signs recording links. Set the same value on every instance and keep it. Unset: generated into `DATA_DIR/secret.key` on the embedded database; needed with `DATABASE_URL` to store credentials.',
    ),
};

const limits = {
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(300).describe('API requests per minute per token; 0: no limit.'),
  /** Seconds a client may take to send a whole request (headers and body); slowloris guard. */
  HTTP_REQUEST_TIMEOUT: z.coerce
    .number()
    .positive()
    .max(3600)
    .default(30)
    .describe('Seconds a client may take to send a whole request (headers and body); slower clients get 408 and are disconnected.'),
  HTTP_HEADERS_TIMEOUT: z.coerce.number().positive().max(3600).default(10).describe('Seconds a client may take to send the request headers.'),
  WS_START_TIMEOUT: z.coerce
    .number()
    .positive()
    .max(300)
    .default(5)
    .describe("Seconds a WebSocket (Twilio media stream, browser or widget call) has to prove itself (Twilio's `start`, the browser's token); then it is closed."),
  WS_HEARTBEAT_INTERVAL: z.coerce
    .number()
    .positive()
    .max(3600)
    .default(20)
    .describe('Seconds between pings of every WebSocket; one that answered no ping by the next is dropped.'),
  WS_PENDING_MAX: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("WebSockets not yet proven one process holds at most (more are answered 503 with Retry-After); 0: a quarter of the process's file-descriptor limit, 16–1000."),
  WS_PENDING_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(0)
    .default(64)
    .describe('The same per remote address; 0: no per-address cap (set 0 behind a proxy that hides client addresses).'),
  /** Seconds live calls may go on after SIGTERM/SIGINT before the rest are ended (src/service.ts). */
  SHUTDOWN_GRACE_SECONDS: z.coerce
    .number()
    .min(0)
    .max(3600)
    .default(30)
    .describe(
      'On SIGTERM or Ctrl-C, seconds live calls may go on (no new calls or campaign dialling meanwhile; `make_call` answers 503) before the rest are ended with the reason "the service shut down"; their post-call processing and webhooks still run before the process exits. A second Ctrl-C ends the live calls at once.',
    ),
};

const calls = {
  DEFAULT_PHONE_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, 'a two-letter region code such as DE')
    .default('DE')
    .describe('Region (two letters) for phone numbers written in national format, e.g. `0151 23456789`.'),
  SANDBOX_TIME_SCALE: z.coerce
    .number()
    .min(0)
    .default(1)
    .describe(
      "Multiplies the sandbox carrier's delays; 0: instant. At 1 or more the sandbox speaks real audio through the voice engine (its customer with the local voice); below 1 it converses in text.",
    ),
  ALLOW_PRIVATE_TARGETS: bool
    .default(false)
    .describe("Lets mid-call tools, webhooks, knowledge-base crawls and users' own LLM base URLs call loopback and private-network addresses (refused by default, so a user cannot make the service reach your internal network)."),
  CARRIER_COST_PER_MINUTE: z.coerce.number().min(0).default(0.014).describe("Per-minute rate behind a call's `carrier_cost` when the carrier reports no price."),
  PLATFORM_COST_PER_MINUTE: z.coerce.number().min(0).default(0.05).describe("Per-minute rate added into a call's `total_cost`."),
  COST_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'a three-letter currency code such as USD')
    .default('USD')
    .describe("The currency of the costs above and of Twilio's prices (ISO 4217, e.g. `EUR`): how the dashboard shows a call's cost. Nothing is converted."),
};

const llm = {
  LLM_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('An OpenAI-compatible chat-completions server, base URL ending in `/v1` (see [connecting providers](providers.md#language-model)). Unset: the offline stand-in.'),
  LLM_API_KEY: z.string().optional().describe('Bearer key for `LLM_BASE_URL`.'),
  /** Knowledge bases: an optional OpenAI-compatible /v1/embeddings server for hybrid search. */
  EMBEDDINGS_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('Knowledge bases: an OpenAI-compatible `/v1/embeddings` server; search then ranks by full text and embeddings together. Unset: full-text search only.'),
  EMBEDDINGS_API_KEY: z.string().optional().describe('Bearer key for `EMBEDDINGS_BASE_URL`.'),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small').describe('The embeddings model.'),
  KNOWLEDGE_MAX_DOCUMENT_MB: z.coerce.number().positive().max(200).default(20).describe('Largest knowledge-base upload (PDF, DOCX, TXT), in MB.'),
};

const speech = {
  DEEPGRAM_API_KEY: z
    .string()
    .optional()
    .describe('Deepgram live speech-to-text. Speech-to-text is Deepgram when this is set, else the `STT_BASE_URL` server, else none (typed and sandbox conversations only).'),
  DEEPGRAM_URL: z.string().url().default('wss://api.deepgram.com/v1/listen').describe("Deepgram's live endpoint."),
  DEEPGRAM_MODEL: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      "The Deepgram model (unset: `nova-3`). A Flux model (any name starting with `flux`, e.g. `flux-general-en`) switches to Deepgram Flux on `/v2/listen`, which detects the end of the caller's turn itself.",
    ),
  TURN_MODEL_PATH: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe(
      "A Smart Turn v3 ONNX file (`smart-turn-v3.2-cpu.onnx` from Hugging Face `pipecat-ai/smart-turn-v3`, BSD-2-Clause; you download it): an audio model that hears whether the caller sounds finished. A file that does not load stops the start. Unset: none (see [voice settings](voice-settings.md)).",
    ),
  STT_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('An OpenAI-compatible `/v1/audio/transcriptions` server (OpenAI, whisper.cpp server, speaches, LocalAI), base with or without `/v1`; used when `DEEPGRAM_API_KEY` is unset.'),
  STT_API_KEY: z.string().optional().describe('Bearer key for `STT_BASE_URL`.'),
  STT_MODEL: z.string().default('whisper-1').describe('The transcription model.'),
  ELEVENLABS_API_KEY: z.string().optional().describe('ElevenLabs text-to-speech, for voices whose provider is `elevenlabs`.'),
  ELEVENLABS_URL: z.string().url().default('wss://api.elevenlabs.io').describe("ElevenLabs' WebSocket base."),
  ELEVENLABS_MODEL: z.string().default('eleven_flash_v2_5').describe('The ElevenLabs model.'),
  TTS_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('An OpenAI-compatible `/v1/audio/speech` server (OpenAI, Kokoro-FastAPI, openedai-speech, LocalAI), for voices whose provider is `openai`; base with or without `/v1`.'),
  TTS_API_KEY: z.string().optional().describe('Bearer key for `TTS_BASE_URL`.'),
  TTS_MODEL: z.string().default('tts-1').describe('The speech model.'),
  REALTIME_URL: z
    .string()
    .url()
    .optional()
    .describe('A speech-to-speech server speaking the OpenAI Realtime protocol (e.g. `wss://api.openai.com/v1/realtime?model=gpt-realtime`), for assistants in `mode: multimodal`.'),
  REALTIME_API_KEY: z.string().optional().describe('Bearer key for `REALTIME_URL`.'),
  OPENAI_API_URL: z
    .string()
    .url()
    .default('https://api.openai.com/v1')
    .describe(
      "OpenAI's own API base, with `/v1`: where a user's own OpenAI key (Provider keys in the dashboard) is sent for speech-to-text, text-to-speech and speech-to-speech (`/realtime` on the same host) and tested (`GET /models`), and a user's own LLM key when it names no base URL. Change it only to point at a stand-in.",
    ),
};

const telephony = {
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'an account SID: AC followed by 32 hex digits')
    .optional()
    .describe("The deployment's Twilio account, for users who stored none of their own (see [Twilio](twilio.md))."),
  TWILIO_AUTH_TOKEN: z.string().optional().describe("That account's auth token; it also verifies Twilio's signed callbacks."),
  TWILIO_API_URL: z.string().url().default('https://api.twilio.com').describe("Twilio's REST API base (tests point it at a local stand-in)."),
};

const recordings = {
  RECORDINGS_DIR: z
    .string()
    .optional()
    .describe('Folder for call recordings (one `<call id>.wav` each) when no S3 bucket is set. Unset: `DATA_DIR/recordings`. With several instances use S3 (or one shared folder).'),
  S3_ENDPOINT: z.string().url().optional().describe('An S3-compatible store (AWS S3, MinIO, …) for recordings; used when it and the next three are set.'),
  S3_BUCKET: z.string().optional().describe('The bucket recordings go to.'),
  S3_ACCESS_KEY_ID: z.string().optional().describe('Access key of the bucket.'),
  S3_SECRET_ACCESS_KEY: z.string().optional().describe('Secret key of the bucket.'),
  S3_REGION: z.string().default('us-east-1').describe('Region of the bucket.'),
  RECORDING_LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(86_400)
    .describe('How long a `recording_url` handed out with a call record or a webhook stays valid, in seconds (at least 60).'),
};

const webhooks = {
  WEBHOOK_RETRY_SCHEDULE: seconds.default([5, 300, 1800, 7200, 18000, 36000, 36000]).describe('Seconds between webhook delivery attempts.'),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30)
    .describe('Days the delivery log of a finished webhook message (delivered, stopped or given up) is kept; pruned hourly; 0: forever.'),
  JOB_ARCHIVE_AFTER_HOURS: z.coerce.number().int().min(1).default(12).describe('Hours a finished background job stays in the job table before it is archived.'),
  JOB_RETENTION_DAYS: z.coerce.number().int().min(1).default(7).describe('Days an archived background job is kept before it is deleted.'),
  /** Longer than a delivery attempt (15 s) with room to record it. */
  JOB_EXPIRE_SECONDS: z.coerce
    .number()
    .int()
    .min(30)
    .max(3600)
    .default(120)
    .describe('Seconds a webhook job may stay taken before it counts as abandoned (its instance died) and is handed out again; set when the queues are first created.'),
};

const widget = {
  WIDGET_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(60).describe('Calls one website-widget key may start per minute.'),
  WIDGET_CALLS_PER_VISITOR_PER_MINUTE: z.coerce.number().int().min(1).default(5).describe('Calls one visitor (IP address) may start per minute per key.'),
  WIDGET_CALLS_PER_ADDRESS: z.coerce.number().int().min(1).default(2).describe('Widget calls one visitor address may have at once per key.'),
  WIDGET_KEY_SHARE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .describe("Percent of the owner's `max_calls_in_parallel` one widget key's calls may hold at once (at least one call)."),
};

const observability = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('How much the service logs: `info` by default, `debug` and `trace` for more, `silent` for nothing.'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe('`auto`: readable lines when stdout is a terminal, one JSON object per line otherwise; `json` or `pretty` forces one.'),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('A bearer token (at least 16 characters) that may read `/metrics`, so a Prometheus scraper needs no admin token; the admin token always may.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe('An OpenTelemetry collector (OTLP/HTTP): spans go to `<url>/v1/traces`, one per HTTP request, per call and per turn stage. Unset: no tracing.'),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional().describe("`k=v,k2=v2` headers sent with every export (a vendor's key)."),
  OTEL_SERVICE_NAME: z.string().default('switchboard').describe('The `service.name` of the spans.'),
};

/** The groups in the order the configuration reference shows them. */
export const SETTING_GROUPS = [
  { title: 'Server and public addresses', settings: server },
  { title: 'Database and secrets', settings: database },
  { title: 'Requests, connections and shutdown', settings: limits },
  { title: 'Calls and costs', settings: calls },
  { title: 'Language model and knowledge bases', settings: llm },
  { title: 'Speech', settings: speech },
  { title: 'Twilio', settings: telephony },
  { title: 'Recordings', settings: recordings },
  { title: 'Webhooks and background jobs', settings: webhooks },
  { title: 'Website widget', settings: widget },
  { title: 'Logs, metrics and traces', settings: observability },
] as const;

const envSchema = z.object({
  ...server,
  ...database,
  ...limits,
  ...calls,
  ...llm,
  ...speech,
  ...telephony,
  ...recordings,
  ...webhooks,
  ...widget,
  ...observability,
});

export type Env = z.infer<typeof envSchema>;

/** The names of every setting, for the configuration reference, the .env.example consistency test and `doctor`. */
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
