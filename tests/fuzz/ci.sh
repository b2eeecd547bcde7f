#!/bin/sh
# ci.sh: the fuzz run of `make fuzz-ci`: short, and the same inputs each time.
#
#   1. build/fuzz_sql over the committed corpus (tests/fuzz/corpus/sql), then
#      FUZZ_SQL_RUNS mutated inputs from -seed=1;
#   2. the committed corpus once more on the scalar and AVX2 kernel paths
#      (step 1 runs the best one the CPU has);
#   3. build/fuzz_parsers, FUZZ_PARSER_RUNS inputs from -seed=1;
#   4. build/fuzz_files over its committed seeds (tests/fuzz/corpus/files),
#      then FUZZ_FILES_RUNS mutated inputs from -seed=1;
#   5. build/fuzz_inflate over tests/fuzz/corpus/inflate, then
#      FUZZ_INFLATE_RUNS mutated inputs from -seed=1;
#   6. build/fuzz_models over tests/fuzz/corpus/models (valid files of every
#      format), then FUZZ_MODELS_RUNS inputs its structure-aware mutator
#      makes from -seed=1, each read, chunked, written back and quantized
#      through SQL.  It prints per format how many inputs gave tensor rows,
#      chunks under a small length limit, a file written and read back and
#      log2 rows from q_compare; any of those 0 for any format fails the
#      step (a fuzzer that gets nothing back tests nothing);
#   7. build/fuzz_imatrix over tests/fuzz/corpus/imatrix (a GGUF and a
#      legacy importance matrix), then FUZZ_IMATRIX_RUNS mutated inputs
#      from -seed=1: the tool's --imatrix reader; fewer than 1 in 50 inputs
#      giving entries fails the step.
#
# New inputs go to a scratch directory, never into the committed corpus.  A
# crash, sanitizer report, leak or timeout fails its step: the report is
# printed, and for the SQL target also the input as SQL (FUZZ_SQL_TRACE).
# The artifact stays in build/fuzz-ci/<step>/.  The last line is
# "fuzz: N passed, N failed": the inputs executed, the steps that found
# something.
set -u
cd "$(dirname "$0")/../.."

# About 60 s and 5 s on the 2-core machine this was written on; the files
# step about 18 s.  (Measured later on the same kind of machine: sql 111 s,
# parsers 8 s, files 56 s, inflate 69 s.)
sql_runs=${FUZZ_SQL_RUNS:-120000}
parser_runs=${FUZZ_PARSER_RUNS:-2000000}
files_runs=${FUZZ_FILES_RUNS:-2000000}
out=build/fuzz-ci
rm -rf "$out"
mkdir -p "$out/new-sql" "$out/new-parsers" "$out/new-files"

# The same inputs on every run needs, besides -seed: -reload=0 (libFuzzer
# otherwise rereads its corpus directory every second, so what it does depends
# on the clock), and the same addresses (comparisons of pointers feed its
# mutation dictionary), so address randomization is off where setarch may
# turn it off.
norandom=""
if setarch "$(uname -m)" -R true 2>/dev/null; then
  norandom="setarch $(uname -m) -R"
fi

passed=0
failed=0

