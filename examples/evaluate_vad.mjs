// evaluate_vad.mjs: Silero VAD models in ONNX Runtime against the float model.
//
//   node examples/evaluate_vad.mjs --ort build/onnxruntime \
//     --audio build/demo/audio/manifest.json \
//     --float build/models/silero_vad_v5.onnx \
//     --out build/demo/evaluations.json [--input-set TEXT] [--threshold 0.5] \
//     [--prepacking on|off] MODEL.onnx ...
//
// Runs the float model and each MODEL over every clip of the manifest
// ([{"name", "sample_rate", "path", "samples"}]: little-endian float32 mono
// in [-1, 1], 16000 or 8000 Hz) the way Silero's own wrapper streams audio:
// frames of 512 samples at 16 kHz (256 at 8 kHz), each with the previous 64
// (32) samples prepended as context, the last frame padded with zeros; the
// LSTM state [2, 1, 128] carried from frame to frame; state and context
// reset for every clip.  Per model and sample rate it measures, over all
// frames of all clips, the speech probability's mean and max absolute
// difference from the float model and the frames whose decision
// (probability >= threshold) differs: a changed decision is a frame where
// the quantized model would act differently (start or stop recording).
//
// Writes OUT as JSON for examples/record_evaluations.sql:
//   {"runtime": "onnxruntime-node 1.30.0", "input_set", "threshold",
//    "float": [{"sample_rate", "frames", "speech_frames", "output_sha256"}],
//    "evaluations": [{"path", "sample_rate", "frames", "mean_abs_diff",
//                     "max_abs_diff", "decisions_changed", "output_sha256"}]}
// output_sha256 hashes the model's probabilities (float32, clip by clip), so
// two models whose outputs are bit-identical have the same hash.
//
// A model ONNX Runtime cannot load or run is an error naming the file: every
// exported file is thereby checked to load and run.  One thread per session,
// so runs repeat exactly and leave the other core free.  Sessions use ONNX
// Runtime's defaults otherwise (every graph optimization), as deployed.
// --prepacking off turns off its pre-packing of constant weights: a Conv
// whose weight is a constant runs a pre-packed kernel whose sums round
// differently from the kernel it runs on a computed weight (a
// DequantizeLinear's output), so only without pre-packing can a quantized
// model's output be compared bit for bit with the same model holding the
// dequantized floats as constants (make test-onnx-export does).

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const FRAME = { 16000: 512, 8000: 256 };
const CONTEXT = { 16000: 64, 8000: 32 };

