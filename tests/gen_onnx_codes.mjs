#!/usr/bin/env node
// gen_onnx_codes.mjs: ONNX Runtime's QuantizeLinear and DequantizeLinear with
// float8 and 2-bit integer outputs, as vectors tests/onnx_codes.test replays
// through SQL.
//
//   node tests/gen_onnx_codes.mjs                 writes tests/data/onnx_codes.tcl
//   node tests/gen_onnx_codes.mjs --seed N --out FILE [--count K]
//                                                 K random cases per kind (fresh
//                                                 data for CI: make test-onnx-codes)
//
// Needs onnxruntime-node 1.30 in build/onnxruntime (examples/fetch_onnxruntime.sh).
// Each case is a small ONNX model written here in protobuf's wire format (the
// installed python3-onnx is too old for opset 21's block_size): x -> QuantizeLinear
// (scale per tensor, per axis or per block, saturate 0 or 1) -> DequantizeLinear
// with the same scales (the fake-quantized floats) and with scale 1 (the codes'
// values, from which the codes are read back: onnxruntime-node has no float8
// tensors, so codes cannot leave a session as such); and codes -> DequantizeLinear.
// int2 and uint2 (opset 25) the same way, with random zero points in range
// and no saturate (ONNX's integer outputs always saturate); their codes are
// packed here four per byte, element 4i in the low bits, and the
// dequantize cases hand ONNX Runtime the packed bytes, so its reading of
// them checks the packing.
// The codes are recovered through ONNX Runtime's own decoding of all 256 codes
// (a DequantizeLinear of every byte), so nothing here decodes float8 itself; an
// e5m2 NaN is read as 0x7F (0xFF negative), the NaN ONNX Runtime writes.
//
// ORT_INT2: ONNX Runtime 1.30's QuantizeLinear to int2 and uint2 differs from
// the ONNX specification in two ways, which these cases avoid
// (tests/onnx_codes.test states the specification's answers instead):
// (1) per axis and per block it applies the wrong scales and zero points
// where a group boundary falls inside a byte, and reads packed zero points
// wrongly (zero points [1,0,0,0] along the last axis of a [2,4] tensor give
// all zeros; scales [1,0.5,0.25,2,4] along a last axis of 5 give x = 1 the
// codes 1,1,1,0,1 instead of 1,1,1,0,0), so there the reference is its
// int8 / uint8 QuantizeLinear of the same scales and zero points,
// clamped to the 2-bit range (the same formula: round(x / scale) + zero
// point, saturated), and the fake-quantized floats its int2 / uint2
// DequantizeLinear of those codes, which reads scales, zero points and
// packing right; (2) x / scale beyond the int32 range, infinities
// included, gives the lowest code per tensor (1e30 and +inf give -2 for
// int2) where the specification saturates to the highest (its 8-bit
// blocked path does the same to +inf), so 2-bit values stay within +-2^31
// of zero.
//
// Cases: per format and saturate, the edge values at scale 1 (every code's value,
// every midpoint between neighbours and one float32 step either side of it,
// float32 subnormals, infinities, NaN of both signs, just over the largest
// code, ONNX Runtime's non-saturating overflow bands), then random tensors per
// tensor, per axis (both axes of a 2-D shape) and per block (a short last block
// included) whose values span the format's range at random scales.
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(ROOT, 'build/onnxruntime/node_modules/'));
const ort = require('onnxruntime-node');

// ---- protobuf, by hand ----------------------------------------------------------
function varint(v) {
  v = BigInt(v);
  if (v < 0n) v += 1n << 64n;
  const out = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? b | 0x80 : b);
  } while (v);
  return Buffer.from(out);
}
const cat = (...parts) => Buffer.concat(parts);
const fVarint = (field, v) => cat(varint(field << 3), varint(v));
const fBytes = (field, b) => {
  if (typeof b === 'string') b = Buffer.from(b);
  return cat(varint((field << 3) | 2), varint(b.length), b);
};
// TensorProto: dims 1, data_type 2, name 8, raw_data 9
const tensor = (name, type, dims, raw) =>
  cat(...dims.map((d) => fVarint(1, d)), fVarint(2, type), fBytes(8, name), fBytes(9, raw));
