// example.mjs: sqlite-quant from Node.js with better-sqlite3 (12.x: Node 20+).
//   cd examples/node && npm ci && node example.mjs
// The extension is <repo>/dist/quant unless SQLITE_QUANT_EXT names another build.
// This is the bare better-sqlite3 way; the npm package of bindings/node
// (make npm-pack) wraps it: load(db), toBlob(Float32Array), fromBlob(blob, dtype).
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const ext = path.resolve(process.env.SQLITE_QUANT_EXT || path.join(here, '..', '..', 'dist', 'quant'));
const db = new Database(':memory:');
db.loadExtension(ext);   // better-sqlite3 allows extension loading by default

// A [4,8] weight whose rows differ in range, as a Float32Array.  Its bytes go
// to SQLite as a BLOB through a Buffer view of the same memory (no copy).
// (Little-endian hosts: x86-64 and aarch64; the stored format is always LE.)
const w = new Float32Array(32).map((_, i) => Math.sin(i) * (Math.floor(i / 8) + 1) / 4);
const blob = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
db.exec('CREATE TABLE tensors(name TEXT, shape TEXT, data BLOB)');
db.prepare("INSERT INTO tensors VALUES ('fc', '[4,8]', ?)").run(blob(w));

// Per-channel int8 parameters (axis 0), codes and round-trip SQNR in one query.
const row = db.prepare(`
  WITH p AS (SELECT data, shape, q_per_channel_scales(data, shape, 0) AS s,
                    q_per_channel_zero_points(data, shape, 0) AS z FROM tensors)
  SELECT s, z, quantize_per_channel_blob(data, s, z, shape, 0) AS q,
         q_sqnr(data, q_fake_quantize_per_channel(data, s, z, shape, 0)) AS sqnr
  FROM p`).get();

// BLOBs come back as Buffers: view them as typed arrays (copy first, so the
// typed array is aligned whatever the Buffer's offset in its pool).
const view = (buf, T) => new T(new Uint8Array(buf).buffer);
const scales = view(row.s, Float32Array), zps = view(row.z, Int32Array);
const codes = view(row.q, Int8Array);

// Check each code against docs/NUMERICS.md#quantize in float32: clamp(rint(x * f32(1/s)) + zp).
const rint = (y) => (Math.abs(y % 1) === 0.5 ? 2 * Math.round(y / 2) : Math.round(y));
codes.forEach((q, i) => {
  const c = Math.floor(i / 8), inv = Math.fround(1 / scales[c]);
  const e = Math.min(127, Math.max(-128, rint(Math.fround(w[i] * inv)) + zps[c]));
  if (e !== q) throw new Error(`element ${i}: SQL gave ${q}, JS ${e}`);
});
console.log('scales     ', Array.from(scales, (v) => Number(v.toPrecision(6))).join(' '));
console.log('zero points', zps.join(' '));
console.log('codes row 0', codes.subarray(0, 8).join(' '));
console.log('sqnr       ', row.sqnr.toFixed(2), 'dB');
console.log('codes match JS: ok');
