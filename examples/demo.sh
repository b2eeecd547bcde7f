#!/bin/sh
# demo.sh: the real-model demo behind `make demo`, end to end.
#
#  1. fetches two real networks (examples/fetch_models.sh, cached in
#     build/models) and imports their weights into a fresh build/demo.db
#     through the registry schema, in SQL (examples/import_models.sql:
#     q_tensors_file, no Python);
#  2. quantizes every weight tensor under six schemes and prints what each
#     costs and loses (examples/demo_queries.sql);
#  3. applies the demo's policies (examples/demo_policies.sql: rules that pick
#     one quantization per tensor) with plain SQL (sql/policy.sql);
#  4. exports, per policy, a GGUF file of each model (examples/export_gguf.sh),
#     loaded and checked tensor by tensor by ggml's own reader
#     (examples/check_gguf.py, libggml-base.so fetched by
#     tests/ggml/fetch_ggml.sh), and an ONNX model of Silero VAD with
#     DequantizeLinear weights (examples/export_onnx.py);
#  5. makes real audio (examples/make_audio.py: espeak-ng speech over silence
#     and noise, 16 and 8 kHz), runs the float model and every exported ONNX
#     model in ONNX Runtime (examples/evaluate_vad.mjs, onnxruntime-node
#     fetched by examples/fetch_onnxruntime.sh) and records the output error
#     in the registry (examples/record_evaluations.sql);
#  6. prints the table per policy (examples/demo_policy_report.sql);
#  7. checks determinism: the registry is rebuilt and every file exported
#     again on each other kernel path this CPU has (SQLITE_QUANT_KERNEL), and
#     every file must have the same bytes;
#  8. draws build/demo_sqnr.svg (and a PNG copy when rsvg-convert is
#     installed) with examples/plot_sqnr.py.
#
# Builds nothing: it expects the extension at dist/quant.so (`make` builds
# it); QUANT_EXT=path/to/quant overrides (without the .so suffix).
# Needs: sqlite3, /usr/bin/python3 with numpy and onnx, espeak-ng, Node 20
# and npm (the first run fetches the models, ggml and ONNX Runtime; later runs
# are offline); librsvg2-bin for the PNG (optional).  Ends with
# "demo: N passed, N failed": the GGUF checks and the determinism checks.
set -eu
cd "$(dirname "$0")/.."

