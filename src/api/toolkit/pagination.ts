/**
 * The Laravel LengthAwarePaginator envelope of spec 2.8 / CONTRACT §3, including its
 * windowed `links` (three pages each side of the current one, `...` for the gaps).
 */
import { z } from 'zod';
import { msg, v } from './validation.js';

export interface PageLink { url: string | null; label: string; active: boolean }

export interface Page<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

/** Query schema parts for `page` and `per_page`; query values arrive as strings. */
export function pageQuery(defaultPerPage: number) {
  const intString = (field: z.ZodNumber) =>
    z
      .string(msg.integer)
      .regex(/^-?\d+$/, { error: msg.integer })
      .transform(Number)
      .pipe(field);
  return {
    page: intString(v.int({ min: 1 })).optional().default(1),
    per_page: intString(v.int({ min: 1, max: 100 })).optional().default(defaultPerPage),
  };
}

const ON_EACH_SIDE = 3;

function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}

/** Laravel's UrlWindow: the page numbers to show, with null for a `...` gap. */
export function pageWindow(current: number, last: number): (number | null)[] {
  if (last < ON_EACH_SIDE * 2 + 8) return range(1, last);
  const window = ON_EACH_SIDE + 4;
  if (current <= window) return [...range(1, window + ON_EACH_SIDE), null, last - 1, last];
  if (current > last - window) return [1, 2, null, ...range(last - (window + (ON_EACH_SIDE - 1)), last)];
  return [1, 2, null, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), null, last - 1, last];
}

export interface PaginateInput<T> {
  /** The absolute URL of the list without query string, e.g. `http://host/api/user/calls`. */
  path: string;
  /** The request's query parameters; kept in page URLs (page itself is replaced). */
  query: Record<string, unknown>;
  page: number;
  perPage: number;
  total: number;
  items: T[];
}

export function paginate<T>(input: PaginateInput<T>): Page<T> {
  const { path, page, perPage, total, items } = input;
  const last = Math.max(Math.ceil(total / perPage), 1);
  const kept = new URLSearchParams();
  for (const [k, val] of Object.entries(input.query)) {
    if (k === 'page' || val === undefined) continue;
    if (Array.isArray(val)) for (const item of val) kept.append(k, String(item));
    else kept.append(k, String(val));
  }
  // Encoded once; each of a page's dozen URLs only appends its page number.
  const prefix = kept.size > 0 ? `${path}?${kept.toString()}&page=` : `${path}?page=`;
  const url = (p: number) => `${prefix}${p}`;
  const from = items.length > 0 ? (page - 1) * perPage + 1 : null;
  const links: PageLink[] = [{ url: page > 1 ? url(page - 1) : null, label: '&laquo; Previous', active: false }];
  for (const p of pageWindow(page, last)) {
    links.push(p === null ? { url: null, label: '...', active: false } : { url: url(p), label: String(p), active: p === page });
  }
  links.push({ url: page < last ? url(page + 1) : null, label: 'Next &raquo;', active: false });
  return {
    current_page: page,
    data: items,
    first_page_url: url(1),
    from,
    last_page: last,
    last_page_url: url(last),
    links,
    next_page_url: page < last ? url(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? url(page - 1) : null,
    to: from === null ? null : from + items.length - 1,
    total,
  };
}

/**
 * The JSON text of a page whose items are JSON text already (a list that renders its records
 * itself, see renderCallRecord); the same keys in the same order as serializing the `Page`.
 */
export function pageJson(page: Page<string>): string {
  const { current_page, data, ...rest } = page;
  return `{"current_page":${current_page},"data":[${data.join(',')}],${JSON.stringify(rest).slice(1)}`;
}

/** JSON-schema-friendly Zod description of the envelope, for OpenAPI responses. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    current_page: z.number().int(),
    data: z.array(item),
    first_page_url: z.string(),
    from: z.number().int().nullable(),
    last_page: z.number().int(),
    last_page_url: z.string(),
    links: z.array(z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() })),
    next_page_url: z.string().nullable(),
    path: z.string(),
    per_page: z.number().int(),
    prev_page_url: z.string().nullable(),
    to: z.number().int().nullable(),
    total: z.number().int(),
  });
}
