/**
 * Starts a page's first request while its code is still loading: a route's `loader` (which
 * React Router runs in parallel with the route's lazy import) puts the request's promise
 * here, and the page takes it instead of asking again. A promise is taken once, so a later
 * reload of the page fetches fresh data.
 */
import { clientFor, loadSession, unwrap } from './api';

const pending = new Map<string, { promise: Promise<unknown>; at: number }>();
/** A prefetch no page took within this time (the page was already showing that data) is dropped. */
const FRESH_MS = 5000;

export function takePrefetched<T>(key: string): Promise<T> | undefined {
  const entry = pending.get(key);
  pending.delete(key);
  return entry && Date.now() - entry.at < FRESH_MS ? (entry.promise as Promise<T>) : undefined;
}

/** The call list's query as the page sends it, from the page's own URL parameters. */
export function callListQuery(params: URLSearchParams): Record<string, string> {
  const query: Record<string, string> = { page: params.get('page') ?? '1', per_page: '15' };
  for (const k of ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to', 'sort']) {
    const v = params.get(k);
    if (v) query[k] = v;
  }
  return query;
}

export const callListKey = (query: Record<string, string>) => `calls?${new URLSearchParams(query).toString()}`;

/** Route loader of /calls: begins fetching the list's page; never blocks the navigation. */
export function prefetchCallList({ request }: { request: Request }): null {
  const session = loadSession();
  if (session?.role === 'user') {
    const query = callListQuery(new URL(request.url).searchParams);
    const promise = unwrap(clientFor(session.token).GET('/api/user/calls', { params: { query: query as never } }));
    promise.catch(() => undefined); // the page reports errors when it takes the promise
    pending.set(callListKey(query), { promise, at: Date.now() });
  }
  return null;
}
