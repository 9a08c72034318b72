/**
 * A typed client of the Switchboard API: every path, parameter, body and answer as the
 * service documents them at /openapi.json (src/schema.d.ts is generated from it).
 *
 *   const api = createSwitchboardClient({ baseUrl: 'http://localhost:8080', token: 'sb_…' });
 *   const { data, error } = await api.GET('/api/user/calls', { params: { query: { per_page: 50 } } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { paths, components } from './schema.js';
export type SwitchboardClient = Client<paths>;

export interface SwitchboardClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's address, e.g. `http://localhost:8080` (empty for the same origin). */
  baseUrl?: string;
  /** An API token (`sb_…`), or the admin token for `/api/admin/*`. */
  token?: string;
}

export function createSwitchboardClient(opts: SwitchboardClientOptions = {}): SwitchboardClient {
  const { token, headers, ...rest } = opts;
  return createClient<paths>({
    ...rest,
    baseUrl: opts.baseUrl ?? '',
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string> | undefined) },
  });
}
