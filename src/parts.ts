/**
 * What a long-running part of the process (call engine, dialer, webhook delivery, …) looks
 * like to the composition root. Part modules export a factory and do nothing at import time;
 * `src/compose.ts` lists the parts of a full process and `src/service.ts` starts the ones it
 * is given, in order.
 */
import type { AppContext, Services } from './context.js';

export interface BackgroundPart {
  name: string;
  /**
   * Service objects the part offers to the rest of the process (routes, later parts). The
   * composition root installs them into `ctx.services` before it starts the part.
   */
  provides?: Partial<Services>;
  start(): Promise<void>;
  /**
   * Shutdown, step 1 (every part at once): take no new work — no new
   * calls, no dialer claims. The part keeps serving the work it has.
   */
  quiesce?(): Promise<void>;
  /**
   * Shutdown, step 2 (in start order, after every part quiesced): finish the work in flight,
   * bounded — live calls within the grace period, then their events and webhooks.
   */
  drain?(): Promise<void>;
  /** Shutdown: cut step 2 short (a second Ctrl-C): end the work in flight now, with its reason. */
  hurry?(): void;
  /** Shutdown, step 3 (reverse start order): stop; let what is left finish (bounded). */
  stop(): Promise<void>;
}

/** Builds a part for this process; null when the process lacks what the part needs. */
export type PartFactory = (ctx: AppContext) => BackgroundPart | null;
