/**
 * The vector matrix search scores by dot product: the WebAssembly kernel gives the scores and
 * the best rows the JavaScript loop gives, for any dimension (padding to its block of 16) and
 * any number of rows.
 */
import { expect, it } from 'vitest';
import { simdAvailable, VectorMatrix } from '../../src/knowledge/vectors.js';

function random(seed: number) {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
}

function unit(values: number[]): number[] {
  const norm = Math.hypot(...values) || 1;
  return values.map((x) => x / norm);
}

it('runs the WebAssembly kernel on this Node', () => {
  expect(simdAvailable()).toBe(true);
  expect(new VectorMatrix(4, [[1, 0, 0, 0]]).simd).toBe(true);
  expect(new VectorMatrix(4, [[1, 0, 0, 0]], false).simd).toBe(false);
});

it.each([1, 3, 16, 17, 100, 512])('scores rows of %i numbers as the JavaScript loop does', (dim) => {
  const r = random(dim);
  const vectors = Array.from({ length: 203 }, () => unit(Array.from({ length: dim }, r)));
  const query = Float32Array.from(unit(Array.from({ length: dim }, r)));
  const kernel = new VectorMatrix(dim, vectors);
  const plain = new VectorMatrix(dim, vectors, false);
  const expected = Array.from(plain.scores(query));
  const got = Array.from(kernel.scores(query));
  expect(got).toHaveLength(203);
  got.forEach((s, i) => expect(s).toBeCloseTo(expected[i], 5));
  // each score is the dot product itself
  const dot = (v: number[]) => v.reduce((sum, x, i) => sum + Math.fround(x) * query[i], 0);
  expect(got[0]).toBeCloseTo(dot(vectors[0]), 5);
  expect(got[202]).toBeCloseTo(dot(vectors[202]), 5);
  expect(kernel.top(query, 10).map((b) => b.row)).toEqual(plain.top(query, 10).map((b) => b.row));
});

it('the best rows come best first; ties keep the lower row first; k past the rows gives them all', () => {
  const vectors = [[0, 1], [1, 0], [0.6, 0.8], [1, 0], [-1, 0]];
  for (const matrix of [new VectorMatrix(2, vectors), new VectorMatrix(2, vectors, false)]) {
    expect(matrix.top([1, 0], 3).map((b) => b.row)).toEqual([1, 3, 2]);
    expect(matrix.top([1, 0], 3).map((b) => b.score)).toEqual([1, 1, expect.closeTo(0.6, 6)]);
    expect(matrix.top([0, 1], 10).map((b) => b.row)).toEqual([0, 2, 1, 3, 4]);
    expect(matrix.top([0, 1], 0)).toEqual([]);
  }
});

it('a query is scored again without leftovers of the last; an empty matrix has no rows; a query of another length is refused', () => {
  const matrix = new VectorMatrix(3, [[1, 0, 0], [0, 0, 1]]);
  expect(Array.from(matrix.scores([0, 0, 2]))).toEqual([0, 2]);
  expect(Array.from(matrix.scores([3, 0, 0]))).toEqual([3, 0]);
  expect(new VectorMatrix(3, []).top([1, 0, 0], 5)).toEqual([]);
  expect(() => matrix.scores([1, 0])).toThrow(RangeError);
});

it('holds 10,000 rows of 512 numbers within its memory (the bench size)', () => {
  const r = random(7);
  const dim = 512;
  const vectors = Array.from({ length: 10_000 }, () => Float32Array.from({ length: dim }, r));
  const matrix = new VectorMatrix(dim, vectors);
  expect(matrix.bytes).toBeGreaterThanOrEqual(10_000 * dim * 4);
  const row = 9_999;
  const best = matrix.top(vectors[row], 1)[0];
  const self = vectors[row].reduce((sum, x) => sum + x * x, 0);
  expect(best.row).toBe(row);
  expect(best.score).toBeCloseTo(self, 2);
});
