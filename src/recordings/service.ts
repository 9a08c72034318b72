/** The recording links of a process, from its configuration (null without a deployment key). */
import { purposeKey } from '../lib/secrets.js';
import { RecordingLinks } from './links.js';

export interface RecordingLinkConfig {
  SECRET_KEY?: string;
  DATABASE_URL?: string;
  DATA_DIR: string;
  publicBaseUrl: string;
  RECORDING_LINK_TTL_SECONDS: number;
}

export function recordingLinksFor(config: RecordingLinkConfig): RecordingLinks | null {
  const key = purposeKey(config, 'links');
  return key ? new RecordingLinks(config.publicBaseUrl, key, config.RECORDING_LINK_TTL_SECONDS) : null;
}
