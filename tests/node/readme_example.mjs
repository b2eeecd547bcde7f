// readme_example.mjs: the example of docs/NODE.md, run by tests/node/run.sh
// (make test-node) in the throwaway project where the tarball is installed;
// its output must equal readme_example.expected.  tests/docs.test requires
// the page to show this file, after this comment, and that output.
import Database from 'better-sqlite3';
import { load, toBlob, fromBlob } from 'sqlite-quant';   // or require('sqlite-quant')

const db = new Database(':memory:');
load(db);

// A [2, 4] weight, one row per output channel, its rows 25x apart in range.
const w = Float32Array.of(0.12, -0.05, 0.2, -0.1, 3, -4, 2.5, 1);
const x = toBlob(w);
const { s, z } = db.prepare(`SELECT q_per_channel_scales(:x, '[2,4]', 0) AS s,
                                    q_per_channel_zero_points(:x, '[2,4]', 0) AS z`).get({ x });
const q = db.prepare(`SELECT quantize_per_channel_blob(?, ?, ?, '[2,4]', 0)`).pluck().get(x, s, z);
const back = db.prepare(`SELECT dequantize_per_channel_blob(?, ?, ?, '[2,4]', 0)`).pluck().get(q, s, z);
console.log('scales     ', fromBlob(s));
console.log('zero points', fromBlob(z, 'int32'));
console.log('codes      ', fromBlob(q, 'int8').join(' '));
console.log('back       ', Array.from(fromBlob(back), (v) => v.toFixed(4)).join(' '));

// int4 codes, two per byte: 5 codes in 3 bytes, unpacked one per element.
const x5 = toBlob(w.subarray(3));
const p = db.prepare(`SELECT q_scale(:x, 'int4') AS s, q_zero_point(:x, 'int4') AS z`).get({ x: x5 });
const q4 = db.prepare(`SELECT quantize_blob(?, ?, ?, 'int4')`).pluck().get(x5, p.s, p.z);
console.log('int4       ', q4, fromBlob(q4, 'int4', 5));

// Float64 data is refused unless rounding it to float32 is asked for.
try { toBlob([0.1, 0.2]); } catch (e) { console.log(e.message); }
console.log(fromBlob(toBlob([0.1, 0.2], { allowFloat64: true })));