ext=${QUANT_EXT:-dist/quant}
py=/usr/bin/python3
[ -x "$py" ] || py=python3

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}
now() { date +%s.%N 2>/dev/null || date +%s; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f s", b - a }'; }

if [ ! -f "$ext.so" ]; then
  echo "demo: $ext.so not found; build it first with: make" >&2
  exit 1
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
  echo "demo: the sqlite3 command-line shell is missing (Debian: apt-get install sqlite3)" >&2
  exit 1
fi

start=$(now)
mkdir -p build
sh examples/fetch_models.sh build/models

t=$(now)
rm -f build/demo.db build/demo.db-journal
sqlite3 -bail build/demo.db ".load $ext" \
  ".parameter set @models 'build/models'" \
  ".parameter set @silero_sha256 '$(sha256 build/models/silero_vad_v5.onnx)'" \
  ".parameter set @mediapipe_sha256 '$(sha256 build/models/face_detection_short_range.tflite)'" \
  '.read sql/registry.sql' '.read examples/import_models.sql'
echo "demo: imported in $(elapsed "$t")"

t=$(now)
sqlite3 -bail build/demo.db ".load $ext" '.read examples/demo_queries.sql'
echo
echo "demo: quantized, measured and reported in SQL in $(elapsed "$t")"

passed=0
failed=0
count() { # the "N passed, N failed" line a step printed last, added up
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  [ -n "$line" ] || return 0
  passed=$((passed + $(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/;s/^([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}
log=build/demo/step.log
mkdir -p build/demo
export QUANT_EXT="$ext"

# 3. Policies, applied in SQL.
t=$(now)
sqlite3 -bail build/demo.db ".load $ext" '.read examples/demo_policies.sql' '.read sql/policy.sql'
echo "demo: $(sqlite3 build/demo.db 'SELECT count(*) FROM policies') policies applied in $(elapsed "$t")"

# 4. Files out: GGUF (checked by ggml) and ONNX.
rm -rf build/demo/policies
t=$(now)
sh examples/export_gguf.sh build/demo.db build/demo/policies
"$py" examples/export_onnx.py --db build/demo.db --model build/models/silero_vad_v5.onnx \
  --ext "$ext" --out-dir build/demo/policies
echo "demo: exported $(sqlite3 build/demo.db 'SELECT count(*) FROM exports') files in $(elapsed "$t")"
t=$(now)
if sh tests/ggml/fetch_ggml.sh build/ggml/libggml-base.so; then
  rc=0
  "$py" examples/check_gguf.py --db build/demo.db --lib build/ggml/libggml-base.so \
    --ext "$ext.so" > "$log" 2>&1 || rc=$?
  cat "$log"
  if [ "$rc" -eq 77 ]; then
    echo "demo: the GGUF files were NOT checked by ggml (its library did not load)"
  else
    count "$log"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
  fi
else
  echo "demo: the GGUF files were NOT checked by ggml: its library could not be fetched"
fi
echo "demo: GGUF files checked with ggml in $(elapsed "$t")"

# 5. The model's own output, in ONNX Runtime, on real audio.
t=$(now)
"$py" examples/make_audio.py --out build/demo/audio
echo "demo: audio made in $(elapsed "$t")"
t=$(now)
sh examples/fetch_onnxruntime.sh build/onnxruntime
node examples/evaluate_vad.mjs --ort build/onnxruntime --audio build/demo/audio/manifest.json \
  --float build/models/silero_vad_v5.onnx --out build/demo/evaluations.json \
  build/demo/policies/*/silero_vad.onnx
sqlite3 -bail build/demo.db '.parameter set @results build/demo/evaluations.json' \
  '.read examples/record_evaluations.sql'
echo "demo: $(sqlite3 build/demo.db 'SELECT count(*) FROM evaluations') evaluations in ONNX Runtime, recorded in $(elapsed "$t")"

# 6. The table per policy.
echo
sqlite3 -bail build/demo.db ".load $ext" '.read examples/demo_policy_report.sql'
echo

# 7. Determinism: the same registry and files on every other kernel path.
t=$(now)
default=$(sqlite3 :memory: ".load $ext" "SELECT json_extract(q_info(), '$.kernel')")
for k in $(sqlite3 :memory: ".load $ext" "SELECT value FROM json_each(json_extract(q_info(), '$.kernels'))"); do
  [ "$k" = "$default" ] && continue
  dir=build/demo/kernel-$k
  rm -rf "$dir"
  mkdir -p "$dir"
  SQLITE_QUANT_KERNEL=$k sqlite3 -bail "$dir/demo.db" ".load $ext" \
    ".parameter set @models 'build/models'" \
    ".parameter set @silero_sha256 '$(sha256 build/models/silero_vad_v5.onnx)'" \
    ".parameter set @mediapipe_sha256 '$(sha256 build/models/face_detection_short_range.tflite)'" \
    '.read sql/registry.sql' '.read examples/import_models.sql' \
    '.read examples/demo_queries.sql' '.read examples/demo_policies.sql' '.read sql/policy.sql' > /dev/null
  SQLITE_QUANT_KERNEL=$k sh examples/export_gguf.sh "$dir/demo.db" "$dir/policies" > /dev/null
  SQLITE_QUANT_KERNEL=$k "$py" examples/export_onnx.py --db "$dir/demo.db" \
    --model build/models/silero_vad_v5.onnx --ext "$ext" --out-dir "$dir/policies" > /dev/null
  same=0
  for f in build/demo/policies/*/*; do
    g=$dir/policies/${f#build/demo/policies/}
    if [ -f "$g" ] && cmp -s "$f" "$g"; then
      same=$((same + 1))
    else
      echo "demo: FAILED determinism: $g differs from $f (kernel path $k)"
      failed=$((failed + 1))
    fi
  done
  passed=$((passed + same))
  echo "demo: kernel path $k: the same $same files, byte for byte, as path $default"
  rm -rf "$dir"
done
echo "demo: determinism checked in $(elapsed "$t")"

# 8. The picture.
"$py" examples/plot_sqnr.py --db build/demo.db --out build/demo_sqnr.svg
if command -v rsvg-convert >/dev/null 2>&1; then
  rsvg-convert -b white -o build/demo_sqnr.png build/demo_sqnr.svg
  echo "demo: wrote build/demo_sqnr.png"
else
  echo "demo: rsvg-convert not found (Debian: librsvg2-bin); SVG only"
fi
echo "demo: done in $(elapsed "$start"); the registry is build/demo.db, the files build/demo/policies/"
echo "demo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
