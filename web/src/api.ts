/**
 * The dashboard's access to the service: the project's own typed client (packages/client),
 * the signed-in token (in this tab's sessionStorage, gone when the tab closes; with "keep me signed
 * in" in localStorage, shared by the browser's tabs until signing out), and the
 * error shape every page shows — the service's own message and per-field messages.
 */
import { createSwitchboardClient, type components, type paths, type SwitchboardClient } from '../../packages/client/src/index';

export type { components, paths };

export type Role = 'user' | 'admin';
export interface Session {
  token: string;
  role: Role;
  /** The user's name, or "Administrator". */
  name: string;
  /** Kept for this browser's other tabs and later visits ("keep me signed in"), not only this tab. */
  remember?: boolean;
}

export const STORAGE_KEY = 'switchboard.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY) ?? localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  // Signing out (or in again) clears both places, so no other tab keeps a session that ended.
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
  if (session) (session.remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clientFor(token: string): SwitchboardClient {
  // The header names the dashboard as the client of a change (assistant versions show it).
  return createSwitchboardClient({ baseUrl: window.location.origin, token, headers: { 'x-switchboard-client': 'dashboard' } });
}

/** An answer other than 2xx: the service's message, its field errors (422) and the status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer, or an ApiError carrying the service's own words. */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let res: FetchResult<T>;
  try {
    res = await request;
  } catch (err) {
    throw new ApiError(0, `The service could not be reached (${(err as Error).message}).`);
  }
  if (res.response.ok) return res.data as T;
  const body = (res.error ?? {}) as { message?: unknown; errors?: unknown };
  const message = typeof body.message === 'string' ? body.message : `Request failed with status ${res.response.status}.`;
  const errors = body.errors && typeof body.errors === 'object' ? (body.errors as Record<string, string[]>) : {};
  throw new ApiError(res.response.status, message, errors);
}

/** Which kind of token this is: a user's (GET /api/user/me works) or the admin token. */
export async function identify(token: string): Promise<Session> {
  const api = clientFor(token);
  const me = await api.GET('/api/user/me');
  if (me.response.ok && me.data) return { token, role: 'user', name: me.data.name };
  const admin = await api.GET('/api/admin/users', { params: { query: { per_page: '1' } } });
  if (admin.response.ok) return { token, role: 'admin', name: 'Administrator' };
  if (me.response.status === 401 && admin.response.status >= 400 && admin.response.status < 500) throw new ApiError(401, 'This token is not valid: check it and try again.');
  throw new ApiError(me.response.status, 'The service could not check the token; try again.');
}