// ValueInfoProto { name, type { tensor_type { elem_type, shape { dim { dim_value } } } } }
const valueInfo = (name, type, dims) =>
  cat(fBytes(1, name), fBytes(2, fBytes(1, cat(fVarint(1, type),
    fBytes(2, cat(...dims.map((d) => fBytes(1, fVarint(1, d)))))))));
// AttributeProto of type INT (20 = 2): name 1, i 3
const intAttr = (name, v) => cat(fBytes(1, name), fVarint(3, v), fVarint(20, 2));
const node = (op, inputs, outputs, attrs = {}) =>
  cat(...inputs.map((s) => fBytes(1, s)), ...outputs.map((s) => fBytes(2, s)), fBytes(4, op),
    ...Object.entries(attrs).map(([k, v]) => fBytes(5, intAttr(k, v))));
function model(nodes, inits, inputs, outputs, opset) {
  const graph = cat(...nodes.map((n) => fBytes(1, n)), fBytes(2, 'g'),
    ...inits.map((t) => fBytes(5, t)), ...inputs.map((t) => fBytes(11, t)),
    ...outputs.map((t) => fBytes(12, t)));
  // IR 10 for opset 21, IR 11 for opset 25 (int2, uint2)
  return cat(fVarint(1, opset >= 25 ? 11 : 10), fBytes(8, cat(fBytes(1, ''), fVarint(2, opset))),
    fBytes(7, graph));
}
const FLOAT = 1;

// ---- the formats ----------------------------------------------------------------
const FORMATS = [
  { dtype: 'f8_e4m3fn', onnx: 17, max: 448, opset: 21 },
  { dtype: 'f8_e4m3fnuz', onnx: 18, max: 240, opset: 21 },
  { dtype: 'f8_e5m2', onnx: 19, max: 57344, opset: 21 },
  { dtype: 'f8_e5m2fnuz', onnx: 20, max: 57344, opset: 21 },
  // 2-bit integers (opset 25), four per byte, element 4i in the low bits
  { dtype: 'int2', onnx: 26, min: -2, max: 1, opset: 25, int: true },
  { dtype: 'uint2', onnx: 25, min: 0, max: 3, opset: 25, int: true },
];
// 2-bit codes (integers in range) packed as ONNX stores them.
function pack2(codes) {
  const out = Buffer.alloc(Math.ceil(codes.length / 4));
  codes.forEach((c, i) => { out[i >> 2] |= (c & 3) << ((i & 3) * 2); });
  return out;
}
const codeBytes = (f, codes) => (f.int ? pack2(codes) : Buffer.from(codes));

const f32buf = (a) => Buffer.from(new Float32Array(a).buffer);
const u32buf = (a) => Buffer.from(new Uint32Array(a).buffer);
const hex = (buf) => Buffer.from(buf).toString('hex').toUpperCase();
const bitsOf = (f) => new Uint32Array(new Float32Array([f]).buffer)[0];
const floatOf = (u) => new Float32Array(new Uint32Array([u >>> 0]).buffer)[0];

async function run(bytes, feeds) {
  const s = await ort.InferenceSession.create(bytes);
  return s.run(feeds);
}
const outBits = (t) => new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length);

// ONNX Runtime's value of every code; the inverse map reads codes back.
async function decodeTable(f) {
  if (f.int) return null;
  const m = model([node('DequantizeLinear', ['q', 's'], ['y'])],
    [tensor('q', f.onnx, [256], Buffer.from([...Array(256).keys()])), tensor('s', FLOAT, [], f32buf([1]))],
    [], [valueInfo('y', FLOAT, [256])], 21);
  const y = Array.from(outBits((await run(m, {})).y));
  const inverse = new Map();
  y.forEach((u, c) => inverse.set(u, c));   // later codes win: NaN 0x7F, 0xFF
  return { y, inverse };
}

