#!/bin/sh
# run.sh EXT LIBGGML: make test-gguf-export.
#
# The demo's two models (examples/fetch_models.sh, cached in build/models)
# imported into a fresh registry with their metadata, quantized as
# examples/demo_queries.sql does, under the three policies of
# tests/gguf_export/policies.sql, and exported with examples/export_gguf.sh
# (build/gguf-export/).  Then:
#   - every file is exported twice from the same registry: the same bytes;
#   - the whole registry is built again on the scalar kernel path
#     (SQLITE_QUANT_KERNEL=scalar) and exported: the same bytes as on the
#     default path;
#   - examples/check_gguf.py loads every file, the tiny registry's too, with
#     ggml's own reader (LIBGGML, libggml-base.so) and compares each tensor
#     with the registry.
# The policies are rules applied by the registry's engine (sql/policy.sql);
# their choices must cover every kind the exporter writes.
# First, on a tiny registry, what export_gguf.sh refuses (no choices, a
# model name that cannot be a file name, a policy that quantizes nothing),
# that the registry refuses a choice for a tensor stored in chunks, a float
# tensor stored in chunks written whole (EXPORT_FLOAT=1), and paths taken
# from the caller's directory.
# Ends "test-gguf-export: N passed, N failed" and fails on any failure.
set -eu
cd "$(dirname "$0")/../.."

