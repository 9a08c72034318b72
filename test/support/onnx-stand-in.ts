/**
 * A tiny ONNX model with Smart Turn v3's interface, built in memory for tests (the real 8 MB file
 * cannot be downloaded here): input `input_features` float32 [batch, 80, 800] (symbolic batch),
 * output `logits` float32 [batch, 1] = sigmoid(w · mean(features) + b). With w = 0 it answers b's
 * probability whatever the audio; with w ≠ 0 its answer follows the features, so a test can tell
 * that the features it computed are the ones the model saw.
 *
 * Graph (opset 13, IR 8): ReduceMean(axes 1,2, keepdims) →
 * Reshape [-1, 1] → Mul w → Add b → Sigmoid.
 *
 * The protobuf is written by hand: the handful of onnx.proto fields below (field numbers from
 * onnx/onnx.proto) is less than a dependency for one 300-byte test file would cost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// ── protobuf wire format: varints, length-delimited fields ────────────────────────────────────
function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number | bigint) => [...key(field, 0), ...varint(n)];
const bytes = (field: number, data: Uint8Array | number[]) => [...key(field, 2), ...varint(data.length), ...data];
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);

// ── the onnx.proto messages used ──────────────────────────────────────────────────────────────
const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9 (little-endian). */
function tensor(name: string, type: number, dims: number[], raw: Uint8Array): number[] {
  return [...dims.flatMap((d) => int(1, d)), ...int(2, type), ...str(8, name), ...bytes(9, raw)];
}
/** ValueInfoProto { name 1, type 2: TypeProto { tensor_type 1: { elem_type 1, shape 2: { dim 1: { dim_value 1 | dim_param 2 } } } } }. */
function valueInfo(name: string, dims: (number | string)[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'number' ? int(1, d) : str(2, d)));
  return [...str(1, name), ...bytes(2, bytes(1, [...int(1, FLOAT), ...bytes(2, shape)]))];
}
/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. */
function node(op: string, inputs: string[], outputs: string[], attributes: number[][] = []): number[] {
  return [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(3, `${op}_0`), ...str(4, op), ...attributes.flatMap((a) => bytes(5, a))];
}
/** AttributeProto: name 1, i 3, ints 8, type 20. */
const attrInt = (name: string, i: number) => [...str(1, name), ...int(3, i), ...int(20, ATTR_INT)];
const attrInts = (name: string, ints: number[]) => [...str(1, name), ...ints.flatMap((i) => int(8, i)), ...int(20, ATTR_INTS)];

const f32 = (v: number) => new Uint8Array(Float32Array.of(v).buffer);
const i64 = (...v: number[]) => new Uint8Array(BigInt64Array.from(v.map(BigInt)).buffer);

/** The model's bytes: `logits = sigmoid(w · mean(input_features) + b)`. */
export function smartTurnStandIn(w: number, b: number): Uint8Array {
  const graph = [
    ...bytes(1, node('ReduceMean', ['input_features'], ['mean'], [attrInts('axes', [1, 2]), attrInt('keepdims', 1)])),
    ...bytes(1, node('Reshape', ['mean', 'shape'], ['flat'])),
    ...bytes(1, node('Mul', ['flat', 'w'], ['scaled'])),
    ...bytes(1, node('Add', ['scaled', 'b'], ['z'])),
    ...bytes(1, node('Sigmoid', ['z'], ['logits'])),
    ...str(2, 'smart_turn_stand_in'),
    ...bytes(5, tensor('shape', INT64, [2], i64(-1, 1))),
    ...bytes(5, tensor('w', FLOAT, [], f32(w))),
    ...bytes(5, tensor('b', FLOAT, [], f32(b))),
    ...bytes(11, valueInfo('input_features', ['batch_size', 80, 800])),
    ...bytes(12, valueInfo('logits', ['batch_size', 1])),
  ];
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 { domain 1, version 2 }.
  return Uint8Array.from([...int(1, 8), ...str(2, 'switchboard-tests'), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])]);
}

/** Writes the stand-in to a fresh temporary file (what TURN_MODEL_PATH names) and returns its path. */
export function writeSmartTurnStandIn(w: number, b: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smart-turn-'));
  const file = path.join(dir, 'smart-turn-stand-in.onnx');
  fs.writeFileSync(file, smartTurnStandIn(w, b));
  return file;
}

export const logit = (p: number) => Math.log(p / (1 - p));
