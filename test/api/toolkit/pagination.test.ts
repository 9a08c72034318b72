import { describe, expect, it } from 'vitest';
import { pageJson, pageWindow, paginate } from '../../../src/api/toolkit/pagination.js';

const base = { path: 'http://app.test/api/user/assistants/get', query: {} as Record<string, unknown> };

describe('paginate (Laravel envelope)', () => {
  it('builds the first of three pages', () => {
    const p = paginate({ ...base, page: 1, perPage: 10, total: 23, items: Array.from({ length: 10 }, (_, i) => i) });
    expect(p).toMatchObject({
      current_page: 1,
      from: 1,
      to: 10,
      last_page: 3,
      per_page: 10,
      total: 23,
      path: base.path,
      first_page_url: `${base.path}?page=1`,
      last_page_url: `${base.path}?page=3`,
      next_page_url: `${base.path}?page=2`,
      prev_page_url: null,
    });
    expect(p.links).toEqual([
      { url: null, label: '&laquo; Previous', active: false },
      { url: `${base.path}?page=1`, label: '1', active: true },
      { url: `${base.path}?page=2`, label: '2', active: false },
      { url: `${base.path}?page=3`, label: '3', active: false },
      { url: `${base.path}?page=2`, label: 'Next &raquo;', active: false },
    ]);
  });

  it('builds a middle and the last page', () => {
    const mid = paginate({ ...base, page: 2, perPage: 10, total: 23, items: Array(10).fill(0) });
    expect(mid).toMatchObject({ from: 11, to: 20, prev_page_url: `${base.path}?page=1`, next_page_url: `${base.path}?page=3` });
    const last = paginate({ ...base, page: 3, perPage: 10, total: 23, items: [1, 2, 3] });
    expect(last).toMatchObject({ from: 21, to: 23, next_page_url: null });
    expect(last.links.at(-1)).toEqual({ url: null, label: 'Next &raquo;', active: false });
  });

  it('answers an empty page with null from/to and one page', () => {
    const p = paginate({ ...base, page: 1, perPage: 15, total: 0, items: [] });
    expect(p).toMatchObject({ from: null, to: null, last_page: 1, total: 0, data: [] });
    const beyond = paginate({ ...base, page: 4, perPage: 10, total: 23, items: [] });
    expect(beyond).toMatchObject({ current_page: 4, from: null, to: null, next_page_url: null, prev_page_url: `${base.path}?page=3` });
  });

  it('keeps the other query parameters in page URLs and replaces page', () => {
    const p = paginate({ ...base, query: { status: 'completed', per_page: '5', page: '2' }, page: 2, perPage: 5, total: 12, items: Array(5).fill(0) });
    expect(p.next_page_url).toBe(`${base.path}?status=completed&per_page=5&page=3`);
    expect(p.first_page_url).toBe(`${base.path}?status=completed&per_page=5&page=1`);
  });

  it('windows the links with ... when there are many pages', () => {
    expect(pageWindow(1, 13)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(pageWindow(1, 20)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 19, 20]);
    expect(pageWindow(10, 20)).toEqual([1, 2, null, 7, 8, 9, 10, 11, 12, 13, null, 19, 20]);
    expect(pageWindow(20, 20)).toEqual([1, 2, null, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    const p = paginate({ ...base, page: 10, perPage: 1, total: 20, items: [0] });
    expect(p.links.filter((l) => l.label === '...')).toEqual([
      { url: null, label: '...', active: false },
      { url: null, label: '...', active: false },
    ]);
    expect(p.links.find((l) => l.active)?.label).toBe('10');
  });
});

describe('pageJson (a page whose items are JSON text already)', () => {
  it('is the text of serializing the same page, key for key', () => {
    const items = [{ id: 2, note: 'a "quoted"\nline' }, { id: 1, nested: { x: [1, null] } }];
    for (const [page, total, list] of [[1, 2, items], [2, 2, []], [1, 0, []]] as const) {
      const input = { ...base, query: { status: 'completed' }, page, perPage: 1, total };
      const text = pageJson(paginate({ ...input, items: list.map((item) => JSON.stringify(item)) }));
      expect(text).toBe(JSON.stringify(paginate({ ...input, items: [...list] })));
    }
  });
});
