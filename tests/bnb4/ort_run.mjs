// ort_run.mjs DIR ORT: runs each MatMulBnb4 model of DIR/manifest.json
// (written by tests/bnb4/ort_check.py) in onnxruntime-node under ORT
// (build/onnxruntime), with an identity matrix as A, and writes Y's
// float32 bytes to DIR/<name>.y.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [dir, ortDir = 'build/onnxruntime'] = process.argv.slice(2);
const require = createRequire(resolve(ortDir, 'node_modules', '.resolve'));
const ort = require('onnxruntime-node');
const cases = JSON.parse(readFileSync(resolve(dir, 'manifest.json'), 'utf8'));
for (const c of cases) {
  const session = await ort.InferenceSession.create(
    readFileSync(resolve(dir, `${c.name}.onnx`)),
    { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1 });
  const k = c.K;
  const a = new Float32Array(k * k);
  for (let i = 0; i < k; i++) a[i * k + i] = 1;
  const out = await session.run({ A: new ort.Tensor('float32', a, [k, k]) });
  const y = out.Y.data;
  writeFileSync(resolve(dir, `${c.name}.y`), Buffer.from(y.buffer, y.byteOffset, y.byteLength));
}
console.log(`ort_run: ${cases.length} models run (onnxruntime-node ${ort.env.versions?.common ?? ''})`);