function fail(msg) {
  process.stderr.write(`evaluate_vad: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { ort: 'build/onnxruntime', audio: 'build/demo/audio/manifest.json',
                 float: 'build/models/silero_vad_v5.onnx',
                 out: 'build/demo/evaluations.json',
                 'input-set': 'espeak-ng speech, silence, noise', threshold: '0.5',
                 prepacking: 'on',
                 models: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const key = a.slice(2);
      if (!(key in opts) || key === 'models') fail(`unknown option ${a}`);
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      opts[key] = argv[++i];
    } else {
      opts.models.push(a);
    }
  }
  const t = Number(opts.threshold);
  if (!(t > 0 && t < 1)) fail(`--threshold must be between 0 and 1, got ${opts.threshold}`);
  opts.threshold = t;
  if (!['on', 'off'].includes(opts.prepacking))
    fail(`--prepacking must be on or off, got ${opts.prepacking}`);
  return opts;
}

function loadOrt(dir) {
  const require = createRequire(resolve(dir, 'node_modules', '.resolve'));
  try {
    return require('onnxruntime-node');
  } catch (e) {
    fail(`cannot load onnxruntime-node from ${dir}/node_modules (fetch it with: ` +
         `sh examples/fetch_onnxruntime.sh ${dir}): ${e.message.split('\n')[0]}`);
  }
}

function loadClips(manifestPath) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (e) {
    fail(`cannot read the audio manifest ${manifestPath}: ${e.message}`);
  }
  if (!Array.isArray(manifest) || manifest.length === 0)
    fail(`${manifestPath}: expected a non-empty JSON array of clips`);
  return manifest.map((c, i) => {
    const where = `${manifestPath}: clip ${i} (${c.name})`;
    if (!(Number.isInteger(c.sample_rate) && c.sample_rate in FRAME))
      fail(`${where}: sample_rate must be 16000 or 8000, got ${c.sample_rate}`);
    if (!Number.isInteger(c.samples) || c.samples <= 0)
      fail(`${where}: samples must be a positive integer, got ${c.samples}`);
    let bytes;
    try {
      bytes = readFileSync(c.path);
    } catch (e) {
      fail(`${where}: ${e.message}`);
    }
    if (bytes.length !== 4 * c.samples)
      fail(`${where}: ${c.path} has ${bytes.length} bytes, not 4 x ${c.samples}`);
    const x = new Float32Array(c.samples);
    for (let k = 0; k < c.samples; k++) {
      x[k] = bytes.readFloatLE(4 * k);
      if (!(x[k] >= -1 && x[k] <= 1))
        fail(`${where}: sample ${k} is outside [-1, 1], got ${x[k]}`);
    }
    return { name: c.name, rate: c.sample_rate, x };
  });
}

// The speech probability of every frame of one clip.
async function runClip(ort, session, clip) {
  const n = FRAME[clip.rate], ctx = CONTEXT[clip.rate];
  const frames = Math.ceil(clip.x.length / n);
  const probs = new Float32Array(frames);
  const input = new Float32Array(ctx + n);   // context (zeros at first), then the frame
  let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(clip.rate)), []);
  for (let f = 0; f < frames; f++) {
    input.copyWithin(0, n, n + ctx);         // the previous frame's last samples
    input.fill(0, ctx);
    input.set(clip.x.subarray(f * n, Math.min((f + 1) * n, clip.x.length)), ctx);
    const out = await session.run({
      input: new ort.Tensor('float32', input.slice(), [1, ctx + n]), state, sr });
    probs[f] = out.output.data[0];
    state = out.stateN;
  }
  return probs;
}

async function runModel(ort, path, clips, prepacking) {
  let session;
  try {
    session = await ort.InferenceSession.create(path, {
      intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
      extra: { session: { disable_prepacking: prepacking === 'off' ? '1' : '0' } } });
  } catch (e) {
    fail(`ONNX Runtime cannot load ${path}: ${e.message}`);
  }
  const out = [];
  for (const clip of clips) {
    try {
      out.push(await runClip(ort, session, clip));
    } catch (e) {
      fail(`ONNX Runtime failed running ${path} on ${clip.name}: ${e.message}`);
    }
  }
  await session.release();
  return out;
}

function sha256(arrays) {
  const h = createHash('sha256');
  for (const a of arrays) h.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  return h.digest('hex');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const ort = loadOrt(opts.ort);
  const version = JSON.parse(readFileSync(
    join(opts.ort, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8')).version;
  const clips = loadClips(opts.audio);
  for (const m of [opts.float, ...opts.models])
    if (!statSync(m, { throwIfNoEntry: false })?.isFile()) fail(`no such model file: ${m}`);
  const rates = [...new Set(clips.map((c) => c.rate))].sort((a, b) => b - a);
  const th = opts.threshold;

  const started = Date.now();
  const ref = await runModel(ort, opts.float, clips, opts.prepacking);
  const result = { runtime: `onnxruntime-node ${version}`, input_set: opts['input-set'],
                   threshold: th, float: [], evaluations: [] };
  for (const rate of rates) {
    const idx = clips.map((c, i) => (c.rate === rate ? i : -1)).filter((i) => i >= 0);
    let frames = 0, speech = 0;
    for (const i of idx) for (const p of ref[i]) { frames++; speech += p >= th; }
    result.float.push({ path: opts.float, sample_rate: rate, frames, speech_frames: speech,
                        output_sha256: sha256(idx.map((i) => ref[i])) });
  }
  for (const path of opts.models) {
    const got = await runModel(ort, path, clips, opts.prepacking);
    for (const rate of rates) {
      const idx = clips.map((c, i) => (c.rate === rate ? i : -1)).filter((i) => i >= 0);
      let frames = 0, sum = 0, max = 0, changed = 0;
      for (const i of idx) {
        for (let f = 0; f < ref[i].length; f++) {
          const d = Math.abs(got[i][f] - ref[i][f]);
          frames++;
          sum += d;
          if (d > max) max = d;
          changed += (got[i][f] >= th) !== (ref[i][f] >= th);
        }
      }
      result.evaluations.push({ path, sample_rate: rate, frames, mean_abs_diff: sum / frames,
                                max_abs_diff: max, decisions_changed: changed,
                                output_sha256: sha256(idx.map((i) => got[i])) });
    }
  }
  writeFileSync(opts.out + '.part', JSON.stringify(result, null, 1) + '\n');
  renameSync(opts.out + '.part', opts.out);

  const nframes = result.float.reduce((s, r) => s + r.frames, 0);
  console.log(`evaluate_vad: ${1 + opts.models.length} models x ${clips.length} clips ` +
              `(${nframes} frames) in ${result.runtime}, ` +
              `${((Date.now() - started) / 1000).toFixed(1)} s; wrote ${opts.out}`);
  for (const r of result.float)
    console.log(`  float ${r.sample_rate} Hz: ${r.speech_frames} of ${r.frames} frames speech`);
  for (const r of result.evaluations)
    console.log(`  ${r.path} ${r.sample_rate} Hz: mean |dp| ${r.mean_abs_diff.toFixed(5)}, ` +
                `max ${r.max_abs_diff.toFixed(4)}, ${r.decisions_changed} decisions changed`);
}

await main();
