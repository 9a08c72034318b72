/**
 * The website crawler: from a start page it follows links on the same origin (scheme, host and
 * port) breadth-first, up to `limit` further pages, obeying robots.txt; or it reads exactly the
 * pages it is given. Every request goes through the outbound guard (src/lib/outbound.ts: private
 * and metadata addresses refused, the connection pinned to the checked address, redirects not
 * followed by the client), with a timeout and a size cap per page. A redirect is followed here
 * only when it stays on the origin.
 */
import { createRequire } from 'node:module';
import { BlockedTargetError, outboundRequest, OutboundTimeoutError } from '../lib/outbound.js';
import { htmlLinks, htmlTitle, htmlToText } from './html.js';

type Robots = { isAllowed(url: string, ua?: string): boolean | undefined };
// CommonJS, with typings that declare an ES default export it does not have.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robots;

export const USER_AGENT = 'SwitchboardKnowledgeBot/0.1';

export class CrawlError extends Error {}

export interface CrawlOptions {
  /** One URL: crawl its origin from it. Several: read exactly these pages. */
  urls: string[];
  follow: boolean;
  /** Pages read besides the first when following links (relative_links_limit). */
  limit: number;
  allowPrivate: boolean;
  pageTimeoutMs: number;
  maxPageBytes: number;
}

export interface CrawledPage {
  url: string;
  title: string | null;
  text: string;
}

interface Fetched {
  url: string;
  status: number;
  contentType: string;
  body: string;
  location?: string;
}

async function get(url: string, o: CrawlOptions): Promise<Fetched> {
  const res = await outboundRequest({
    url,
    method: 'GET',
    headers: { 'user-agent': USER_AGENT, accept: 'text/html,text/plain;q=0.9,*/*;q=0.1' },
    timeoutMs: o.pageTimeoutMs,
    maxResponseBytes: o.maxPageBytes,
    allowPrivate: o.allowPrivate,
  });
  return { url, status: res.status, contentType: (res.headers['content-type'] ?? '').toLowerCase(), body: res.body, location: res.headers.location };
}

function describe(err: unknown, url: string): string {
  if (err instanceof BlockedTargetError) return err.message;
  if (err instanceof OutboundTimeoutError) return `${url} did not answer within ${err.timeoutMs} ms`;
  return `${url} could not be fetched: ${(err as Error).message}`;
}

async function robotsFor(origin: string, o: CrawlOptions): Promise<Robots | null> {
  const url = `${origin}/robots.txt`;
  try {
    const res = await get(url, o);
    if (res.status >= 200 && res.status < 300) return robotsParser(url, res.body);
  } catch (err) {
    if (err instanceof BlockedTargetError) throw new CrawlError(err.message);
    /* no robots.txt to read: everything is allowed */
  }
  return null;
}

/** A page with its redirects (same origin only, at most 5). */
async function page(url: string, origin: string, o: CrawlOptions): Promise<Fetched> {
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    const res = await get(current, o);
    if (res.status >= 300 && res.status < 400 && res.location) {
      const next = new URL(res.location, current);
      if (next.origin !== origin) throw new CrawlError(`${current} redirects off the site (${next.origin})`);
      current = next.href;
      continue;
    }
    return res;
  }
  throw new CrawlError(`${url} redirects too often`);
}

export async function crawl(o: CrawlOptions): Promise<{ pages: CrawledPage[]; skipped: string[] }> {
  let first: URL;
  try {
    first = new URL(o.urls[0]);
  } catch {
    throw new CrawlError(`${o.urls[0]} is not a valid URL`);
  }
  const robots = new Map<string, Robots | null>();
  const allowed = async (url: URL) => {
    if (!robots.has(url.origin)) robots.set(url.origin, await robotsFor(url.origin, o));
    return robots.get(url.origin)?.isAllowed(url.href, USER_AGENT) !== false;
  };

  const queue = [...o.urls];
  const seen = new Set(queue);
  const pages: CrawledPage[] = [];
  const skipped: string[] = [];
  const budget = o.follow ? 1 + o.limit : o.urls.length;
  let attempts = 0;
  while (queue.length > 0 && pages.length < budget && attempts++ < budget * 3) {
    const href = queue.shift()!;
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      skipped.push(`${href} is not a valid URL`);
      continue;
    }
    const isFirst = href === o.urls[0];
    try {
      if (!(await allowed(url))) throw new CrawlError(`robots.txt of ${url.origin} does not allow ${url.href}`);
      const res = await page(url.href, url.origin, o);
      if (res.status < 200 || res.status >= 300) throw new CrawlError(`${url.href} answered HTTP ${res.status}`);
      const html = res.contentType.includes('html') || /^\s*</.test(res.body);
      if (!html && !res.contentType.startsWith('text/')) throw new CrawlError(`${url.href} is not a web page (${res.contentType || 'no content type'})`);
      const text = html ? htmlToText(res.body) : res.body;
      pages.push({ url: url.href, title: html ? htmlTitle(res.body) : null, text });
      if (o.follow && html) {
        for (const link of htmlLinks(res.body, url.href)) {
          if (new URL(link).origin !== first.origin || seen.has(link)) continue;
          seen.add(link);
          queue.push(link);
        }
      }
    } catch (err) {
      const reason = err instanceof CrawlError ? err.message : describe(err, url.href);
      // The page the user named must be readable; a linked page that is not is passed over.
      if (isFirst || err instanceof BlockedTargetError) throw new CrawlError(reason);
      skipped.push(reason);
    }
  }
  return { pages, skipped };
}
