/**
 * Records a provider stream's events (STT, TTS, realtime) for tests: `emit` is the callback to
 * hand the adapter, `events` what came, `next(pred)` the first event matching (already seen or
 * yet to come; rejects with what did come after `timeoutMs`).
 */
export interface EventRecorder<E extends { type: string }> {
  events: E[];
  emit: (event: E) => void;
  next(pred: (event: E) => boolean, timeoutMs?: number): Promise<E>;
  /** The first event of a type. */
  until(type: E['type'], timeoutMs?: number): Promise<E>;
}

export function recordEvents<E extends { type: string }>(): EventRecorder<E> {
  const events: E[] = [];
  let waiters: { pred: (e: E) => boolean; resolve: (e: E) => void }[] = [];
  const next = (pred: (e: E) => boolean, timeoutMs = 5000) =>
    new Promise<E>((resolve, reject) => {
      const seen = events.find(pred);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => reject(new Error(`no such event; got ${JSON.stringify(events.map((e) => e.type))}`)), timeoutMs);
      waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  return {
    events,
    emit: (event) => {
      events.push(event);
      const due = waiters.filter((w) => w.pred(event));
      waiters = waiters.filter((w) => !due.includes(w));
      for (const w of due) w.resolve(event);
    },
    next,
    until: (type, timeoutMs) => next((e) => e.type === type, timeoutMs),
  };
}
