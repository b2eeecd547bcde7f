#!/bin/sh
# run.sh EXT: the ONNX export and its evaluation in ONNX Runtime, end to end
# (make test-onnx-export).  EXT is the extension without its suffix
# (dist/quant).
#
# Builds its own registry in build/onnx_export/ (Silero VAD imported as the
# demo does, the demo's quantizations, the fixture policies of
# tests/onnx_export/policies.sql applied by sql/policy.sql), exports every
# policy with examples/export_onnx.py, runs them with
# examples/evaluate_vad.mjs on the deterministic stand-in audio of
# tests/onnx_export/synth_audio.py, records the results with
# examples/record_evaluations.sql, and checks:
#   - each exports row has its file's size and sha256; a second export
#     writes the same bytes, and so does a registry quantized on the scalar
#     kernel path (SQLITE_QUANT_KERNEL=scalar);
#   - each file's DequantizeLinear nodes (count, code type, axis,
#     block_size), Reshapes and remaining float weights;
#   - ONNX Runtime loads and runs every file; without weight pre-packing,
#     each quantized model's outputs equal bit for bit those of the same
#     model holding the registry's dequantized floats (so the runtime's
#     DequantizeLinear gives exactly the registry's values), and the
#     all-float policy's equal the original float model's (the move to
#     opset 21 changes nothing);
#   - the evaluations rows equal the results file, and a re-run replaces them;
#     a policy whose file changes (a new rule, the engine run again) loses
#     its evaluations, one written again with the same bytes keeps them;
#   - each error path's exact message.
# Needs the models (examples/fetch_models.sh) and onnxruntime-node
# (examples/fetch_onnxruntime.sh): fetched here, cached in build/.
set -u
cd "$(dirname "$0")/../.."
ext=${1:-dist/quant}
py=/usr/bin/python3
work=build/onnx_export
db=$work/test.db
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $1" >&2; }
# eq NAME EXPECTED ACTUAL
eq() {
  if [ "$2" = "$3" ]; then ok; else
    bad "$1"; printf '  expected: %s\n  got:      %s\n' "$2" "$3" >&2; fi
}
die() { echo "test-onnx-export: $1" >&2; echo "test-onnx-export: $passed passed, $((failed + 1)) failed"; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }
q() { sqlite3 "$db" "$@"; }

sh examples/fetch_models.sh build/models >/dev/null || die "the models could not be fetched"
sh examples/fetch_onnxruntime.sh build/onnxruntime || die "onnxruntime-node could not be fetched"

# registry DB: the demo's import and quantizations, and the fixture policies
registry() {
  sqlite3 -bail "$1" ".load $ext" \
    ".parameter set @models 'build/models'" \
    ".parameter set @silero_sha256 '$(sha256 build/models/silero_vad_v5.onnx)'" \
    ".parameter set @mediapipe_sha256 '$(sha256 build/models/face_detection_short_range.tflite)'" \
    '.read sql/registry.sql' '.read examples/import_models.sql' \
    '.read examples/demo_queries.sql' '.read tests/onnx_export/policies.sql' \
    '.read sql/policy.sql' \
    >"$1.out" || die "the registry could not be built (see $1.out)"
}
rm -rf "$work"
mkdir -p "$work"
registry "$db"
"$py" tests/onnx_export/synth_audio.py "$work/audio" >/dev/null || die "synth_audio.py failed"

policies="fx-float fx-int4-block32 fx-int8-channel fx-int8-tensor fx-mixed fx-other"

# --- Export ---------------------------------------------------------------
"$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/policies" \
  --dequantized >"$work/export.out" || die "export_onnx.py failed"
for p in $policies; do
  f=$work/policies/$p/silero_vad.onnx
  eq "$p: exports row" "$f|$(stat -c %s "$f")|$(sha256 "$f")" \
     "$(q "SELECT path, bytes, sha256 FROM exports JOIN policies USING (policy_id) WHERE name = '$p' AND format = 'onnx'")"
  cp "$f" "$work/$p.first.onnx"
done
"$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/policies" \
  >/dev/null || die "export_onnx.py failed the second time"
for p in $policies; do
  if cmp -s "$work/$p.first.onnx" "$work/policies/$p/silero_vad.onnx"; then ok; else
    bad "$p: a second export wrote different bytes"; fi
done

# The same files from a registry quantized on the scalar kernel path.
SQLITE_QUANT_KERNEL=scalar registry "$work/scalar.db"
SQLITE_QUANT_KERNEL=scalar "$py" examples/export_onnx.py --db "$work/scalar.db" --ext "$ext" \
  --out-dir "$work/scalar" >/dev/null || die "export_onnx.py failed on the scalar path"
for p in $policies; do
  if cmp -s "$work/$p.first.onnx" "$work/scalar/$p/silero_vad.onnx"; then ok; else
    bad "$p: the scalar kernel path's registry gives different bytes"; fi
done

