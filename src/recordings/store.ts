/**
 * Where call recordings (WAV files) live: a folder (`RECORDINGS_DIR`, default
 * `DATA_DIR/recordings`) or any S3-compatible bucket (`S3_ENDPOINT`, `S3_BUCKET`, …).
 * A recording is named by its call's id; the call record only says that one exists, and the
 * service hands out signed, expiring links to it (links.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface StoredRecording {
  /** Bytes of the WAV file. */
  size: number;
  body: Readable;
}

export interface RecordingStore {
  /** Stores (or replaces) the recording of a call. */
  save(callId: number, wav: Buffer): Promise<void>;
  /** The recording, or null when there is none. */
  open(callId: number): Promise<StoredRecording | null>;
  /** Removes the recording; removing one that does not exist is not an error. */
  delete(callId: number): Promise<void>;
  /** Releases connections (the process is shutting down). */
  close(): void;
}

function fileName(callId: number): string {
  if (!Number.isSafeInteger(callId) || callId < 1) throw new RangeError(`not a call id: ${callId}`);
  return `${callId}.wav`;
}

/** Recordings as files in one folder; written to a temporary name and renamed, so a reader never sees half a file. */
export class FileRecordingStore implements RecordingStore {
  constructor(private readonly dir: string) {}

  async save(callId: number, wav: Buffer): Promise<void> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const target = path.join(this.dir, fileName(callId));
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.promises.writeFile(temporary, wav, { mode: 0o600 });
    await fs.promises.rename(temporary, target);
  }

  async open(callId: number): Promise<StoredRecording | null> {
    const file = path.join(this.dir, fileName(callId));
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { size } = await handle.stat();
    return { size, body: handle.createReadStream() };
  }

  async delete(callId: number): Promise<void> {
    await fs.promises.rm(path.join(this.dir, fileName(callId)), { force: true });
  }

  close(): void {
    // Files hold nothing open between calls.
  }
}

export interface S3Settings {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Object names start with this (default `recordings/`). */
  prefix?: string;
}

/**
 * Recordings as objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Backblaze,
 * Ceph …). Path-style addressing, because most S3-compatible stores need it and AWS accepts
 * it; checksums only where an operation requires one, because several S3-compatible stores
 * refuse the newer default trailing checksums.
 */
export class S3RecordingStore implements RecordingStore {
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.prefix = settings.prefix ?? 'recordings/';
  }

  private key(callId: number): string {
    return this.prefix + fileName(callId);
  }

  async save(callId: number, wav: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.key(callId), Body: wav, ContentType: 'audio/wav', ContentLength: wav.length }),
    );
  }

  async open(callId: number): Promise<StoredRecording | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(callId) }));
      if (!out.Body) return null;
      return { size: Number(out.ContentLength ?? 0), body: out.Body as Readable };
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) {
        return null;
      }
      throw err;
    }
  }

  async delete(callId: number): Promise<void> {
    // S3 answers a delete of a missing key with 204 as well.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(callId) }));
  }

  close(): void {
    this.client.destroy();
  }
}

export interface RecordingStoreConfig {
  DATA_DIR: string;
  RECORDINGS_DIR?: string;
  S3_ENDPOINT?: string;
  S3_BUCKET?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  S3_REGION: string;
}

/** The bucket when S3 is configured, else the folder. */
export function recordingStoreFor(config: RecordingStoreConfig): RecordingStore {
  if (config.S3_ENDPOINT && config.S3_BUCKET && config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY) {
    return new S3RecordingStore({
      endpoint: config.S3_ENDPOINT,
      bucket: config.S3_BUCKET,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      region: config.S3_REGION,
    });
  }
  return new FileRecordingStore(config.RECORDINGS_DIR ?? path.join(config.DATA_DIR, 'recordings'));
}

/** Reads a stored recording whole (tests, post-call). */
export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
