#!/bin/sh
# demo.sh: the real-model demo behind `make demo`.
#
# Fetches two real networks (examples/fetch_models.sh, cached in build/models),
# imports their weights into a fresh build/demo.db through the registry schema
# in SQL (q_tensors_file in examples/import_models.sql, sql/registry.sql),
# quantizes every weight tensor
# under several schemes in SQL and prints the comparison
# (examples/demo_queries.sql), then draws build/demo_sqnr.svg (and a PNG copy
# when rsvg-convert is installed) with examples/plot_sqnr.py.
#
# Builds nothing: it expects the extension at dist/quant.so (`make` builds
# it); QUANT_EXT=path/to/quant overrides (without the .so suffix).
# Needs: sqlite3, npm (first run only), /usr/bin/python3 (the picture);
# librsvg2-bin for the PNG (optional).
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

"$py" examples/plot_sqnr.py --db build/demo.db --out build/demo_sqnr.svg
if command -v rsvg-convert >/dev/null 2>&1; then
  rsvg-convert -b white -o build/demo_sqnr.png build/demo_sqnr.svg
  echo "demo: wrote build/demo_sqnr.png"
else
  echo "demo: rsvg-convert not found (Debian: librsvg2-bin); SVG only"
fi
echo "demo: done in $(elapsed "$start"); the registry is build/demo.db"