[ $# -eq 2 ] || { echo "usage: sh tests/gguf_export/run.sh EXT LIBGGML" >&2; exit 2; }
ext=${1%.so}
lib=$2
work=build/gguf-export
passed=0
failed=0

sha256() { sha256sum "$1" | cut -d' ' -f1; }

# registry DB: a fresh registry of the demo's models with the policies.
registry() {
  rm -f "$1"
  sqlite3 -bail "$1" ".load $ext" \
    ".parameter set @models 'build/models'" \
    ".parameter set @silero_sha256 '$(sha256 build/models/silero_vad_v5.onnx)'" \
    ".parameter set @mediapipe_sha256 '$(sha256 build/models/face_detection_short_range.tflite)'" \
    '.read sql/registry.sql' '.read examples/import_models.sql' \
    "INSERT OR IGNORE INTO model_metadata (model_id, key, type, value)
     SELECT m.model_id, k.key, k.type, k.value
     FROM models m, q_tensor_metadata_file('build/models/' || CASE m.name
       WHEN 'silero_vad' THEN 'silero_vad_v5.onnx'
       ELSE 'face_detection_short_range.tflite' END) k" \
    '.read examples/demo_queries.sql' >/dev/null
  sqlite3 -bail "$1" ".load $ext" '.read tests/gguf_export/policies.sql' \
    '.read sql/policy.sql'
}

# same A B WHAT: one check, the two files' bytes equal.
same() {
  if cmp -s "$1" "$2"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $3: $1 and $2 differ"
  fi
}

# refused DB MESSAGE: one check, export_gguf.sh fails on DB with exactly
# MESSAGE on stderr and writes nothing.
refused() {
  rm -rf "$work/refused"
  if sh examples/export_gguf.sh "$1" "$work/refused" 2>"$work/refused.err" >/dev/null; then
    got="succeeded"
  else
    got=$(cat "$work/refused.err")
  fi
  if [ "$got" = "$2" ] && [ ! -e "$work/refused" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED export_gguf.sh refuses: expected '$2', got '$got'"
  fi
}

# A tiny registry: one model of two tensors, the second in two chunks.
mkdir -p "$work"
rm -f "$work/tiny.db"
sqlite3 -bail "$work/tiny.db" ".load $ext" '.read sql/registry.sql' "
  INSERT INTO models (model_id, name, version, format, source, licence)
  VALUES (1, 'tiny', 'v1', 'other', 'run.sh', 'MIT');
  INSERT INTO tensors (tensor_id, model_id, name, shape, dtype, data, chunk, row_start, rows)
  VALUES (1, 1, 'w', '[2]', 'f32', q_f32('[1,2]'), 0, 0, NULL),
         (2, 1, 'c', '[2,2]', 'f32', q_f32('[1,2]'), 0, 0, 1),
         (3, 1, 'c', '[2,2]', 'f32', q_f32('[3,4]'), 1, 1, 1);
  INSERT INTO quantizations (quantization_id, tensor_id, dtype, granularity,
                             scale, zero_point, codes)
  VALUES (1, 3, 'int8', 'tensor', 1.0, 0, X'0304');"
refused "$work/tiny.db" \
  "export_gguf: '$work/tiny.db' has no policy with choices (policy_choices is empty)"
# One policy that keeps everything float, applied by the engine: the
# chunked tensor is outside policies (no choice), w's choice is float.
sqlite3 -bail "$work/tiny.db" ".load $ext" "
  INSERT INTO policies (policy_id, name) VALUES (1, 'chunks');
  INSERT INTO policy_rules (rule_id, policy_id, priority, dtype) VALUES (1, 1, 1, 'float');" \
  '.read sql/policy.sql' >/dev/null
sqlite3 -bail "$work/tiny.db" "UPDATE models SET name = 'a b'"
refused "$work/tiny.db" \
  "export_gguf: 'a b' cannot be a file name (letters, digits, '.', '_', '-'; not first '.')"
sqlite3 -bail "$work/tiny.db" "UPDATE models SET name = 'tiny'"
# A quantized tensor stored in chunks: the registry refuses the choice
# (export_gguf.sh refuses it too, for a registry made before that check).
got=$(sqlite3 -bail "$work/tiny.db" "
  BEGIN;
  INSERT INTO policy_rules (rule_id, policy_id, priority, dtype, granularity)
  VALUES (2, 1, 0, 'int8', 'tensor');
  INSERT INTO policy_choices VALUES (1, 3, 2, 1);" 2>&1) && got="succeeded"
case $got in
  *"policy_choices: tensor_id does not name a whole tensor (chunked tensors are outside policies)"*)
    passed=$((passed + 1)) ;;
  *) failed=$((failed + 1))
     echo "FAILED a choice of a chunked tensor refused: got '$got'" ;;
esac
# Only float choices: the policy quantizes nothing, so export_gguf.sh writes
# no file for it, says so, and fails for having written nothing.
rm -rf "$work/tiny"
if sh examples/export_gguf.sh "$work/tiny.db" "$work/tiny" >/dev/null 2>"$work/tiny.err"; then
  got="succeeded"
else
  got=$(cat "$work/tiny.err")
fi
want="export_gguf: WARNING: policy chunks quantizes nothing of tiny: every tensor stays float, so $work/tiny/chunks/tiny.gguf is not written (EXPORT_FLOAT=1 writes it)
  quantizes nothing: all 1 whole tensors stay float
export_gguf: no file written: no policy quantizes anything of its models"
if [ "$got" = "$want" ] && [ ! -e "$work/tiny/chunks/tiny.gguf" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED a policy that quantizes nothing is not written: got '$got'"
fi
# EXPORT_FLOAT=1 writes it anyway: a chunked tensor is written whole, from
# its chunks.  Run from another directory: DB and OUTDIR are the caller's
# paths, not the repository's.
(cd "$work" && EXPORT_FLOAT=1 sh ../../examples/export_gguf.sh tiny.db tiny >/dev/null)
got=$(sqlite3 "$work/tiny.db" "SELECT path FROM exports")
if [ "$got" = "tiny/chunks/tiny.gguf" ] && [ -f "$work/tiny/chunks/tiny.gguf" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED export_gguf.sh run from $work: exports path '$got'"
fi
# (The exports row holds the path as given there; made from the
# repository again for check_gguf.py below.)
EXPORT_FLOAT=1 sh examples/export_gguf.sh "$work/tiny.db" "$work/tiny" >/dev/null
got=$(sqlite3 "$work/tiny.db" ".load $ext" \
  "SELECT group_concat(name || shape || q_json(data), ' ')
   FROM q_tensors_file('$work/tiny/chunks/tiny.gguf')")
if [ "$got" = "w[2][1,2] c[2,2][1,2,3,4]" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED a chunked float tensor exported whole: got '$got'"
fi

# check_gguf DB: examples/check_gguf.py on DB's exports, its counts added.
check_gguf() {
  rc=0
  /usr/bin/python3 examples/check_gguf.py --db "$1" --lib "$lib" \
    --ext "$ext.so" >"$work/check.out" || rc=$?
  cat "$work/check.out"
  counts=$(sed -n 's/^check_gguf: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' \
    "$work/check.out")
  if [ -z "$counts" ]; then
    echo "FAILED check_gguf.py on $1 did not run to its end (status $rc)"
    failed=$((failed + 1))
  else
    passed=$((passed + ${counts% *}))
    failed=$((failed + ${counts#* }))
  fi
}

sh examples/fetch_models.sh build/models || {
  echo "test-gguf-export: $passed passed, $((failed + 1)) failed (the demo's models could not be fetched)"
  exit 1
}
kernel=$(sqlite3 :memory: ".load $ext" "SELECT json_extract(q_info(), '\$.kernel')")

# Exported twice: the exports rows end with the second run's paths, the ones
# check_gguf.py reads.
registry "$work/registry.db"
# Every kind of choice occurs: ggml types, int8 per tensor and per channel,
# int4 blocks on a tensor's own shape and on a conv kernel's matrix view,
# float.
got=$(sqlite3 "$work/registry.db" "
  SELECT group_concat(k, ', ') FROM (
    SELECT DISTINCT coalesce(q.dtype || ' ' || q.granularity
                             || CASE WHEN q.view_shape IS NOT NULL THEN ' view' ELSE '' END,
                             'float') AS k
    FROM policy_choices c LEFT JOIN quantizations q USING (quantization_id)
    ORDER BY k)")
want="float, int4 block, int4 block view, int8 channel, int8 tensor, q4_K ggml, q8_0 ggml"
if [ "$got" = "$want" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED the kinds of choice: expected '$want', got '$got'"
fi
sh examples/export_gguf.sh "$work/registry.db" "$work/first" >/dev/null
sh examples/export_gguf.sh "$work/registry.db" "$work/policies"
files=$(cd "$work/policies" && find . -name '*.gguf' | LC_ALL=C sort)
for f in $files; do same "$work/first/$f" "$work/policies/$f" "exported twice"; done

SQLITE_QUANT_KERNEL=scalar registry "$work/scalar.db"
SQLITE_QUANT_KERNEL=scalar sh examples/export_gguf.sh "$work/scalar.db" "$work/scalar" >/dev/null
for f in $files; do
  same "$work/policies/$f" "$work/scalar/$f" "the $kernel and scalar kernel paths"
done
echo "test-gguf-export: $(echo "$files" | wc -l) files the same when exported again and on the scalar path as on $kernel"

check_gguf "$work/tiny.db"
check_gguf "$work/registry.db"
echo "test-gguf-export: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
