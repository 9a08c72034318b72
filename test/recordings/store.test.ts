/**
 * Recording stores: the folder, and an S3-compatible bucket served by s3rver (a local server
 * speaking the S3 REST protocol; its account is S3RVER/S3RVER).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeWav } from '../../src/audio/wav.js';
import { FileRecordingStore, readAll, recordingStoreFor, S3RecordingStore, type RecordingStore } from '../../src/recordings/store.js';

function sampleWav(seconds: number): Buffer {
  const left = new Int16Array(8000 * seconds);
  const right = new Int16Array(8000 * seconds);
  for (let i = 0; i < left.length; i++) {
    left[i] = Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000));
    right[i] = Math.round(6000 * Math.sin((2 * Math.PI * 660 * i) / 8000));
  }
  return writeWav(8000, left, right);
}

function behavesAsAStore(name: string, make: () => RecordingStore) {
  describe(name, () => {
    it('saves, opens whole, replaces and deletes a recording; a missing one is null', async () => {
      const store = make();
      const wav = sampleWav(2);
      await store.save(41, wav);
      const opened = await store.open(41);
      expect(opened?.size).toBe(wav.length);
      expect((await readAll(opened!.body)).equals(wav)).toBe(true);

      const shorter = sampleWav(1);
      await store.save(41, shorter);
      expect((await readAll((await store.open(41))!.body)).equals(shorter)).toBe(true);

      expect(await store.open(42)).toBeNull();
      await store.delete(41);
      expect(await store.open(41)).toBeNull();
      await store.delete(41); // deleting what is gone is no error
    });

    it('refuses a call id that cannot name a file', async () => {
      const store = make();
      await expect(store.save(0, sampleWav(1))).rejects.toThrow(RangeError);
      await expect(store.open(-1)).rejects.toThrow(RangeError);
    });
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-recordings-'));
behavesAsAStore('FileRecordingStore', () => new FileRecordingStore(path.join(dir, 'nested', 'recordings')));

describe('S3', () => {
  let server: S3rver;
  let endpoint = '';
  const s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-s3rver-'));

  beforeAll(async () => {
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: 'calls', configs: [] }] });
    const address = (await server.run()) as AddressInfo;
    endpoint = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    await server.close();
    fs.rmSync(s3dir, { recursive: true, force: true });
  });

  const s3 = () => new S3RecordingStore({ endpoint, bucket: 'calls', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1' });
  behavesAsAStore('S3RecordingStore', s3);

  it('stores objects under recordings/ in the bucket', async () => {
    await s3().save(7, sampleWav(1));
    const objects = fs.readdirSync(path.join(s3dir, 'calls', 'recordings'));
    expect(objects.some((f) => f.startsWith('7.wav'))).toBe(true);
  });

  it('fails loudly with credentials the store does not know', async () => {
    // s3rver checks the access key but does not compute SigV4 signatures, so a wrong secret would pass here.
    const wrong = new S3RecordingStore({ endpoint, bucket: 'calls', accessKeyId: 'NOBODY', secretAccessKey: 'S3RVER', region: 'us-east-1' });
    await expect(wrong.save(8, sampleWav(1))).rejects.toThrow();
  });

  it('is chosen when all four S3 settings are present', () => {
    const config = { DATA_DIR: dir, S3_REGION: 'us-east-1' };
    expect(recordingStoreFor(config)).toBeInstanceOf(FileRecordingStore);
    expect(recordingStoreFor({ ...config, S3_ENDPOINT: endpoint, S3_BUCKET: 'calls', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' })).toBeInstanceOf(S3RecordingStore);
  });
});
