import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import { languages, llmModels, phoneNumbers, voices } from '../../db/schema.js';
import type { PhoneNumberRow } from './serializers.js';

/** A number is assigned while a live inbound assistant holds it (CONTRACT §2). */
// Written out in full: Drizzle renders columns unqualified inside a raw sub-select.
const assignedExpr = sql<boolean>`exists (
  select 1 from "assistants" a
  where a."phone_number_id" = "phone_numbers"."id" and a."type" = 'inbound' and a."deleted_at" is null)`;

export async function listPhoneNumbers(db: Db, userId: number, type?: 'inbound' | 'outbound'): Promise<PhoneNumberRow[]> {
  const rows = await db
    .select({
      id: phoneNumbers.id,
      phoneNumber: phoneNumbers.phoneNumber,
      countryCode: phoneNumbers.countryCode,
      typeLabel: phoneNumbers.typeLabel,
      assigned: assignedExpr,
    })
    .from(phoneNumbers)
    .where(eq(phoneNumbers.userId, userId))
    .orderBy(asc(phoneNumbers.id));
  if (type === 'inbound') return rows.filter((r) => !r.assigned && r.typeLabel !== 'Caller ID');
  return rows;
}

/** Public voices and the caller's own, optionally of one mode. */
export async function listVoices(db: Db, userId: number, mode?: string) {
  return db
    .select({ id: voices.id, name: voices.name, mode: voices.mode })
    .from(voices)
    .where(and(or(isNull(voices.userId), eq(voices.userId, userId)), mode ? eq(voices.mode, mode) : undefined))
    .orderBy(asc(voices.id));
}

// Languages and models change only with a migration (there is no API that writes them), so
// each process reads them once per database.
const modelCache = new WeakMap<Db, Promise<{ id: number; name: string }[]>>();
const languageCache = new WeakMap<Db, Promise<{ id: number; name: string; iso_2: string }[]>>();

function cached<T>(cache: WeakMap<Db, Promise<T>>, db: Db, load: () => Promise<T>): Promise<T> {
  let hit = cache.get(db);
  if (!hit) {
    // Drizzle queries are thenables that run again on every await: settle one real promise.
    hit = (async () => load())();
    hit.catch(() => cache.delete(db));
    cache.set(db, hit);
  }
  return hit;
}

export function listModels(db: Db) {
  return cached(modelCache, db, () => db.select({ id: llmModels.id, name: llmModels.name }).from(llmModels).orderBy(asc(llmModels.id)));
}

export function listLanguages(db: Db) {
  return cached(languageCache, db, () =>
    db.select({ id: languages.id, name: languages.name, iso_2: languages.iso2 }).from(languages).orderBy(asc(languages.id)),
  );
}
