import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on reload); keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setLoading(true);
    loadRef.current().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

/** Calls `fn` every `ms` while the page is open (and visible). */
export function useInterval(fn: () => void, ms: number | null): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (ms === null) return;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') ref.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

export interface Submit {
  busy: boolean;
  error: ApiError | null;
  /** Field errors of the last 422, keyed as the service keys them. */
  fieldErrors: Record<string, string[]>;
  run<T>(fn: () => Promise<T>): Promise<T | undefined>;
  clear(): void;
}

/** State of a form submission: busy flag, the service's message and field errors. */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, fieldErrors: error?.errors ?? {}, run, clear: () => setError(null) };
}
