'use strict';
// Tensor and code BLOBs as typed arrays, without misreading a byte.
//
// The extension's BLOBs are little-endian on every host: float32 tensors,
// int32 zero points, int16/uint16/int32 codes; int8/uint8 codes are bytes;
// int4/uint4 codes are packed two per byte, element 2i in the low nibble and
// 2i+1 in the high one, so an odd count leaves the last high nibble unused;
// int2/uint2 four per byte, element 4i in the low two bits; the float8 codes
// are one byte each (docs/NUMERICS.md in the sqlite-quant sources, sections
// Codes and Float8 codes).
//
// Both directions copy: a BLOB that better-sqlite3 returns is a Buffer that
// may start at any offset of a shared pool, and a typed array over it would
// need that offset to be a multiple of its element size.

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// What each dtype name of fromBlob reads: bytes per element (0: packed,
// `bits` a code), the array it returns, how to byte-swap a copy of the BLOB
// on a big-endian host, and for float8 its format (FLOAT8).
const DTYPES = {
  f32: { size: 4, Array: Float32Array, swap: 'swap32' },
  int32: { size: 4, Array: Int32Array, swap: 'swap32' },
  int16: { size: 2, Array: Int16Array, swap: 'swap16' },
  uint16: { size: 2, Array: Uint16Array, swap: 'swap16' },
  int8: { size: 1, Array: Int8Array },
  uint8: { size: 1, Array: Uint8Array },
  int4: { size: 0, bits: 4, Array: Int8Array, signed: true },
  uint4: { size: 0, bits: 4, Array: Uint8Array, signed: false },
  int2: { size: 0, bits: 2, Array: Int8Array, signed: true },
  uint2: { size: 0, bits: 2, Array: Uint8Array, signed: false },
  f8_e4m3fn: { size: 1, Array: Float32Array, f8: 'f8_e4m3fn' },
  f8_e5m2: { size: 1, Array: Float32Array, f8: 'f8_e5m2' },
  f8_e4m3fnuz: { size: 1, Array: Float32Array, f8: 'f8_e4m3fnuz' },
  f8_e5m2fnuz: { size: 1, Array: Float32Array, f8: 'f8_e5m2fnuz' },
};

// The float8 formats (docs/NUMERICS.md, Float8 codes): mantissa bits, bias,
// fnuz (one zero, 0x80 the one NaN, no infinity), e5m2's infinities.
const FLOAT8 = {
  f8_e4m3fn: { mbits: 3, bias: 7, fnuz: false, inf: false },
  f8_e5m2: { mbits: 2, bias: 15, fnuz: false, inf: true },
  f8_e4m3fnuz: { mbits: 3, bias: 8, fnuz: true, inf: false },
  f8_e5m2fnuz: { mbits: 2, bias: 16, fnuz: true, inf: false },
};
const float8Tables = {};

// The float32 bits of all 256 codes of a float8 format, from its definition
// (each code is a float32, so every value is exact); a NaN code is the quiet
// NaN of its sign bit (fnuz's 0x80: 0xFFC00000), as the extension's
// dequantize_blob and q_f32 write it.  Built on first use.
function float8Table(name) {
  if (float8Tables[name]) return float8Tables[name];
  const { mbits, bias, fnuz, inf } = FLOAT8[name];
  const bits = new Uint32Array(256);
  const one = new Float32Array(1);
  const oneBits = new Uint32Array(one.buffer);
  for (let c = 0; c < 256; c++) {
    const sign = (c & 0x80) ? 0x80000000 : 0;
    const mag = c & 0x7f;
    const e = mag >> mbits;
    const m = mag & ((1 << mbits) - 1);
    let u;
    if (fnuz ? c === 0x80 : inf ? mag > 0x7c : mag === 0x7f) {
      u = 0x7fc00000;
    } else if (inf && mag === 0x7c) {
      u = 0x7f800000;
    } else {
      // m * 2^(1 - bias - mbits) below the normals, else (2^mbits + m) * 2^(e - bias - mbits)
      one[0] = e === 0 ? m * 2 ** (1 - bias - mbits) : ((1 << mbits) + m) * 2 ** (e - bias - mbits);
      u = oneBits[0];
    }
    bits[c] = (u | sign) >>> 0;
  }
  float8Tables[name] = bits;
  return bits;
}
const DTYPE_NAMES = Object.keys(DTYPES).map((d) => `'${d}'`).join(', ');

// A value named in an error message: its type, with the length of arrays.
function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v !== 'object') return `${typeof v} ${String(v)}`;
  const name = v.constructor ? v.constructor.name : 'Object';
  return 'length' in v ? `${name}(${v.length})` : name;
}

