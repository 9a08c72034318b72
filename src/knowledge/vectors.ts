/**
 * A knowledge base's vectors as search keeps them: one matrix of 32-bit floats, row by row, and
 * the best rows for a query by dot product (the vectors are unit length, so it is their cosine).
 *
 * Scoring 10,000 vectors of 512 numbers is 5 million multiply-adds per search. A plain loop in
 * JavaScript took 18 ms (p50) on the shared 2-core machine during `npm run bench knowledge`,
 * and as it runs on the event loop, every other round trip of the search waited behind it. The
 * scores are computed by a small WebAssembly function instead, four floats per instruction
 * (SIMD), four sums at once; the matrix lives in the instance's memory. Where WebAssembly or
 * its SIMD is missing (e.g. `node --jitless`), the same scores come from the JavaScript loop.
 * Sums are in 32-bit floats in WebAssembly and 64-bit ones in JavaScript: scores may differ in
 * the seventh digit, which can swap two all but equal rows.
 */

/** A row's scores, in the kernel's layout: rows padded with zeros to a multiple of this many numbers. */
const LANE_BLOCK = 16;

/**
 * The kernel, assembled here (no toolchain) from this text:
 *
 *   (module
 *     (import "m" "memory" (memory 1))
 *     (func (export "scores") (param $q i32) (param $m i32) (param $rows i32) (param $rowBytes i32) (param $out i32)
 *       (local $i i32) (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
 *       (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
 *       (block $done (loop $row
 *         (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
 *         (local.set $a0 (v128.const i64x2 0 0)) ... $a3
 *         (local.set $i (i32.const 0))
 *         (loop $col
 *           ;; for k in 0..3: $ak += load(m + i + 16k) * load(q + i + 16k)
 *           (local.set $i (i32.add (local.get $i) (i32.const 64)))
 *           (br_if $col (i32.lt_u (local.get $i) (local.get $rowBytes))))
 *         (f32.store (local.get $out) (sum of the four lanes of $a0 + $a1 + $a2 + $a3))
 *         (local.set $m (i32.add (local.get $m) (local.get $rowBytes)))
 *         (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *         (br $row))))
 *
 * `rowBytes` is a multiple of 64 and greater than 0.
 */
function kernelBytes(): Uint8Array<ArrayBuffer> {
  const Q = 0, M = 1, ROWS = 2, ROW_BYTES = 3, OUT = 4, I = 5, END = 6, A = [7, 8, 9, 10];
  const get = (l: number) => [0x20, l];
  const set = (l: number) => [0x21, l];
  const i32 = (n: number) => [0x41, ...sleb(n)];
  const simd = (op: number) => [0xfd, ...uleb(op)];
  const v128Load = (offset: number) => [...simd(0x00), 0x00, ...uleb(offset)];
  const f32x4Add = simd(0xe4);
  const f32x4Mul = simd(0xe6);
  const lane = (n: number) => [...simd(0x1f), n];
  const zero = [...simd(0x0c), ...new Array(16).fill(0)];
  const body = [
    ...get(OUT), ...get(ROWS), ...i32(2), 0x74 /* i32.shl */, 0x6a /* i32.add */, ...set(END),
    0x02, 0x40, // block $done
    0x03, 0x40, // loop $row
    ...get(OUT), ...get(END), 0x4f /* i32.ge_u */, 0x0d, 1, // br_if $done
    ...A.flatMap((a) => [...zero, ...set(a)]),
    ...i32(0), ...set(I),
    0x03, 0x40, // loop $col
    ...A.flatMap((a, k) => [
      ...get(a),
      ...get(M), ...get(I), 0x6a, ...v128Load(16 * k),
      ...get(Q), ...get(I), 0x6a, ...v128Load(16 * k),
      ...f32x4Mul, ...f32x4Add, ...set(a),
    ]),
    ...get(I), ...i32(64), 0x6a, ...set(I),
    ...get(I), ...get(ROW_BYTES), 0x49 /* i32.lt_u */, 0x0d, 0, // br_if $col
    0x0b, // end $col
    ...get(OUT),
    ...get(A[0]), ...get(A[1]), ...f32x4Add, ...get(A[2]), ...f32x4Add, ...get(A[3]), ...f32x4Add, ...set(A[0]),
    ...get(A[0]), ...lane(0), ...get(A[0]), ...lane(1), 0x92 /* f32.add */, ...get(A[0]), ...lane(2), 0x92, ...get(A[0]), ...lane(3), 0x92,
    0x38, 2, 0, // f32.store align=4 offset=0
    ...get(M), ...get(ROW_BYTES), 0x6a, ...set(M),
    ...get(OUT), ...i32(4), 0x6a, ...set(OUT),
    0x0c, 0, // br $row
    0x0b, // end $row
    0x0b, // end $done
    0x0b, // end func
  ];
  const locals = [2, 2, 0x7f /* 2 × i32 */, 4, 0x7b /* 4 × v128 */];
  const func = [...locals, ...body];
  const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
  const name = (s: string) => [s.length, ...Buffer.from(s, 'ascii')];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]), // type 0: (i32 × 5) → ()
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]), // import memory, min 1 page
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(7, [1, ...name('scores'), 0x00, 0]), // export function 0
    ...section(10, [1, ...uleb(func.length), ...func]),
  ]);
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

let compiled: WebAssembly.Module | null | undefined;
/** The kernel compiled once per process; null where this runtime cannot run it. */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(kernelBytes());
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Whether scoring runs in WebAssembly in this process (else in JavaScript). */
export function simdAvailable(): boolean {
  return kernel() !== null;
}