// ---- random numbers, seeded ---------------------------------------------------------
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- cases ----------------------------------------------------------------------------
// layout: {kind: 'tensor'|'channel'|'block', shape, axis, block}; scales per group.
function groupsOf(layout) {
  const { kind, shape, axis, block } = layout;
  if (kind === 'tensor') return { count: 1, dims: [] };
  if (kind === 'channel') return { count: shape[axis], dims: [shape[axis]] };
  const dims = shape.slice();
  dims[axis] = Math.ceil(shape[axis] / block);
  return { count: dims.reduce((p, d) => p * d, 1), dims };
}
const nOf = (shape) => shape.reduce((p, d) => p * d, 1);

async function quantizeCase(f, table, layout, sat, xBits, scales, zps) {
  const g = groupsOf(layout);
  const attrs = f.int ? {} : { saturate: sat };
  if (layout.kind !== 'tensor') attrs.axis = layout.axis;
  if (layout.kind === 'block') attrs.block_size = layout.block;
  const dqAttrs = { ...attrs };
  delete dqAttrs.saturate;
  // 2-bit per axis and per block: ONNX Runtime's 8-bit QuantizeLinear of the
  // same scales and zero points, clamped to the 2-bit range (ORT_INT2 above)
  const via8 = f.int && layout.kind !== 'tensor';
  const qf = via8 ? { onnx: f.min < 0 ? 3 : 2, int: false } : f;
  const m = model([
    node('QuantizeLinear', ['x', 's', 'z'], ['q'], attrs),
    node('DequantizeLinear', ['q', 'one', 'zero'], ['y1']),
    ...(via8 ? [] : [node('DequantizeLinear', ['q', 's', 'z'], ['yf'], dqAttrs)]),
  ], [
    tensor('s', FLOAT, g.dims, f32buf(scales)),
    tensor('z', qf.onnx, g.dims, via8 ? Buffer.from(new Int8Array(zps).buffer) : codeBytes(f, zps)),
    tensor('one', FLOAT, [], f32buf([1])), tensor('zero', qf.onnx, [], codeBytes(qf, [0])),
  ], [valueInfo('x', FLOAT, layout.shape)],
  [valueInfo('y1', FLOAT, layout.shape), ...(via8 ? [] : [valueInfo('yf', FLOAT, layout.shape)])],
  f.opset);
  const x = new Float32Array(new Uint32Array(xBits).buffer);
  const r = await run(m, { x: new ort.Tensor('float32', x, layout.shape) });
  // the codes: 2-bit ones are their own values, float8 ones read back
  const codes = f.int
    ? Array.from(r.y1.data).map((v) => Math.min(f.max, Math.max(f.min, v)))
    : Array.from(outBits(r.y1)).map((u) => {
      if (!table.inverse.has(u)) throw new Error(`${f.dtype}: no code has value ${u.toString(16)}`);
      return table.inverse.get(u);
    });
  // the fake-quantized floats: ONNX Runtime's DequantizeLinear of the codes
  const yf = via8 ? (await dequantizeCase(f, layout, codes, scales, zps))[11] : hex(u32buf(Array.from(outBits(r.yf))));
  return ['q', f.dtype, layout.kind, JSON.stringify(layout.shape), layout.axis ?? 0,
    layout.block ?? 0, f.int ? '-' : sat, hex(u32buf(xBits)), hex(f32buf(scales)),
    JSON.stringify(zps), hex(codeBytes(f, codes)), yf];
}