# --- What each file holds -------------------------------------------------
d=$work/policies
expected="$d/fx-float/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 0 [] axis [] block_size []; Reshape 0; float weights 16
$d/fx-int4-block32/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 16 [22x16] axis [1x16] block_size [32x16]; Reshape 12; float weights 0
$d/fx-int8-channel/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 16 [3x16] axis [0x16] block_size [-x16]; Reshape 0; float weights 0
$d/fx-int8-tensor/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 16 [3x16] axis [-x16] block_size [-x16]; Reshape 0; float weights 0
$d/fx-mixed/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 10 [3x10] axis [0x10] block_size [-x10]; Reshape 0; float weights 6
$d/fx-other/silero_vad.onnx: opset 21 ir 10; DequantizeLinear 16 [2x10,21x4,5x2] axis [-x2,0x10,1x4] block_size [-x12,32x4]; Reshape 0; float weights 0"
got=$("$py" tests/onnx_export/inspect_onnx.py $(for p in $policies; do echo "$d/$p/silero_vad.onnx"; done))
echo "$expected" >"$work/inspect.expected"
echo "$got" >"$work/inspect.got"
i=0
for p in $policies; do
  i=$((i + 1))
  eq "$p: the file's nodes" "$(sed -n "${i}p" "$work/inspect.expected")" "$(sed -n "${i}p" "$work/inspect.got")"
done

# --- ONNX Runtime -----------------------------------------------------------
models=$(for p in $policies; do echo "$d/$p/silero_vad.onnx"; done)
if node examples/evaluate_vad.mjs --audio "$work/audio/manifest.json" \
     --input-set 'synthetic stand-in' --out "$work/evaluations.json" $models \
     >"$work/evaluate.out" 2>&1; then ok; else
  bad "evaluate_vad.mjs: ONNX Runtime did not run every export"; cat "$work/evaluate.out" >&2; fi
node examples/evaluate_vad.mjs --audio "$work/audio/manifest.json" --prepacking off \
  --out "$work/exact.json" $models \
  $(for p in $policies; do echo "$d/$p/silero_vad.dequantized.onnx"; done) \
  >"$work/exact.out" 2>&1 || die "evaluate_vad.mjs --prepacking off failed: $(cat "$work/exact.out")"
# hash FILE PATH RATE: the output hash of one model at one rate
hash() {
  "$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(*[e["output_sha256"] for e in r["evaluations"] + r["float"]
        if e["path"] == sys.argv[2] and e["sample_rate"] == int(sys.argv[3])])' "$@"
}
for p in $policies; do
  for rate in 16000 8000; do
    a=$(hash "$work/exact.json" "$d/$p/silero_vad.onnx" $rate)
    b=$(hash "$work/exact.json" "$d/$p/silero_vad.dequantized.onnx" $rate)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else
      bad "$p $rate Hz: DequantizeLinear's outputs differ from the dequantized floats' ($a vs $b)"; fi
  done
done
for run in evaluations exact; do
  for rate in 16000 8000; do
    eq "fx-float $rate Hz ($run): the same outputs as the float model" \
       "$(hash "$work/$run.json" build/models/silero_vad_v5.onnx $rate)" \
       "$(hash "$work/$run.json" "$d/fx-float/silero_vad.onnx" $rate)"
  done
done

# --- The registry's evaluations -------------------------------------------
record() {
  sqlite3 -bail "$db" ".parameter set @results $1" '.read examples/record_evaluations.sql'
}
eq "record_evaluations: recorded" \
   "record_evaluations: 12 evaluations recorded (onnxruntime-node 1.30.0, synthetic stand-in)" \
   "$(record "$work/evaluations.json" 2>&1)"
# Compared as numbers, in Python: SQLite prints a REAL with 15 digits.
eq "evaluations rows equal the results file" "equal" \
   "$("$py" -c 'import json, sqlite3, sys
r = json.load(open(sys.argv[1]))
want = sorted((e["path"], e["sample_rate"], e["frames"], e["mean_abs_diff"],
               e["max_abs_diff"], e["decisions_changed"]) for e in r["evaluations"])
got = sorted(sqlite3.connect(sys.argv[2]).execute(
    "SELECT path, sample_rate, frames, mean_abs_diff, max_abs_diff, decisions_changed"
    " FROM evaluations JOIN exports USING (export_id)").fetchall())
print("equal" if want == got else "differ: %r vs %r" % (want, got))' \
      "$work/evaluations.json" "$db")"
eq "fx-float: no output difference, no decision changed" "0.0|0.0|0" \
   "$(q "SELECT max(mean_abs_diff), max(max_abs_diff), sum(decisions_changed) FROM evaluations
         JOIN exports USING (export_id) JOIN policies USING (policy_id) WHERE name = 'fx-float'")"
ids=$(q 'SELECT group_concat(evaluation_id) FROM evaluations')
record "$work/evaluations.json" >/dev/null 2>&1
eq "a re-run replaces the rows in place" "$ids" "$(q 'SELECT group_concat(evaluation_id) FROM evaluations')"