const PAGE = 64 * 1024;

/** The kernel's export: scores of `rows` rows from byte `m` (each `rowBytes` long) against the query at byte `q`, written from byte `out`. */
type Scores = (q: number, m: number, rows: number, rowBytes: number, out: number) => void;

export class VectorMatrix {
  readonly rows: number;
  /** The layout: query at 0, then one score per row, then the rows, each `stride` numbers long. */
  private readonly stride: number;
  private readonly scoresAt: number;
  private readonly matrixAt: number;
  private readonly memory: ArrayBuffer | WebAssembly.Memory;
  private readonly run: Scores | null;

  /**
   * @param vectors the rows, each `dim` numbers long
   * @param useKernel false: always the JavaScript loop (tests compare the two)
   */
  constructor(readonly dim: number, vectors: ArrayLike<number>[], useKernel = true) {
    this.rows = vectors.length;
    const module = useKernel && dim > 0 ? kernel() : null;
    const layout = (stride: number) => ({ stride, scoresAt: stride * 4, matrixAt: stride * 4 + this.rows * 4, bytes: stride * 4 + this.rows * 4 + this.rows * stride * 4 });
    let instance: { memory: WebAssembly.Memory; run: Scores } | null = null;
    let at = layout(Math.ceil(dim / LANE_BLOCK) * LANE_BLOCK);
    if (module) {
      try {
        // Each matrix has a memory of its own (V8 reserves address space for each: about 13,000
        // fit in a process, against the few dozen large bases the cache's budget holds).
        const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(at.bytes / PAGE)) });
        const exports = new WebAssembly.Instance(module, { m: { memory } }).exports;
        instance = { memory, run: exports.scores as Scores };
      } catch {
        instance = null; // no memory to be had: the JavaScript loop
      }
    }
    if (!instance) at = layout(dim);
    this.stride = at.stride;
    this.scoresAt = at.scoresAt;
    this.matrixAt = at.matrixAt;
    this.memory = instance ? instance.memory : new ArrayBuffer(at.bytes);
    this.run = instance ? instance.run : null;
    const matrix = this.floats(this.matrixAt, this.rows * this.stride);
    vectors.forEach((v, i) => matrix.set(v, i * this.stride));
  }

  /** Bytes held (for the cache's budget). */
  get bytes(): number {
    return this.buffer.byteLength;
  }

  /** Whether this matrix is scored by the WebAssembly kernel. */
  get simd(): boolean {
    return this.run !== null;
  }

  private get buffer(): ArrayBuffer {
    return this.memory instanceof ArrayBuffer ? this.memory : this.memory.buffer;
  }

  private floats(at: number, length: number): Float32Array {
    return new Float32Array(this.buffer, at, length);
  }

  /** Every row's dot product with the query (a view valid until the next call). */
  scores(query: ArrayLike<number>): Float32Array {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} numbers, the vectors ${this.dim}`);
    const q = this.floats(0, this.stride);
    q.set(query);
    const out = this.floats(this.scoresAt, this.rows);
    if (this.rows === 0) return out;
    if (this.run) {
      this.run(0, this.matrixAt, this.rows, this.stride * 4, this.scoresAt);
      return out;
    }
    const matrix = this.floats(this.matrixAt, this.rows * this.stride);
    const dim = this.dim;
    const body = dim - (dim % 4);
    for (let row = 0; row < this.rows; row++) {
      const base = row * dim;
      let d0 = 0, d1 = 0, d2 = 0, d3 = 0;
      let i = 0;
      for (; i < body; i += 4) {
        d0 += matrix[base + i] * q[i];
        d1 += matrix[base + i + 1] * q[i + 1];
        d2 += matrix[base + i + 2] * q[i + 2];
        d3 += matrix[base + i + 3] * q[i + 3];
      }
      for (; i < dim; i++) d0 += matrix[base + i] * q[i];
      out[row] = d0 + d1 + d2 + d3;
    }
    return out;
  }

  /** The `k` best rows for the query, best first (ties: the lower row first). */
  top(query: ArrayLike<number>, k: number): { row: number; score: number }[] {
    const scores = this.scores(query);
    // A sorted list of the best so far; most rows fall below its last and cost one comparison.
    const best: { row: number; score: number }[] = [];
    if (k <= 0) return best;
    for (let row = 0; row < scores.length; row++) {
      const score = scores[row];
      if (best.length === k && !(score > best[k - 1].score)) continue;
      let at = best.length;
      while (at > 0 && best[at - 1].score < score) at--;
      best.splice(at, 0, { row, score });
      if (best.length > k) best.pop();
    }
    return best;
  }
}

/**
 * A real[] in PostgreSQL's binary form (array_send): dimensions, a null flag, the element type,
 * each dimension's length and lower bound, then each element as its length and big-endian
 * float4. A vector is one dimension without nulls; anything else is null.
 */
export function realArray(binary: Uint8Array): Float32Array | null {
  const view = new DataView(binary.buffer, binary.byteOffset, binary.byteLength);
  if (binary.byteLength < 12) return null;
  const dims = view.getInt32(0);
  if (dims === 0) return new Float32Array(0);
  if (dims !== 1 || view.getInt32(4) !== 0 || binary.byteLength < 20) return null;
  const n = view.getInt32(12);
  if (n < 0 || binary.byteLength !== 20 + n * 8) return null;
  const out = new Float32Array(n);
  for (let i = 0, at = 20; i < n; i++, at += 8) {
    if (view.getInt32(at) !== 4) return null;
    out[i] = view.getFloat32(at + 4);
  }
  return out;
}