// A Float32Array's elements as a float32 BLOB (a new Buffer).  Float64Array
// and arrays of numbers would be rounded to float32, which changes most
// values: they are refused unless { allowFloat64: true } says that rounding
// (to nearest, ties to even) is wanted.
function toBlob(values, options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`toBlob: options must be an object, got ${describe(options)}`);
  }
  let f32;
  if (values instanceof Float32Array) {
    f32 = values;
  } else if (values instanceof Float64Array || Array.isArray(values)) {
    if (options.allowFloat64 !== true) {
      throw new TypeError('toBlob: values must be a Float32Array (a Float64Array or an ' +
        'array of numbers is rounded to float32 only with { allowFloat64: true }), ' +
        `got ${describe(values)}`);
    }
    if (Array.isArray(values)) {
      const bad = values.findIndex((v) => typeof v !== 'number');
      if (bad >= 0) {
        throw new TypeError(`toBlob: element ${bad} is not a number, got ${describe(values[bad])}`);
      }
    }
    f32 = Float32Array.from(values);
  } else {
    throw new TypeError(`toBlob: values must be a Float32Array, got ${describe(values)}`);
  }
  const blob = Buffer.from(new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength));
  return LITTLE_ENDIAN ? blob : blob.swap32();
}

// Packed codes of `bits` bits (4: two per byte, 2: four), unpacked to one
// element each.
function unpack(bytes, count, bits, signed, Out) {
  const out = new Out(count);
  const per = 8 / bits;
  const mask = (1 << bits) - 1;
  const half = 1 << (bits - 1);
  for (let i = 0; i < count; i++) {
    const code = (bytes[Math.floor(i / per)] >> ((i % per) * bits)) & mask;
    out[i] = signed && code >= half ? code - 2 * half : code;
  }
  return out;
}

// A BLOB as the typed array of its dtype, as q_json(blob, dtype, count) reads
// it: 'f32' (default) gives a Float32Array, the code dtypes their integer
// arrays ('int4' and 'int2' an Int8Array, 'uint4' and 'uint2' a Uint8Array,
// one element per code), the float8 codes a Float32Array of their exact
// values.  count is needed only for packed codes that do not fill their last
// byte; given for any dtype, it must match the BLOB.
function fromBlob(blob, dtype = 'f32', count = undefined) {
  if (!(blob instanceof Uint8Array)) {
    throw new TypeError(`fromBlob: blob must be a Buffer or Uint8Array, got ${describe(blob)}`);
  }
  const d = typeof dtype === 'string' && Object.hasOwn(DTYPES, dtype) ? DTYPES[dtype] : null;
  if (d === null) {
    throw new TypeError(`fromBlob: dtype must be one of ${DTYPE_NAMES}, got ${describe(dtype)}`);
  }
  if (count !== undefined && !(Number.isSafeInteger(count) && count >= 0)) {
    throw new TypeError(`fromBlob: count must be a non-negative integer, got ${describe(count)}`);
  }
  const bytes = blob.length;
  if (d.size === 0) {
    const per = 8 / d.bits;
    const n = count === undefined ? per * bytes : count;
    if (Math.ceil(n / per) !== bytes) {
      const low = per * bytes - per + 1;
      const fits = bytes === 0 ? '0' : per === 2 ? `${low} or ${per * bytes}` : `${low} to ${per * bytes}`;
      throw new RangeError(`fromBlob: count must be ${fits} for ${bytes} bytes of ${dtype}, ` +
        `got ${count}`);
    }
    return unpack(blob, n, d.bits, d.signed, d.Array);
  }
  if (bytes % d.size !== 0) {
    throw new RangeError(`fromBlob: the byte length of ${dtype} data must be a multiple of ` +
      `${d.size}, got ${bytes}`);
  }
  if (count !== undefined && count !== bytes / d.size) {
    throw new RangeError(`fromBlob: count must be ${bytes / d.size} for ${bytes} bytes of ` +
      `${dtype}, got ${count}`);
  }
  if (d.f8) {
    // The table's bits written as uint32 keep each NaN's sign.
    const table = float8Table(d.f8);
    const out = new Uint32Array(bytes);
    for (let i = 0; i < bytes; i++) out[i] = table[blob[i]];
    return new Float32Array(out.buffer);
  }
  const copy = new Uint8Array(blob); // a new ArrayBuffer: offset 0, aligned
  if (!LITTLE_ENDIAN && d.swap) Buffer.from(copy.buffer)[d.swap]();
  return new d.Array(copy.buffer);
}

module.exports = { toBlob, fromBlob };
