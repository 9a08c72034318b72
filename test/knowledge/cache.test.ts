/** The size-bounded cache search keeps bases' vectors and lexicons in (least recently used out first). */
import { expect, it } from 'vitest';
import { SizedLru } from '../../src/knowledge/cache.js';

it('keeps entries within the budget, dropping the least recently used first', () => {
  const lru = new SizedLru<number, string>(10);
  lru.set(1, 'a', 4);
  lru.set(2, 'b', 4);
  expect(lru.get(1)).toBe('a'); // 1 is now more recent than 2
  lru.set(3, 'c', 4);
  expect(lru.keys()).toEqual([1, 3]);
  expect(lru.get(2)).toBeUndefined();
  expect(lru.size).toBe(8);
});

it('replacing an entry counts its new size only; an entry larger than the budget is not kept', () => {
  const lru = new SizedLru<string, number>(10);
  lru.set('x', 1, 6);
  lru.set('x', 2, 3);
  expect(lru.size).toBe(3);
  expect(lru.get('x')).toBe(2);
  lru.set('y', 3, 11);
  expect(lru.get('y')).toBeUndefined();
  expect(lru.keys()).toEqual(['x']);
  lru.delete('x');
  expect(lru.size).toBe(0);
});
