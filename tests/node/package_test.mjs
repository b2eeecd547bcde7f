// package_test.mjs HEADER: the npm package as a user gets it.  Run by
// tests/node/run.sh (make test-node) from a throwaway project where the
// packed tarball and better-sqlite3 are installed; HEADER is the sources'
// include/sqlite_quant.h, the version's one source.
//
// Loads the extension through load(db), quantizes per tensor and per channel
// and checks every code against a JavaScript recomputation of
// docs/NUMERICS.md#quantize, unpacks 4-bit codes, dequantizes back to floats
// (docs/NUMERICS.md#dequantize), and checks each helper's errors word for
// word.  Ends with "N passed, N failed"; exits 1 on any failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { isDeepStrictEqual, inspect } from 'node:util';
import * as quant from 'sqlite-quant';

const require = createRequire(import.meta.url);
const cjs = require('sqlite-quant');
const Database = require('better-sqlite3');
const { load, getLoadablePath, toBlob, fromBlob } = quant;

let passed = 0;
let failed = 0;
function check(name, got, want) {
  if (isDeepStrictEqual(got, want)) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}\n  got  ${inspect(got)}\n  want ${inspect(want)}`);
  }
}
// The error fn throws, as "Name: message"; 'no error' when it throws none.
function error(fn) {
  try {
    fn();
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
  return 'no error';
}

const header = fs.readFileSync(process.argv[2], 'utf8');
const version = /^#define SQLITE_QUANT_VERSION "([^"]+)"/m.exec(header)[1];
const pkgDir = path.dirname(require.resolve('sqlite-quant/package.json'));
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));

// --- the package itself -----------------------------------------------------
check('files shipped', fs.readdirSync(pkgDir).sort(),
  ['LICENSE', 'README.md', 'index.d.ts', 'index.js', 'index.mjs', 'package.json',
   'quant.so', 'tensors.js']);
check('version stamped from the header', [pkg.version, quant.version], [version, version]);
check('platform stamped', [pkg.os, pkg.cpu, pkg.libc],
  [[process.platform], [process.arch], ['glibc']]);
check('licence', pkg.license, 'MIT');
check('ESM and CommonJS are one module',
  ['load', 'getLoadablePath', 'entryPoint', 'nofsEntryPoint', 'version', 'toBlob', 'fromBlob']
    .map((k) => quant[k] === cjs[k]), [true, true, true, true, true, true, true]);
check('getLoadablePath', getLoadablePath(), path.join(pkgDir, 'quant.so'));
check('entryPoint', quant.entryPoint, 'sqlite3_quant_init');
check('nofsEntryPoint', quant.nofsEntryPoint, 'sqlite3_quant_nofs_init');

// --- load(db) ---------------------------------------------------------------
const db = new Database(':memory:');
load(db);
check('q_version() after load(db)', db.prepare('SELECT q_version()').pluck().get(), version);
check('load(null)', error(() => load(null)),
  'TypeError: load: db must be a better-sqlite3 Database, got null');
check('load({})', error(() => load({})),
  'TypeError: load: db must be a better-sqlite3 Database, got Object');
check('load("main.db")', error(() => load('main.db')),
  'TypeError: load: db must be a better-sqlite3 Database, got string');
check('load(Object.create(null))', error(() => load(Object.create(null))),
  'TypeError: load: db must be a better-sqlite3 Database, got Object');

// --- load(db, { allowFiles: false }): nothing that opens a path ------------------
// A model file of the tests' own, beside the header (the repository).
const gguf = path.join(path.dirname(path.dirname(process.argv[2])), 'tests', 'data', 'gguf', 'basic.gguf');
const countFile = (d) => d.prepare('SELECT count(*) FROM q_tensors_file(?)').pluck().get(gguf);
const files = (d) => JSON.parse(d.prepare('SELECT q_info()').pluck().get()).files;
check('load(db) reads files', [files(db), countFile(db)], [true, 21]);
// A Datasette-style connection: read-only, query_only.  Neither stops
// q_tensors_file; allowFiles: false does.
const tmpDb = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-quant-'));
const dbFile = path.join(tmpDb, 'public.db');
new Database(dbFile).exec('CREATE TABLE weights(name, data)').close();
for (const [allowFiles, want] of [[true, 21], [false, 'SqliteError: no such table: q_tensors_file']]) {
  const ro = new Database(dbFile, { readonly: true });
  ro.pragma('query_only = 1');
  load(ro, { allowFiles });
  let got;
  try { got = countFile(ro); } catch (e) { got = `${e.name}: ${e.message}`; }
  check(`read-only query_only, allowFiles ${allowFiles}`, [files(ro), got], [allowFiles, want]);
  ro.close();
}
fs.rmSync(tmpDb, { recursive: true });
const nofs = new Database(':memory:');
load(nofs, { allowFiles: false });
check('allowFiles false: the writer is not there',
  error(() => nofs.prepare("INSERT INTO q_gguf_write (path, name, data, type, shape) VALUES ('x.gguf', 'w', X'0000803F', 'f32', '[1]')")),
  'SqliteError: no such table: q_gguf_write');
check('allowFiles false: quantize still works',
  nofs.prepare("SELECT hex(quantize_blob(q_f32('[0.5, -1]'), 0.01, 0, 'int8'))").pluck().get(), '329C');
check('load(db, {}) is the default', (() => { const d = new Database(':memory:'); load(d, {}); return files(d); })(), true);
check('load(db, null)', error(() => load(new Database(':memory:'), null)),
  'TypeError: load: options must be an object, got null');
check('load(db, false)', error(() => load(new Database(':memory:'), false)),
  'TypeError: load: options must be an object, got boolean');
check('allowFiles must be a boolean', error(() => load(new Database(':memory:'), { allowFiles: 'no' })),
  'TypeError: load: options.allowFiles must be true or false, got string');

// Loading again re-registers through sqlite3_load_extension (no statement
// runs, unlike 0.2.0's Python loader): twice, and either way round.
const again = new Database(':memory:');
load(again);
load(again);
check('load(db) twice', [again.prepare('SELECT q_version()').pluck().get(), files(again)], [version, true]);
load(again, { allowFiles: false });
check('allowFiles false after a load with files removes them',
  [files(again), error(() => countFile(again))], [false, 'SqliteError: no such table: q_tensors_file']);
load(again, { allowFiles: false });
load(again);
check('allowFiles false twice, then true', [files(again), countFile(again)], [true, 21]);
// better-sqlite3 refuses any call while one of its statements iterates.
const it = again.prepare('SELECT 1 UNION ALL SELECT 2').pluck().iterate();
it.next();
check('load(db) while a statement iterates', error(() => load(again)),
  'TypeError: This database connection is busy executing a query');
it.return();
load(again);
check('load(db) after the iteration', files(again), true);

// A renamed copy loads only with the entry point named.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-quant-'));
const renamed = path.join(tmp, 'renamed.so');
fs.copyFileSync(getLoadablePath(), renamed);
check('renamed file without the entry point',
  error(() => new Database(':memory:').loadExtension(renamed)),
  `SqliteError: ${renamed}: undefined symbol: sqlite3_renamed_init`);
const db2 = new Database(':memory:');
db2.loadExtension(renamed, quant.entryPoint);
check('renamed file with the entry point', db2.prepare('SELECT q_version()').pluck().get(), version);
db2.close();

// A copy of the package without its extension says so.
const bare = path.join(tmp, 'bare');
fs.cpSync(pkgDir, bare, { recursive: true });
fs.rmSync(path.join(bare, 'quant.so'));
check('getLoadablePath without the extension',
  error(() => require(path.join(bare, 'index.js')).getLoadablePath()),
  `Error: getLoadablePath: this package carries no extension for ${process.platform}-${process.arch} ` +
  `(no file ${path.join(bare, 'quant.so')})`);
fs.rmSync(tmp, { recursive: true });

// --- what docs/NUMERICS.md says, in JavaScript ------------------------------
const f32 = Math.fround;
const rint = (y) => (Math.abs(y % 1) === 0.5 ? 2 * Math.round(y / 2) : Math.round(y));
const RANGE = { int8: [-128, 127], uint8: [0, 255], int4: [-8, 7], uint4: [0, 15] };
// quantize: inv = 1/scale in float32, clamp(round(x * inv)) + zp, rounding=torch.
function quantizeJs(x, scale, zp, dtype) {
  const [qmin, qmax] = RANGE[dtype];
  const inv = f32(1 / f32(scale));
  return Math.min(qmax - zp, Math.max(qmin - zp, rint(f32(x * inv)))) + zp;
}
const dequantizeJs = (q, scale, zp) => f32((q - zp) * f32(scale));

// A [4, 6] weight whose rows differ in range.
const SHAPE = [4, 6];
const w = Float32Array.from({ length: 24 }, (_, i) => Math.sin(0.7 * i) * (1 + Math.floor(i / 6)) / 3);
const blob = toBlob(w);
check('toBlob: little-endian float32 bytes', [blob.length, blob.readFloatLE(4 * 5)], [96, w[5]]);
check('fromBlob(toBlob(w)) is w', fromBlob(blob), w);

// --- per tensor, int8 and uint8 ---------------------------------------------
for (const dtype of ['int8', 'uint8']) {
  const r = db.prepare(`SELECT q_scale(:x, :d) AS s, q_zero_point(:x, :d) AS z`)
    .get({ x: blob, d: dtype });
  const q = db.prepare('SELECT quantize_blob(?, ?, ?, ?)').pluck().get(blob, r.s, r.z, dtype);
  const codes = fromBlob(q, dtype);
  const Codes = dtype === 'int8' ? Int8Array : Uint8Array;
  check(`per tensor ${dtype}: codes`, codes, Codes.from(w, (x) => quantizeJs(x, r.s, r.z, dtype)));
  check(`per tensor ${dtype}: codes span the range`,
    [Math.min(...codes), Math.max(...codes)], RANGE[dtype]);
  const back = db.prepare('SELECT dequantize_blob(?, ?, ?, ?)').pluck().get(q, r.s, r.z, dtype);
  check(`per tensor ${dtype}: dequantized`, fromBlob(back),
    Float32Array.from(codes, (c) => dequantizeJs(c, r.s, r.z)));
}

// --- per channel, both axes -------------------------------------------------
for (const axis of [0, 1]) {
  const r = db.prepare(`SELECT q_per_channel_scales(:x, :shape, :axis) AS s,
                               q_per_channel_zero_points(:x, :shape, :axis) AS z`)
    .get({ x: blob, shape: JSON.stringify(SHAPE), axis });
  const scales = fromBlob(r.s);
  const zps = fromBlob(r.z, 'int32');
  check(`per channel axis ${axis}: one scale and zero point per channel`,
    [scales.length, zps.length], [SHAPE[axis], SHAPE[axis]]);
  const channel = (i) => (axis === 0 ? Math.floor(i / SHAPE[1]) : i % SHAPE[1]);
  const q = db.prepare('SELECT quantize_per_channel_blob(?, ?, ?, ?, ?)').pluck()
    .get(blob, r.s, r.z, JSON.stringify(SHAPE), axis);
  const codes = fromBlob(q, 'int8');
  check(`per channel axis ${axis}: codes`, codes,
    Int8Array.from(w, (x, i) => quantizeJs(x, scales[channel(i)], zps[channel(i)], 'int8')));
  const back = db.prepare('SELECT dequantize_per_channel_blob(?, ?, ?, ?, ?)').pluck()
    .get(q, r.s, r.z, JSON.stringify(SHAPE), axis);
  check(`per channel axis ${axis}: dequantized`, fromBlob(back),
    Float32Array.from(codes, (c, i) => dequantizeJs(c, scales[channel(i)], zps[channel(i)])));
}

// --- 4-bit codes, an odd count ----------------------------------------------
const w7 = w.subarray(3, 10);   // 7 elements, at a byte offset of 12
for (const dtype of ['int4', 'uint4']) {
  const r = db.prepare('SELECT q_scale(:x, :d) AS s, q_zero_point(:x, :d) AS z')
    .get({ x: toBlob(w7), d: dtype });
  const q = db.prepare('SELECT quantize_blob(?, ?, ?, ?)').pluck().get(toBlob(w7), r.s, r.z, dtype);
  const codes = fromBlob(q, dtype, 7);
  const Codes = dtype === 'int4' ? Int8Array : Uint8Array;
  check(`${dtype}: 7 codes in 4 bytes`, [q.length, codes.length], [4, 7]);
  check(`${dtype}: unpacked codes`, codes, Codes.from(w7, (x) => quantizeJs(x, r.s, r.z, dtype)));
  check(`${dtype}: as q_json reads them`, Array.from(codes),
    JSON.parse(db.prepare('SELECT q_json(?, ?, 7)').pluck().get(q, dtype)));
  const back = db.prepare('SELECT dequantize_blob(?, ?, ?, ?, 7)').pluck().get(q, r.s, r.z, dtype);
  check(`${dtype}: dequantized`, fromBlob(back),
    Float32Array.from(codes, (c) => dequantizeJs(c, r.s, r.z)));
}
check('int4 x\'E103\' (docs)', fromBlob(Buffer.from([0xe1, 0x03]), 'int4', 3), Int8Array.of(1, -2, 3));
check('uint4 x\'E103\'', fromBlob(Buffer.from([0xe1, 0x03]), 'uint4', 3), Uint8Array.of(1, 14, 3));
check('int4, count left out: two per byte', fromBlob(Buffer.from([0x8f]), 'int4'), Int8Array.of(-1, -8));

// --- 2-bit codes, four per byte ---------------------------------------------
for (const dtype of ['int2', 'uint2']) {
  const r = db.prepare('SELECT q_scale(:x, :d) AS s, q_zero_point(:x, :d) AS z')
    .get({ x: toBlob(w7), d: dtype });
  const q = db.prepare('SELECT quantize_blob(?, ?, ?, ?)').pluck().get(toBlob(w7), r.s, r.z, dtype);
  const codes = fromBlob(q, dtype, 7);
  check(`${dtype}: 7 codes in 2 bytes`, [q.length, codes.length], [2, 7]);
  check(`${dtype}: as q_json reads them`, Array.from(codes),
    JSON.parse(db.prepare('SELECT q_json(?, ?, 7)').pluck().get(q, dtype)));
}
check('int2 x\'E403\'', fromBlob(Buffer.from([0xe4, 0x03]), 'int2', 5), Int8Array.of(0, 1, -2, -1, -1));
check('uint2 x\'E403\'', fromBlob(Buffer.from([0xe4, 0x03]), 'uint2', 5), Uint8Array.of(0, 1, 2, 3, 3));
check('uint2, count left out: four per byte', fromBlob(Buffer.from([0x1b]), 'uint2'), Uint8Array.of(3, 2, 1, 0));

// --- float8 codes: exact values, NaN bits as the extension writes them ------
const f8bits = (b, dtype) => Array.from(new Uint32Array(fromBlob(Buffer.from(b), dtype).buffer));
check('f8_e4m3fn: 448 1 2^-9 -0 NaN -NaN', f8bits([0x7e, 0x38, 0x01, 0x80, 0x7f, 0xff], 'f8_e4m3fn'),
  [0x43e00000, 0x3f800000, 0x3b000000, 0x80000000, 0x7fc00000, 0xffc00000]);
check('f8_e5m2: 57344 inf -inf NaN 2^-16', f8bits([0x7b, 0x7c, 0xfc, 0x7d, 0x01], 'f8_e5m2'),
  [0x47600000, 0x7f800000, 0xff800000, 0x7fc00000, 0x37800000]);
check('f8_e4m3fnuz: 240 2^-10 1 NaN', f8bits([0x7f, 0x01, 0x40, 0x80], 'f8_e4m3fnuz'),
  [0x43700000, 0x3a800000, 0x3f800000, 0xffc00000]);
check('f8_e5m2fnuz: 57344 2^-17 -57344 NaN', f8bits([0x7f, 0x01, 0xff, 0x80], 'f8_e5m2fnuz'),
  [0x47600000, 0x37000000, 0xc7600000, 0xffc00000]);
const allCodes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
for (const dtype of ['f8_e4m3fn', 'f8_e5m2', 'f8_e4m3fnuz', 'f8_e5m2fnuz']) {
  const want = db.prepare('SELECT dequantize_blob(?, 1.0, 0, ?)').pluck().get(allCodes, dtype);
  check(`${dtype}: all 256 codes as dequantize_blob at scale 1`,
    Buffer.from(fromBlob(allCodes, dtype).buffer).toString('hex'), want.toString('hex'));
}

// --- the helpers on awkward input -------------------------------------------
const odd = Buffer.alloc(13);
toBlob(Float32Array.of(1.5, -2, 3e-42)).copy(odd, 1);   // float32 at byte offset 1
check('fromBlob at an odd byte offset', fromBlob(odd.subarray(1)), Float32Array.of(1.5, -2, 3e-42));
check('fromBlob int32, little-endian', fromBlob(Buffer.from([1, 1, 0, 0, 0xff, 0xff, 0xff, 0xff]), 'int32'),
  Int32Array.of(257, -1));
check('fromBlob copies', (() => { const b = Buffer.from([5]); const a = fromBlob(b, 'int8'); b[0] = 9; return a[0]; })(), 5);
check('fromBlob of an empty BLOB', fromBlob(Buffer.alloc(0)), new Float32Array(0));
check('toBlob: -0, subnormal, infinity, NaN bits kept',
  toBlob(new Float32Array(new Uint32Array([0x80000000, 1, 0x7f800000, 0x7fc00001]).buffer)).toString('hex'),
  '0000008001000000' + '0000807f' + '0100c07f');
check('toBlob with allowFloat64 rounds to nearest float32',
  fromBlob(toBlob(Float64Array.of(0.1, 1 + 2 ** -24, 1 + 3 * 2 ** -24), { allowFloat64: true })),
  Float32Array.of(0.1, 1, 1 + 2 ** -22));
check('toBlob with allowFloat64 takes an array of numbers',
  fromBlob(toBlob([0.5, -1], { allowFloat64: true })), Float32Array.of(0.5, -1));

const errors = [
  [() => toBlob(Float64Array.of(0.1)),
    'TypeError: toBlob: values must be a Float32Array (a Float64Array or an array of numbers is rounded to float32 only with { allowFloat64: true }), got Float64Array(1)'],
  [() => toBlob([0.1, 0.2]),
    'TypeError: toBlob: values must be a Float32Array (a Float64Array or an array of numbers is rounded to float32 only with { allowFloat64: true }), got Array(2)'],
  [() => toBlob([1, '2'], { allowFloat64: true }), "TypeError: toBlob: element 1 is not a number, got '2'"],
  [() => toBlob(Int8Array.of(1)), 'TypeError: toBlob: values must be a Float32Array, got Int8Array(1)'],
  [() => toBlob(null), 'TypeError: toBlob: values must be a Float32Array, got null'],
  [() => toBlob(w, null), 'TypeError: toBlob: options must be an object, got null'],
  [() => fromBlob('00'), "TypeError: fromBlob: blob must be a Buffer or Uint8Array, got '00'"],
  [() => fromBlob(new Float32Array(2)), 'TypeError: fromBlob: blob must be a Buffer or Uint8Array, got Float32Array(2)'],
  [() => fromBlob(Buffer.alloc(4), 'f16'),
    "TypeError: fromBlob: dtype must be one of 'f32', 'int32', 'int16', 'uint16', 'int8', 'uint8', 'int4', 'uint4', 'int2', 'uint2', 'f8_e4m3fn', 'f8_e5m2', 'f8_e4m3fnuz', 'f8_e5m2fnuz', got 'f16'"],
  [() => fromBlob(Buffer.alloc(3)), 'RangeError: fromBlob: the byte length of f32 data must be a multiple of 4, got 3'],
  [() => fromBlob(Buffer.alloc(6), 'int32'), 'RangeError: fromBlob: the byte length of int32 data must be a multiple of 4, got 6'],
  [() => fromBlob(Buffer.alloc(2), 'int8', 3), 'RangeError: fromBlob: count must be 2 for 2 bytes of int8, got 3'],
  [() => fromBlob(Buffer.alloc(2), 'int4', 5), 'RangeError: fromBlob: count must be 3 or 4 for 2 bytes of int4, got 5'],
  [() => fromBlob(Buffer.alloc(2), 'uint4', 2), 'RangeError: fromBlob: count must be 3 or 4 for 2 bytes of uint4, got 2'],
  [() => fromBlob(Buffer.alloc(0), 'int4', 1), 'RangeError: fromBlob: count must be 0 for 0 bytes of int4, got 1'],
  [() => fromBlob(Buffer.alloc(2), 'int2', 9), 'RangeError: fromBlob: count must be 5 to 8 for 2 bytes of int2, got 9'],
  [() => fromBlob(Buffer.alloc(2), 'uint2', 4), 'RangeError: fromBlob: count must be 5 to 8 for 2 bytes of uint2, got 4'],
  [() => fromBlob(Buffer.alloc(2), 'f8_e5m2', 3), 'RangeError: fromBlob: count must be 2 for 2 bytes of f8_e5m2, got 3'],
  [() => fromBlob(Buffer.alloc(2), 'int4', -1), 'TypeError: fromBlob: count must be a non-negative integer, got number -1'],
  [() => fromBlob(Buffer.alloc(2), 'int4', 1.5), 'TypeError: fromBlob: count must be a non-negative integer, got number 1.5'],
];
errors.forEach(([fn, want], i) => check(`error ${i + 1}`, error(fn), want));

// --- typed data (docs/reference/data-formats.md#subtypes) ------------------
// A Float64Array's raw bytes passed where float32 is read: 0.2.0 read the
// doubles' halves as float32 (a scale of 1.07e21); now refused, whether the
// doubles hold float32 values (a Float32Array copied into one) or not.
const weights32 = Float32Array.from({ length: 256 }, (_, i) => 0.02 * Math.sin(0.37 * i) - 0.004);
const rawDoubles = (a) => Buffer.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
const f64Message = (n) => 'SqliteError: q_scale: x looks like float64 data (numpy\'s default dtype; ' +
  `convert with .astype(np.float32) or pass the .npy bytes), got ${n} bytes`;
check('Float64Array of float32 values refused',
  error(() => db.prepare('SELECT q_scale(?)').pluck().get(rawDoubles(Float64Array.from(weights32)))),
  f64Message(2048));
check('Float64Array of doubles refused',
  error(() => db.prepare('SELECT q_scale(?)').pluck().get(
    rawDoubles(Float64Array.from({ length: 256 }, (_, i) => 0.02 * Math.sin(0.37 * i) - 0.004)))),
  f64Message(2048));
// bf16 and f16 from a model file, read in SQL: the exact float32 answer
const model = db.prepare(`SELECT q_safetensors_agg(name, data, dtype, '[256]')
  FROM (SELECT 'h' AS name, q_f16(?) AS data, 'f16' AS dtype
        UNION ALL SELECT 'b', q_bf16(?), 'bf16')`).pluck().get(toBlob(weights32), toBlob(weights32));
const typed = db.prepare(`SELECT name, q_scale(data) = q_scale(q_f32(data, dtype))
  FROM q_tensors(?) ORDER BY name`).raw().all(model);
check('bf16 and f16 data read exactly in SQL', typed, [['b', 1], ['h', 1]]);
check('int8 codes refused naming q_f32',
  error(() => db.prepare("SELECT q_scale(quantize_blob(?, 0.001, 0))").pluck().get(toBlob(weights32))),
  'SqliteError: q_scale: x is int8 codes, not float32; dequantize them with dequantize_blob(x, scale, zero_point, \'int8\')');
db.close();

console.log(`package: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