async function dequantizeCase(f, layout, codes, scales, zps) {
  const g = groupsOf(layout);
  const attrs = {};
  if (layout.kind !== 'tensor') attrs.axis = layout.axis;
  if (layout.kind === 'block') attrs.block_size = layout.block;
  const m = model([node('DequantizeLinear', ['q', 's', 'z'], ['y'], attrs)],
    [tensor('q', f.onnx, layout.shape, codeBytes(f, codes)), tensor('s', FLOAT, g.dims, f32buf(scales)),
      tensor('z', f.onnx, g.dims, codeBytes(f, zps))],
    [], [valueInfo('y', FLOAT, layout.shape)], f.opset);
  const r = await run(m, {});
  return ['dq', f.dtype, layout.kind, JSON.stringify(layout.shape), layout.axis ?? 0,
    layout.block ?? 0, '-', hex(codeBytes(f, codes)), hex(f32buf(scales)), JSON.stringify(zps), '-',
    hex(u32buf(Array.from(outBits(r.y))))];
}

// The edge values of a format at scale 1.
function edges(f, table) {
  if (f.int) {
    const vals = [];
    for (let k = 4 * (f.min - 2); k <= 4 * (f.max + 2); k++) vals.push(bitsOf(k / 4));
    for (const v of [0.5 - 2 ** -24, 0.5 + 2 ** -23, 1.5 - 2 ** -23, -0.5 - 2 ** -24, 1e-40,
      1e9, -1e9, 2 ** 31 - 128, -(2 ** 31)])
      vals.push(bitsOf(v));
    vals.push(0x80000000);
    return vals.map((u) => u >>> 0);
  }
  const vals = new Set();
  const finite = [];
  for (let c = 0; c < 128; c++) {
    const u = table.y[c];
    if ((u & 0x7f800000) !== 0x7f800000) finite.push(floatOf(u));
  }
  finite.sort((a, b) => a - b);
  const add = (v) => { vals.add(bitsOf(v)); vals.add(bitsOf(-v)); };
  for (let i = 0; i < finite.length; i++) {
    add(finite[i]);
    if (i + 1 < finite.length) {
      const mid = (finite[i] + finite[i + 1]) / 2;   // exact in float32
      const b = bitsOf(mid);
      add(mid); add(floatOf(b + 1)); add(floatOf(b - 1));
    }
  }
  const top = finite[finite.length - 1];
  const step = top - finite[finite.length - 2];
  for (const v of [top + step / 4, top + step / 2, top + step / 2 + step / 64, top + step,
    top * 1.25, top * 2, 480, 488, 496, 61440, 63488, 65536, 1e30, 3.4028234663852886e38,
    1e-40, 1.4e-45, 2 ** -10, 2 ** -11, 2 ** -17, 2 ** -18, 2 ** -19]) add(v);
  vals.add(0x7f800000); vals.add(0xff800000); vals.add(0x7fc00000); vals.add(0xffc00000);
  vals.add(0x7f800001); vals.add(0x80000000);
  return [...vals];
}

function randomValues(f, rand, n) {
  if (f.int) {
    // around the range, a quarter of them exact ties k + 1/2
    return Array.from({ length: n }, () => {
      const p = rand();
      const k = Math.floor(f.min - 2 + rand() * (f.max - f.min + 4));
      return p < 0.25 ? k + 0.5 : k + rand();
    });
  }
  // |t| = 2^e * (1 + u) over the format's range and a little past both ends
  const emax = Math.log2(f.max), emin = f.max > 1000 ? -19 : -12;
  const out = [];
  for (let i = 0; i < n; i++) {
    const e = emin + rand() * (emax + 1.5 - emin);
    let v = 2 ** e * (rand() < 0.5 ? -1 : 1);
    const p = rand();
    if (p < 0.01) v = NaN;
    else if (p < 0.02) v = v < 0 ? -Infinity : Infinity;
    else if (p < 0.04) v = 0;
    out.push(v);
  }
  return out;
}
const randomScale = (rand) => Math.fround(2 ** (rand() * 16 - 8) * (1 + rand()));
const scaled = (vals, scale) => vals.map((v) => bitsOf(Math.fround(v * scale)) >>> 0);