# A policy whose file changes loses its evaluations; the others keep theirs.
# fx-mixed's output convolution goes int8 per tensor: a new first rule, and
# the engine makes the choices again.
q "INSERT INTO policy_rules (policy_id, priority, model_glob, name_glob, dtype, scheme, granularity)
   SELECT policy_id, 0, 'silero_vad', '*decoder.decoder.2.weight', 'int8', 'affine', 'tensor'
   FROM policies WHERE name = 'fx-mixed'"
sqlite3 -bail "$db" ".load $ext" '.read sql/policy.sql' >/dev/null || die "policy.sql failed after the rule change"
eq "fx-mixed: the new rule decides the output convolutions" "int8 tensor affine|int8 tensor affine" \
   "$(q "SELECT group_concat(q.label, '|') FROM policy_choices c JOIN policies p USING (policy_id)
         JOIN tensors t USING (tensor_id) JOIN quantizations q USING (quantization_id)
         WHERE p.name = 'fx-mixed' AND t.name GLOB '*decoder.decoder.2.weight'")"
"$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/policies" \
  --policy fx-mixed --policy fx-float >/dev/null || die "export_onnx.py failed the third time"
eq "a changed file's evaluations are deleted, an unchanged one's kept" "fx-float 2|fx-int4-block32 2|fx-int8-channel 2|fx-int8-tensor 2|fx-other 2" \
   "$(q "SELECT group_concat(n, '|') FROM (SELECT name || ' ' || count(*) AS n FROM evaluations
         JOIN exports USING (export_id) JOIN policies USING (policy_id) GROUP BY name ORDER BY name)")"

# --- Errors -------------------------------------------------------------------
eq "export_onnx: unknown policy" "export_onnx: no such policy: nope" \
   "$("$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/x" --policy nope 2>&1)"
eq "export_onnx: another model file" \
   "export_onnx: $db has no silero_vad model imported from build/models/face_detection_short_range.tflite (same sha256)" \
   "$("$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/x" \
        --model build/models/face_detection_short_range.tflite 2>&1)"
q "INSERT INTO policies (name) VALUES ('no-choices')"
eq "export_onnx: a policy with no choices for the model" \
   "export_onnx: no-choices: no choices for silero_vad; nothing written|0" \
   "$("$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/x" --policy no-choices 2>&1)|$(q "SELECT count(*) FROM exports JOIN policies USING (policy_id) WHERE name = 'no-choices'")"
q "DELETE FROM policies WHERE name = 'no-choices'"
# The registry refuses such a name; a registry made before it checked could
# hold one (ignore_check_constraints stands in for it): the exporter refuses.
eq "registry: a policy name that is no directory name" \
   "Error: stepping, CHECK constraint failed: policy_name (19)" \
   "$(q "INSERT INTO policies (name) VALUES ('a/b')" 2>&1)"
q 'PRAGMA ignore_check_constraints = 1' "INSERT INTO policies (name) VALUES ('a/b')"
eq "export_onnx: a policy name that is no directory name" \
   "export_onnx: policy names become directories: letters, digits, '.', '_' and '-' only, got 'a/b'" \
   "$("$py" examples/export_onnx.py --db "$db" --ext "$ext" --out-dir "$work/x" --policy a/b 2>&1)"
q "DELETE FROM policies WHERE name = 'a/b'"
printf '[{"name": "loud", "sample_rate": 44100, "path": "%s", "samples": 1}]\n' \
  "$work/audio/synthetic0_16k.f32" >"$work/bad_manifest.json"
eq "evaluate_vad: a sample rate Silero does not take" \
   "evaluate_vad: $work/bad_manifest.json: clip 0 (loud): sample_rate must be 16000 or 8000, got 44100" \
   "$(node examples/evaluate_vad.mjs --audio "$work/bad_manifest.json" --out "$work/x.json" 2>&1)"
head -c 1000 "$d/fx-int8-tensor/silero_vad.onnx" >"$work/truncated.onnx"
got=$(node examples/evaluate_vad.mjs --audio "$work/audio/manifest.json" --out "$work/x.json" \
        "$work/truncated.onnx" 2>&1)
case "$got" in
  "evaluate_vad: ONNX Runtime cannot load $work/truncated.onnx: "*) ok ;;
  *) bad "evaluate_vad: a truncated model"; echo "  got: $got" >&2 ;;
esac
"$py" -c 'import json, sys
r = json.load(open(sys.argv[1])); r["evaluations"][0]["path"] = "elsewhere.onnx"
json.dump(r, open(sys.argv[2], "w"))' "$work/evaluations.json" "$work/stray.json"
got=$(record "$work/stray.json" 2>&1)
status=$?
eq "record_evaluations: a result that is no export" \
   "record_evaluations: elsewhere.onnx is not an ONNX export in this registry
Runtime error near line 38: CHECK constraint failed: every_result_is_an_onnx_export (19)|1" \
   "$got|$status"

echo "test-onnx-export: $passed passed, $failed failed"
[ "$failed" = 0 ]
