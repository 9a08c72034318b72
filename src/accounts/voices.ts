/** Voices assistants can use: public ones (no user) and private ones of a single user. */
import { asc, eq, isNull, or } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { voices } from '../db/schema.js';
import { SYNTHESIZER_PROVIDERS } from '../providers/catalog.js';
import { AccountError } from './errors.js';
import { requireUser } from './users.js';

export const VOICE_MODES = ['pipeline', 'multimodal'] as const;
export type VoiceMode = (typeof VOICE_MODES)[number];

/** Who can speak a voice: the speech synthesizers Switchboard has adapters for. */
export const VOICE_PROVIDERS = SYNTHESIZER_PROVIDERS.map((p) => p.code);

/** Why `provider` cannot speak a voice (a message naming the known ones), or null when it can. */
export function voiceProviderProblem(provider: string): string | null {
  if (VOICE_PROVIDERS.includes(provider)) return null;
  return `Unknown voice provider ${JSON.stringify(provider)}: use one of ${VOICE_PROVIDERS.join(', ')}.`;
}

export interface VoiceSummary {
  id: number;
  name: string;
  mode: string;
  /** null = public. */
  userId: number | null;
  /** Who speaks it (`local`, `elevenlabs`, `openai`, …) and that provider's own voice id (null = its default). */
  provider: string;
  providerVoiceId: string | null;
}

export interface NewVoice {
  name: string;
  mode: VoiceMode;
  userId?: number | null;
  /** Default: `local`. */
  provider?: string;
  providerVoiceId?: string | null;
}

const columns = { id: voices.id, name: voices.name, mode: voices.mode, userId: voices.userId, provider: voices.provider, providerVoiceId: voices.providerVoiceId };

export async function addVoice(db: Db, input: NewVoice): Promise<VoiceSummary> {
  const userId = input.userId ?? null;
  const problem = voiceProviderProblem(input.provider ?? 'local');
  if (problem) throw new AccountError('unknown-provider', problem);
  if (userId !== null) await requireUser(db, userId);
  const [row] = await db
    .insert(voices)
    .values({ name: input.name, mode: input.mode, userId, provider: input.provider, providerVoiceId: input.providerVoiceId ?? null })
    .returning(columns);
  return row;
}

/** Every voice, or those a user may use (public + own), in id order. */
export async function listVoices(db: Db, opts: { userId?: number } = {}): Promise<VoiceSummary[]> {
  return db
    .select(columns)
    .from(voices)
    .where(opts.userId === undefined ? undefined : or(isNull(voices.userId), eq(voices.userId, opts.userId)))
    .orderBy(asc(voices.id));
}
