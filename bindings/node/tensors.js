'use strict';
// Tensor and code BLOBs as typed arrays, without misreading a byte.
//
// The extension's BLOBs are little-endian on every host: float32 tensors,
// int32 zero points, int16/uint16/int32 codes; int8/uint8 codes are bytes;
// int4/uint4 codes are packed two per byte, element 2i in the low nibble and
// 2i+1 in the high one, so an odd count leaves the last high nibble unused
// (docs/NUMERICS.md in the sqlite-quant sources, section Codes).
//
// Both directions copy: a BLOB that better-sqlite3 returns is a Buffer that
// may start at any offset of a shared pool, and a typed array over it would
// need that offset to be a multiple of its element size.

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// What each dtype name of fromBlob reads: bytes per element (0: two
// elements per byte), the array it returns, and how to byte-swap a copy of
// the BLOB on a big-endian host.
const DTYPES = {
  f32: { size: 4, Array: Float32Array, swap: 'swap32' },
  int32: { size: 4, Array: Int32Array, swap: 'swap32' },
  int16: { size: 2, Array: Int16Array, swap: 'swap16' },
  uint16: { size: 2, Array: Uint16Array, swap: 'swap16' },
  int8: { size: 1, Array: Int8Array },
  uint8: { size: 1, Array: Uint8Array },
  int4: { size: 0, Array: Int8Array, signed: true },
  uint4: { size: 0, Array: Uint8Array, signed: false },
};
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

// 4-bit codes, two per byte, unpacked to one element each.
function unpack4(bytes, count, signed, Out) {
  const out = new Out(count);
  for (let i = 0; i < count; i++) {
    const nibble = (bytes[i >> 1] >> ((i & 1) * 4)) & 0x0f;
    out[i] = signed && nibble >= 8 ? nibble - 16 : nibble;
  }
  return out;
}

// A BLOB as the typed array of its dtype, as q_json(blob, dtype, count) reads
// it: 'f32' (default) gives a Float32Array, the code dtypes their integer
// arrays ('int4' an Int8Array, 'uint4' a Uint8Array, one element per code).
// count is needed only for an odd number of 4-bit codes; given for any dtype,
// it must match the BLOB.
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
    const n = count === undefined ? 2 * bytes : count;
    if (Math.ceil(n / 2) !== bytes) {
      const fits = bytes === 0 ? '0' : `${2 * bytes - 1} or ${2 * bytes}`;
      throw new RangeError(`fromBlob: count must be ${fits} for ${bytes} bytes of ${dtype}, ` +
        `got ${count}`);
    }
    return unpack4(blob, n, d.signed, d.Array);
  }
  if (bytes % d.size !== 0) {
    throw new RangeError(`fromBlob: the byte length of ${dtype} data must be a multiple of ` +
      `${d.size}, got ${bytes}`);
  }
  if (count !== undefined && count !== bytes / d.size) {
    throw new RangeError(`fromBlob: count must be ${bytes / d.size} for ${bytes} bytes of ` +
      `${dtype}, got ${count}`);
  }
  const copy = new Uint8Array(blob); // a new ArrayBuffer: offset 0, aligned
  if (!LITTLE_ENDIAN && d.swap) Buffer.from(copy.buffer)[d.swap]();
  return new d.Array(copy.buffer);
}

module.exports = { toBlob, fromBlob };