const LAYOUTS = [
  { kind: 'tensor', shape: [37] },
  { kind: 'channel', shape: [3, 5], axis: 0 },
  { kind: 'channel', shape: [3, 5], axis: 1 },
  { kind: 'channel', shape: [2, 3, 4], axis: 1 },
  { kind: 'block', shape: [4, 6], axis: 1, block: 4 },
  { kind: 'block', shape: [7, 3], axis: 0, block: 3 },
  { kind: 'block', shape: [2, 8, 3], axis: 1, block: 8 },
];

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const fresh = args.includes('--seed');
  const seed = Number(opt('--seed', 20261203));
  const count = Number(opt('--count', fresh ? 6 : 2));
  const outPath = opt('--out', path.join(ROOT, 'tests/data/onnx_codes.tcl'));
  const rand = rng(seed);
  const cases = [];
  for (const f of FORMATS) {
    const table = await decodeTable(f);
    // float8 zero points are 0 (ONNX); 2-bit ones anywhere in range
    const zpsFor = (count) => Array.from({ length: count }, () =>
      f.int ? f.min + Math.floor(rand() * (f.max - f.min + 1)) : 0);
    const randomCode = () => (f.int ? f.min + Math.floor(rand() * (f.max - f.min + 1))
      : Math.floor(rand() * 256));
    for (const sat of f.int ? [1] : [1, 0]) {
      if (!fresh) {
        const e = edges(f, table);
        cases.push(await quantizeCase(f, table, { kind: 'tensor', shape: [e.length] }, sat, e, [1], [0]));
      }
      for (let k = 0; k < count; k++)
        for (const layout of LAYOUTS) {
          const n = nOf(layout.shape);
          const groups = groupsOf(layout).count;
          const scales = Array.from({ length: groups }, () => randomScale(rand));
          const zps = zpsFor(groups);
          // x = t * scale of its group: per element, the scale its group uses
          const xs = [];
          const t = randomValues(f, rand, n);
          for (let i = 0; i < n; i++) xs.push(scaled([t[i]], scales[groupIndex(layout, i)])[0]);
          cases.push(await quantizeCase(f, table, layout, sat, xs, scales, zps));
        }
    }
    // dequantize: every code, then random codes under each layout
    const all = f.int ? Array.from({ length: 9 }, (_, i) => f.min + (i % (f.max - f.min + 1)))
      : [...Array(256).keys()];
    cases.push(await dequantizeCase(f, { kind: 'tensor', shape: [all.length] }, all,
      [Math.fround(0.75)], [f.int ? f.max : 0]));
    for (let k = 0; k < count; k++)
      for (const layout of LAYOUTS) {
        const n = nOf(layout.shape);
        const groups = groupsOf(layout).count;
        const codes = Array.from({ length: n }, randomCode);
        const scales = Array.from({ length: groups }, () => randomScale(rand));
        cases.push(await dequantizeCase(f, layout, codes, scales, zpsFor(groups)));
      }
  }
  const lines = [
    '# generated by tests/gen_onnx_codes.mjs from onnxruntime-node 1.30.0; do not edit',
    `# seed ${seed}, ${count} random cases per layout (tests/onnx_codes.test replays them)`,
    '# {op dtype granularity shape axis block_size saturate in_hex scales_hex zero_points codes_hex out_hex}',
    'set onnx_codes_cases {',
    ...cases.map((c) => `  {${c.join(' ')}}`),
    '}',
    '',
  ];
  fs.writeFileSync(outPath, lines.join('\n'));
  console.log(`gen_onnx_codes: ${cases.length} cases to ${outPath}`);
}

// The group of flat element i (row-major), as ONNX assigns it.
function groupIndex(layout, i) {
  const { kind, shape, axis, block } = layout;
  if (kind === 'tensor') return 0;
  const inner = shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const a = Math.floor(i / inner) % shape[axis];
  if (kind === 'channel') return a;
  const outer = Math.floor(i / (inner * shape[axis]));
  const nb = Math.ceil(shape[axis] / block);
  return (outer * nb + Math.floor(a / block)) * inner + (i % inner);
}

main().catch((e) => {
  console.error(`gen_onnx_codes: ${e.stack || e}`);
  process.exit(1);
});
