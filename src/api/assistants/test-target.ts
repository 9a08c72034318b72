/**
 * What an assistant test runs against, as changes applied in memory to the stored assistant
 * (src/assistant-tests/assistant.ts): an earlier version's saved fields and/or unsaved edits
 * (`assistant_overrides`, the fields of the update request). Both go through the update's own
 * checks (normalize + resolve, read-only), so a test of an edit refuses what saving it would
 * refuse, with the same 422; nothing is written and the assistant's version does not move.
 */
import type { Db } from '../../db/pool.js';
import type { CredentialSealer } from '../../lib/secrets.js';
import type { AssistantChanges } from '../../assistant-tests/assistant.js';
import { notFound } from '../toolkit/errors.js';
import { parseOrThrow } from '../toolkit/validation.js';
import { foldEndCallTool, normalize, prepareBody } from './aliases.js';
import { updateAssistantBody } from './schemas.js';
import { findAssistant, referencesOf, resolve, VALIDATION_FAILED } from './service.js';
import { findVersion, updateRequestOf, versionBuiltins, versionRecord } from './versions.js';
import { VERSION_NOT_FOUND } from './version-routes.js';

export interface TestTarget {
  /** An earlier version to run (assistant_versions.number); absent: the current one. */
  version?: number | null;
  /** Unsaved changes: fields of the update request, on top of the version. */
  overrides?: Record<string, unknown> | null;
}

/**
 * The changes a test of `target` runs with; null when the assistant is not the user's. Throws
 * 404 "Version not found" for a version it does not have and a 422 (ValidationError) for
 * overrides the update would refuse.
 */
export async function testTargetChanges(db: Db, userId: number, assistantId: number, target: TestTarget, sealer: Pick<CredentialSealer, 'seal'>): Promise<AssistantChanges | null> {
  const current = await findAssistant(db, userId, assistantId);
  if (!current) return null;
  const hasOverrides = target.overrides != null && Object.keys(target.overrides).length > 0;
  if (target.version == null && !hasOverrides) return {};
  let body: Record<string, unknown> = {};
  let known = current.builtinTools;
  if (target.version != null) {
    const version = await findVersion(db, assistantId, target.version);
    if (!version) throw notFound(VERSION_NOT_FOUND);
    body = updateRequestOf(versionRecord(version));
    known = [...known, ...versionBuiltins(version)];
  }
  if (hasOverrides) body = { ...body, ...prepareBody(target.overrides, VALIDATION_FAILED) };
  const parsed = parseOrThrow(updateAssistantBody, foldEndCallTool(prepareBody(body, VALIDATION_FAILED), VALIDATION_FAILED), VALIDATION_FAILED);
  const { patch, toolIds } = await resolve(db, userId, normalize(parsed), { ...current, builtinTools: known }, { refs: await referencesOf(db), sealer });
  return { patch, ...(toolIds ? { toolIds } : {}), ...(target.version != null && !hasOverrides ? { version: target.version } : {}) };
}