# The number of inputs a libFuzzer log says it ran: "Done N runs", or after a
# crash the last "#N" status line, or per file "Executed ...".
count_runs() {
  n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$1" | tail -n 1)
  [ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$1" | tail -n 1)
  e=$(grep -c '^Executed ' "$1")
  [ "${n:-0}" -ge "$e" ] 2>/dev/null || n=$e
  echo "${n:-0}"
}

# step TAG NAME COMMAND...: runs a fuzzer whose log is $out/TAG.log and whose
# artifacts go to $out/TAG/, counts its inputs, reports a finding.
step() {
  tag=$1
  name=$2
  shift 2
  log=$out/$tag.log
  mkdir -p "$out/$tag"
  echo "=== fuzz-ci: $name"
  "$@" >"$log" 2>&1
  rc=$?
  n=$(count_runs "$log")
  passed=$((passed + n))
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "--- $name found something (exit $rc) after $n inputs:"
    grep -v '^#[0-9]\|^Running: \|^Executed ' "$log" | tail -n 60
    for a in "$out/$tag"/*; do
      [ -f "$a" ] || continue
      case "$tag" in
        sql*)
          echo "--- $a as SQL (load the extension first: .load dist/quant):"
          FUZZ_SQL_TRACE=1 ./build/fuzz_sql -runs=1 "$a" 2>&1 |
            grep -v '^INFO:\|^Running\|^Executed\|^\*\*\*\|^==\|^    #\|^SUMMARY' | head -n 40
          ;;
        models)
          echo "--- $a as SQL (FUZZ_MODELS_TRACE=1 keeps its files):"
          FUZZ_MODELS_TRACE=1 ./build/fuzz_models -runs=1 "$a" 2>&1 |
            grep -v '^INFO:\|^Running\|^Executed\|^\*\*\*\|^==\|^    #\|^SUMMARY' | cut -c1-400 | head -n 60
          ;;
      esac
    done
  else
    echo "$name: $n inputs, nothing found"
  fi
}

step sql "sql (seed 1, $sql_runs runs)" \
  $norandom ./build/fuzz_sql -seed=1 -reload=0 -runs="$sql_runs" -dict=tests/fuzz/sql.dict \
  -max_len=8192 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 -artifact_prefix="$out/sql/" \
  "$out/new-sql" tests/fuzz/corpus/sql

for k in scalar avx2; do
  step "sql-$k" "sql corpus on the $k path" \
    env SQLITE_QUANT_KERNEL=$k ./build/fuzz_sql -timeout=20 -rss_limit_mb=2048 \
    -malloc_limit_mb=256 -artifact_prefix="$out/sql-$k/" tests/fuzz/corpus/sql/*
done

step parsers "parsers (seed 1, $parser_runs runs)" \
  $norandom ./build/fuzz_parsers -seed=1 -reload=0 -runs="$parser_runs" -max_len=4096 \
  -artifact_prefix="$out/parsers/" "$out/new-parsers"

step files "files (seed 1, $files_runs runs)" \
  $norandom ./build/fuzz_files -seed=1 -reload=0 -runs="$files_runs" -max_len=1048577 \
  -len_control=20 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 \
  -artifact_prefix="$out/files/" "$out/new-files" tests/fuzz/corpus/files

inflate_runs=${FUZZ_INFLATE_RUNS:-200000}
mkdir -p "$out/new-inflate"
step inflate "inflate (seed 1, $inflate_runs runs)" \
  $norandom ./build/fuzz_inflate -seed=1 -reload=0 -runs="$inflate_runs" -max_len=262148 \
  -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 \
  -artifact_prefix="$out/inflate/" "$out/new-inflate" tests/fuzz/corpus/inflate

# 20,000 inputs took 32 s and 59 s in two runs of this script on the 2-core
# machine, both beside another job.
models_runs=${FUZZ_MODELS_RUNS:-20000}
mkdir -p "$out/new-models"
step models "models (seed 1, $models_runs runs)" \
  $norandom ./build/fuzz_models -seed=1 -reload=0 -runs="$models_runs" -max_len=65536 \
  -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 \
  -artifact_prefix="$out/models/" "$out/new-models" tests/fuzz/corpus/models
# What the models step got back, per format: every format must have given
# rows, chunks, a file read back and log2 rows (the seeds alone give each),
# and at least 1 in 10 of its inputs rows (the seeds are 1 in 100: the
# mutants must parse too).
if grep -q '^fuzz_models: [a-z]*: ' "$out/models.log"; then
  grep '^fuzz_models: [a-z]*: ' "$out/models.log"
  for fmt in safetensors gguf npy npz onnx tflite; do
    line=$(grep "^fuzz_models: $fmt: " "$out/models.log")
    for what in "with rows" "chunked" "written and read back" "with log2 rows"; do
      n=$(echo "$line" | sed -n "s/.* \([0-9]*\) $what.*/\1/p")
      if [ "${n:-0}" -eq 0 ]; then
        echo "--- models: no $fmt input $what: the fuzzer does not reach it"
        failed=$((failed + 1))
      fi
    done
    inputs=$(echo "$line" | sed -n "s/.*: \([0-9]*\) inputs.*/\1/p")
    rows=$(echo "$line" | sed -n "s/.* \([0-9]*\) with rows.*/\1/p")
    if [ $((${rows:-0} * 10)) -lt "${inputs:-0}" ]; then
      echo "--- models: $rows of $inputs $fmt inputs gave rows, fewer than 1 in 10"
      failed=$((failed + 1))
    fi
  done
else
  echo "--- models: no counts in $out/models.log"
  failed=$((failed + 1))
fi

imatrix_runs=${FUZZ_IMATRIX_RUNS:-20000}
mkdir -p "$out/new-imatrix"
step imatrix "imatrix (seed 1, $imatrix_runs runs)" \
  $norandom ./build/fuzz_imatrix -seed=1 -reload=0 -runs="$imatrix_runs" -max_len=65536 \
  -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=256 \
  -artifact_prefix="$out/imatrix/" "$out/new-imatrix" tests/fuzz/corpus/imatrix
# At least 1 in 50 inputs must give entries (20,000 from -seed=1 gave 1,119 here).
line=$(grep '^fuzz_imatrix: ' "$out/imatrix.log" | tail -n 1)
echo "${line:---- imatrix: no count in $out/imatrix.log}"
got=$(echo "$line" | sed -n 's/^fuzz_imatrix: \([0-9]*\) of \([0-9]*\) .*/\1/p')
all=$(echo "$line" | sed -n 's/^fuzz_imatrix: \([0-9]*\) of \([0-9]*\) .*/\2/p')
if [ -z "$got" ] || [ $((got * 50)) -lt "${all:-1}" ]; then
  echo "--- imatrix: ${got:-0} of ${all:-0} inputs gave entries, fewer than 1 in 50"
  failed=$((failed + 1))
fi

rm -rf "$out/new-sql" "$out/new-parsers" "$out/new-files" "$out/new-inflate" "$out/new-models" \
       "$out/new-imatrix"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
