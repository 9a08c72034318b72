/**
 * HTML → the text we index (html-to-text, headings kept as `#` lines for the chunker; navigation,
 * scripts, forms and images dropped) and the page's links (htmlparser2).
 */
import { compile, type FormatCallback, type SelectorDefinition } from 'html-to-text';
import { parseDocument, DomUtils } from 'htmlparser2';

const heading = (level: number): FormatCallback => (elem, walk, builder) => {
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(`${'#'.repeat(level)} `);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

const SKIP = ['nav', 'script', 'style', 'noscript', 'form', 'button', 'svg', 'img', 'iframe'];
const selectors: SelectorDefinition[] = [
  ...[1, 2, 3, 4, 5, 6].map((n) => ({ selector: `h${n}`, format: `h${n}` })),
  { selector: 'a', options: { ignoreHref: true } },
  ...SKIP.map((selector) => ({ selector, format: 'skip' })),
];
const formatters = Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`h${n}`, heading(n)]));

const convert = compile({ wordwrap: false, selectors, formatters, baseElements: { selectors: ['body'], returnDomByDefault: true } });

export function htmlToText(html: string): string {
  return convert(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The page's title (for a document's name). */
export function htmlTitle(html: string): string | null {
  const doc = parseDocument(html);
  const title = DomUtils.findOne((e) => e.name === 'title', doc.children, true);
  const text = title ? DomUtils.textContent(title).replace(/\s+/g, ' ').trim() : '';
  return text || null;
}

/** Absolute http(s) links of a page (fragments removed), in page order, each once. */
export function htmlLinks(html: string, base: string): string[] {
  const doc = parseDocument(html);
  const baseTag = DomUtils.findOne((e) => e.name === 'base' && !!e.attribs.href, doc.children, true);
  let resolvedBase = base;
  try {
    if (baseTag) resolvedBase = new URL(baseTag.attribs.href, base).href;
  } catch {
    /* a broken <base> is ignored */
  }
  const out = new Set<string>();
  for (const a of DomUtils.findAll((e) => e.name === 'a' && !!e.attribs.href, doc.children)) {
    const rel = (a.attribs.rel ?? '').toLowerCase();
    if (rel.includes('nofollow')) continue;
    try {
      const url = new URL(a.attribs.href, resolvedBase);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      out.add(url.href);
    } catch {
      /* not a URL */
    }
  }
  return [...out];
}
