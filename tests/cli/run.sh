#!/bin/sh
# run.sh BIN: the command-line tool (docs/CLI.md) as a user meets it.
#   - info's output on committed files, byte for byte (tests/cli/*.out: the
#     tables, --json, escaped names, cut metadata, --full);
#   - compare's totals and per-tensor rows on a model made here, byte for
#     byte; its progress lines; Ctrl-C (exit code 130, no output);
#   - quantize: the plan (--dry-run) byte for byte, the file's types and
#     metadata, progress, the options, a failure or Ctrl-C mid-write
#     leaving no file (and an old OUT as it was), each refusal;
#   - errors: the message on stderr, nothing on stdout, exit code 1 for a
#     failure (a missing file, a fifo refused without blocking, a format
#     that does not match, output that cannot be written) and 2 for a bad
#     command line (the line, then the pointer to --help);
#   - --help, help COMMAND, --version.
# Each check compares one exact value.  Ends "cli: N passed, N failed".
set -u
if [ $# -ne 1 ]; then
  echo "usage: sh tests/cli/run.sh BIN" >&2
  exit 2
fi
bin=$1
here=tests/cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0 failed=0
. tests/check.sh

# run NAME ARGS...: runs the tool; $out, $err and $rc are what it did.
run() {
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
# golden NAME FILE ARGS...: stdout equals FILE byte for byte (with this
# run's scratch directory written TMP), stderr is empty, exit code 0.
golden() {
  name=$1 want=$2
  shift 2
  "$bin" "$@" 2>"$tmp/err" | sed "s|$tmp|TMP|g" >"$tmp/out"
  rc=$("$bin" "$@" >/dev/null 2>&1; echo $?)
  check "$name-rc" "$rc" 0
  check "$name-stderr" "$(cat "$tmp/err")" ""
  if cmp -s "$tmp/out" "$want"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $name: stdout differs from $want"
    diff "$want" "$tmp/out" | head -20
  fi
}
# fails NAME RC STDERR ARGS...: exit code RC, that stderr, no stdout.
fails() {
  name=$1 want_rc=$2 want_err=$3
  shift 3
  run "$@"
  check "$name-rc" "$rc" "$want_rc"
  check "$name-stderr" "$err" "$want_err"
  check "$name-stdout" "$out" ""
}

# ---- info: the tables and the JSON, on committed files ----------------------
golden info-gguf $here/info_basic_gguf.out info tests/data/gguf/basic.gguf
golden info-gguf-json $here/info_basic_gguf.json info --json tests/data/gguf/basic.gguf
golden info-safetensors-json $here/info_basic_safetensors.json \
  info tests/data/safetensors/basic.safetensors --json
golden info-format-given $here/info_basic_safetensors.json \
  info --format=safetensors --json tests/data/safetensors/basic.safetensors
# Names are escaped for the terminal: tab and newline as \x09, \x0a.
golden info-escaped-names $here/info_names_escaped.out \
  info tests/data/safetensors/names_escaped.safetensors
golden info-onnx $here/info_constants_onnx.out info tests/data/onnx/constants.onnx
golden info-empty-json $here/info_empty_gguf.json info --json tests/data/gguf/empty.gguf

# A long array shows its item count and a long string is cut, unless --full.
sqlite3 :memory: ".load dist/quant" "SELECT writefile('$tmp/long.gguf',
  q_gguf_agg('w', X'0000803F', 'f32', '[1]',
    json_object('long.array', json_object('type', 'array[int32]', 'value',
                  (SELECT json(json_group_array(value)) FROM generate_series(1, 100))),
                'long.text', json_object('type', 'string', 'value',
                  'a café of seventy characters, more or less, to be cut at sixty'))));" \
  >/dev/null
run info "$tmp/long.gguf"
check info-long-array "$(echo "$out" | grep long.array)" \
  "  long.array  array[int32]  [100 items]"
check info-long-text "$(echo "$out" | grep long.text)" \
  '  long.text   string        "a café of seventy characters, more or less, to be cut at...'
run info --full "$tmp/long.gguf"
check info-full-array "$(echo "$out" | grep -c '^  long.array  array\[int32\]  \[1,2,3,.*,99,100\]$')" 1
check info-full-text "$(echo "$out" | grep long.text)" \
  '  long.text   string        "a café of seventy characters, more or less, to be cut at sixty"'

# ---- failures: exit 1, the message on stderr --------------------------------
fails info-missing 1 "sqlite-quant: info: cannot open '$tmp/nope': no such file" \
  info "$tmp/nope"
mkfifo "$tmp/fifo"
fails info-fifo 1 "sqlite-quant: info: '$tmp/fifo' is not a regular file (a fifo)" \
  info "$tmp/fifo"
fails info-directory 1 "sqlite-quant: info: '$tmp' is not a regular file (a directory)" \
  info "$tmp"
fails info-wrong-format 1 "sqlite-quant: info: npy: not a .npy file (no \\x93NUMPY magic)" \
  info --format npy tests/data/gguf/basic.gguf
fails info-unknown-format 1 \
  "sqlite-quant: info: unknown file format 'x' (expected safetensors, gguf, npy, npz, onnx or tflite)" \
  info --format x tests/data/gguf/basic.gguf
printf 'GGUF\003\000\000\000' > "$tmp/short.gguf"
run info "$tmp/short.gguf"
check info-truncated-rc "$rc" 1
check info-truncated-prefix "${err%%:*}: $(echo "$err" | cut -d: -f2)" "sqlite-quant:  info"
check info-truncated-stdout "$out" ""
if [ -w /dev/full ]; then
  "$bin" info tests/data/gguf/basic.gguf >/dev/full 2>"$tmp/err"
  check info-full-disk-rc $? 1
  check info-full-disk-stderr "$(cat "$tmp/err")" "sqlite-quant: info: cannot write the output"
fi

# ---- compare: a model made here, its totals byte for byte --------------------
# Two 2-D f32 tensors and a 1-D one, values exact in float32.
sqlite3 :memory: ".load dist/quant" "
  WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < 8191),
  v(x) AS (SELECT q_f32(json_group_array(((k * 37) % 101 - 50) / 8.0 * (1 + (k % 64) / 16))) FROM i)
  SELECT writefile('$tmp/m.safetensors', q_safetensors_agg(name, data, 'f32', shape)) FROM (
    SELECT 'a.weight' AS name, (SELECT x FROM v) AS data, '[64,128]' AS shape
    UNION ALL SELECT 'b.weight', (SELECT x FROM v), '[128,64]'
    UNION ALL SELECT 'norm', q_f32('[1,2,3,4]'), '[4]');" >/dev/null
golden compare-table $here/compare_m.out compare --quiet "$tmp/m.safetensors"
golden compare-json $here/compare_m.json compare --quiet --json --tensors \
  --ggml q8_0+q4_0+q4_K --options "dtypes=int8 blocks=none" "$tmp/m.safetensors"
run compare --quiet --all --options "dtypes=int8 blocks=none" "$tmp/m.safetensors"
check compare-all-summary "$(echo "$out" | head -n 1)" \
  "$tmp/m.safetensors: 3 tensors, 16388 weights, 4 schemes"
run compare --progress --options "dtypes=int8 blocks=none" "$tmp/m.safetensors"
check compare-progress "$err" "[1/2] a.weight f32 [64,128]
[2/2] b.weight f32 [128,64]"
check compare-progress-rc "$rc" 0
run compare --quiet --ggml q8_0+q4_K+iq4_xs --options "dtypes=int8 blocks=none" "$tmp/m.safetensors"
check compare-not-applied "$(echo "$out" | tail -n 1)" \
  "  not applied to any tensor (rows not whole blocks): q4_K, iq4_xs"
run compare --quiet tests/data/safetensors/empty_tensor.safetensors
check compare-empty-skipped "$out" "tests/data/safetensors/empty_tensor.safetensors: 0 tensors, 0 weights, 0 schemes"
fails compare-nonfinite 1 "sqlite-quant: compare: tensor 'f64.4d': element 4 is inf" \
  compare --quiet --all tests/data/gguf/basic.gguf
fails compare-bad-options 1 \
  "sqlite-quant: compare: option blocks needs positive block sizes, got '0'" \
  compare --quiet --options blocks=0 "$tmp/m.safetensors"
fails compare-missing 1 "sqlite-quant: compare: cannot open '$tmp/nope': no such file" \
  compare "$tmp/nope"
fails compare-no-file 2 "sqlite-quant: compare: FILE is missing
try 'sqlite-quant compare --help'" compare --quiet
fails compare-ggml-no-value 2 "sqlite-quant: compare: --ggml needs a value
try 'sqlite-quant compare --help'" compare x --ggml
# Ctrl-C: stopped at once, nothing on stdout, "interrupted", exit code 130.
sqlite3 :memory: ".load dist/quant" "
  WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < 65535),
  v(x) AS (SELECT q_f32(json_group_array(((k * 37) % 101 - 50) / 10.0)) FROM i)
  SELECT writefile('$tmp/big.safetensors',
                   q_safetensors_agg('w' || value, (SELECT x FROM v), 'f32', '[256,256]'))
    FROM generate_series(1, 256);" >/dev/null
# interrupt ARGS...: runs the tool in the background, sends SIGINT once its
# first progress line is out, and sets $rc to its exit status.
interrupt() {
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  n=0
  while ! grep -q '^\[ *1/256\]' "$tmp/err" 2>/dev/null && [ $n -lt 3000 ]; do
    sleep 0.01
    n=$((n + 1))
  done
  kill -INT $pid
  wait $pid
  rc=$?
}
interrupt compare --progress "$tmp/big.safetensors"
check compare-sigint-rc "$rc" 130
check compare-sigint-stderr "$(tail -n 1 "$tmp/err")" "sqlite-quant: compare: interrupted"
check compare-sigint-stdout "$(cat "$tmp/out")" ""

# ---- quantize: a small llama-shaped model made here ---------------------------
# (tests/llama/quantize_check.py compares the files with llama.cpp's own.)
# f16 weights of 64 columns (whole q4_0 blocks, not whole q4_K blocks: the
# output's q6_K falls back to q8_0) and one of 256.
mkmodel() {  # mkmodel FILE NAN: NAN 1 makes element 6 of blk.0.attn_q.weight NaN
  sqlite3 :memory: ".load dist/quant" "
    WITH t(name, rows, cols, dtype) AS (VALUES
      ('token_embd.weight', 8, 64, 'f16'), ('blk.0.attn_norm.weight', 1, 64, 'f32'),
      ('blk.0.attn_q.weight', 64, 64, 'f16'), ('blk.0.ffn_up.weight', 4, 256, 'f16'),
      ('output.weight', 8, 64, 'f16')),
    w(name, rows, cols, dtype, x) AS (SELECT name, rows, cols, dtype,
      (SELECT q_f32(json_group_array(((value * 37) % 101 - 50) / 50.0))
         FROM generate_series(1, rows * cols)) FROM t),
    v(name, rows, cols, dtype, x) AS (SELECT name, rows, cols, dtype,
      CASE WHEN $2 AND name = 'blk.0.attn_q.weight'
           THEN CAST(substr(x, 1, 24) || X'0000C07F' || substr(x, 29) AS BLOB)
           ELSE x END FROM w)
    SELECT writefile('$1', q_gguf_agg(name,
        CASE dtype WHEN 'f16' THEN q_f16(x) ELSE x END, dtype,
        CASE rows WHEN 1 THEN json_array(cols) ELSE json_array(rows, cols) END,
        '{\"general.architecture\":{\"type\":\"string\",\"value\":\"llama\"},
          \"general.file_type\":{\"type\":\"uint32\",\"value\":1}}'))
      FROM v;" >/dev/null
}
mkmodel "$tmp/ll.gguf" 0
mkmodel "$tmp/nan.gguf" 1
golden quantize-dry-run $here/quantize_dry_run.out quantize --dry-run "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-dry-run-no-file "$(ls "$tmp/q.gguf" 2>&1 >/dev/null | wc -l)" 1
run quantize --quiet "$tmp/ll.gguf" "$tmp/q.gguf" q4_0
check quantize-rc "$rc" 0
check quantize-quiet "$out$err" ""
run info "$tmp/q.gguf"
check quantize-types "$(echo "$out" | awk '/^  [a-z_.0-9]+ +[a-z0-9_A-Z]+ +\[/ {print $1, $2}' | tr '\n' ' ')" \
  "output.weight q8_0 token_embd.weight q4_0 blk.0.attn_norm.weight f32 blk.0.attn_q.weight q4_0 blk.0.ffn_up.weight q4_0 "
check quantize-file-type "$(echo "$out" | grep -E 'general\.(file_type|quantization_version)' | tr -s ' ')" \
  " general.quantization_version uint32 2
 general.file_type uint32 2"
run quantize --progress "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-progress "$err" "[1/5] output.weight f16 [8,64] -> q8_0 0.00 MiB -> 0.00 MiB
[2/5] token_embd.weight f16 [8,64] -> q4_0 0.00 MiB -> 0.00 MiB
[3/5] blk.0.attn_norm.weight f32 [64] copied
[4/5] blk.0.attn_q.weight f16 [64,64] -> q4_0 0.01 MiB -> 0.00 MiB
[5/5] blk.0.ffn_up.weight f16 [4,256] -> q4_0 0.00 MiB -> 0.00 MiB"
check quantize-summary "$(echo "$out" | sed "s|$tmp|TMP|")" \
  "TMP/q.gguf: 5 tensors, 0.01 MiB -> 0.00 MiB (16.16 -> 5.11 bits per weight)"
run quantize --dry-run --pure "$tmp/ll.gguf" "$tmp/q.gguf" Q4_K_M
check quantize-fallback "$(echo "$out" | grep attn_q | tr -s ' ')" \
  " blk.0.attn_q.weight [64,64] f16 q5_0 2816 fallback: rows not whole blocks of the type (q4_K)"
run quantize --dry-run --tensor-type 'attn_q=q8_0' --token-embedding-type Q5_1 \
  --leave-output-tensor "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-options "$(echo "$out" | awk 'NR > 1 && !/bits per weight/ {print $1, $4, $6}' | tr '\n' ' ')" \
  "output.weight f16 kept: token_embd.weight q5_1 --token-embedding-type blk.0.attn_norm.weight f32 kept: blk.0.attn_q.weight q8_0 --tensor-type blk.0.ffn_up.weight q4_0 mixture: "
# A budget: the measured choice within 6 bits per weight, exported as
# llama-quantize's --tensor-type lines; a target no candidate reaches.
run quantize --dry-run --target-bpw 6 "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-budget-types "$(echo "$out" | awk 'NR > 1 && !/bits per weight/ && !/^--/ {print $1, $4}' | tr '\n' ' ')" \
  "output.weight q5_0 token_embd.weight q5_0 blk.0.attn_norm.weight f32 blk.0.attn_q.weight q5_0 blk.0.ffn_up.weight q6_K "
check quantize-budget-total "$(echo "$out" | grep '^dry run')" \
  "dry run, nothing written: 5 tensors, 0.01 MiB -> 0.00 MiB (16.16 -> 5.95 bits per weight)"
check quantize-budget-lines "$(echo "$out" | grep '^--tensor-type' | head -n 2)" \
  "--tensor-type '^output\\.weight\$=q5_0'
--tensor-type '^token_embd\\.weight\$=q5_0'"
run quantize --dry-run --target-bpw 6 --output-tensor-type q8_0 "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-budget-keeps-user-types "$(echo "$out" | grep '^  output.weight' | tr -s ' ')" \
  " output.weight [8,64] f16 q8_0 544 --output-tensor-type"
fails quantize-budget-too-low 1 "sqlite-quant: quantize: --target-bpw 4 is below the 4.4742 bits per weight of the cheapest candidates (q2_K where it fits, else q4_0; the tensors kept as stored count too)" \
  quantize --dry-run --target-bpw 4 "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
fails quantize-budget-bad 2 "sqlite-quant: quantize: --target-bpw is a number of bits per weight above 0 and at most 32, got '0'
try 'sqlite-quant quantize --help'" quantize --target-bpw 0 a b Q4_0
# What reached nothing is said on stderr, and the work goes on: a pattern
# that matched no tensor; an imatrix (here only its token_embd entry, of
# another model's width, which llama.cpp ignores) that has no entry for the
# quantized tensors.
run quantize --dry-run --tensor-type nosuch=q8_0 "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-warn-pattern "$rc $err" "0 sqlite-quant: quantize: warning: --tensor-type 'nosuch' matched no tensor"
run quantize --dry-run --imatrix tests/fuzz/corpus/imatrix/tiny.gguf.imatrix \
  --include-weights token_embd "$tmp/ll.gguf" "$tmp/q.gguf" Q4_0
check quantize-warn-imatrix "$rc $err" "0 sqlite-quant: quantize: warning: the imatrix has no entry for 4 of the 4 quantized tensors; they are quantized without importance"
# A failure while writing leaves OUT as it was, and nothing beside it.
mkdir "$tmp/d" && echo keep >"$tmp/d/q.gguf"
fails quantize-nan 1 "sqlite-quant: quantize: tensor 'blk.0.attn_q.weight': element 6 is NaN" \
  quantize --quiet "$tmp/nan.gguf" "$tmp/d/q.gguf" Q4_0
check quantize-nan-kept "$(cat "$tmp/d/q.gguf")" keep
check quantize-nan-nothing-beside "$(ls -A "$tmp/d")" q.gguf
fails quantize-iq-needs-imatrix 1 "sqlite-quant: quantize: tensor 'blk.0.ffn_up.weight': type iq2_xxs needs an importance matrix (--imatrix)" \
  quantize "$tmp/ll.gguf" "$tmp/d/iq.gguf" IQ2_XXS --pure
check quantize-iq-no-file "$(ls -A "$tmp/d")" q.gguf
fails quantize-requantize 1 "sqlite-quant: quantize: tensor 'token_embd.weight': requantizing from type q4_0 is disabled (--allow-requantize)" \
  quantize "$tmp/q.gguf" "$tmp/d/r.gguf" Q8_0
fails quantize-missing 1 "sqlite-quant: quantize: cannot open '$tmp/nope': no such file" \
  quantize "$tmp/nope" "$tmp/d/x.gguf" Q4_0
fails quantize-mixture-needs-layers 1 "sqlite-quant: quantize: the Q4_K_M mixture needs the model's layer count (llama.block_count), which IN does not have; --pure quantizes every tensor to q4_K" \
  quantize "$tmp/ll.gguf" "$tmp/d/k.gguf" Q4_K_M
fails quantize-unknown-ftype 2 "sqlite-quant: quantize: unknown FTYPE 'Q9_9'
try 'sqlite-quant quantize --help'" quantize a b Q9_9
fails quantize-nthreads 2 "sqlite-quant: quantize: NTHREADS is 0..256, got 'four'
try 'sqlite-quant quantize --help'" quantize a b Q4_0 four
# The same bytes for any number of threads.
"$bin" quantize --quiet "$tmp/ll.gguf" "$tmp/t1.gguf" Q4_0 1
"$bin" quantize --quiet "$tmp/ll.gguf" "$tmp/t3.gguf" Q4_0 3
check quantize-threads-same "$(cmp "$tmp/t1.gguf" "$tmp/t3.gguf" && cmp "$tmp/t1.gguf" "$tmp/q.gguf" && echo same)" same
fails quantize-imatrix-not-imatrix 1 "sqlite-quant: quantize: imatrix '$tmp/ll.gguf': not an imatrix file (general.type is not \"imatrix\")" \
  quantize --imatrix "$tmp/ll.gguf" "$tmp/ll.gguf" "$tmp/d/i.gguf" Q4_0
fails quantize-imatrix-not-legacy 1 "sqlite-quant: quantize: imatrix '$tmp/m.safetensors': an entry's name is cut short" \
  quantize --imatrix "$tmp/m.safetensors" "$tmp/ll.gguf" "$tmp/d/i.gguf" Q4_0
printf '\002\000\000\000' >"$tmp/short.dat"
fails quantize-imatrix-legacy-short 1 "sqlite-quant: quantize: imatrix '$tmp/short.dat': not an imatrix file (neither GGUF nor the legacy format: a bad entry count)" \
  quantize --imatrix "$tmp/short.dat" "$tmp/ll.gguf" "$tmp/d/i.gguf" Q4_0
fails quantize-imatrix-directory 1 "sqlite-quant: quantize: imatrix '$tmp/d': not a regular file" \
  quantize --imatrix "$tmp/d" "$tmp/ll.gguf" "$tmp/d/i.gguf" Q4_0
mkfifo "$tmp/fifo.dat"
fails quantize-imatrix-fifo 1 "sqlite-quant: quantize: imatrix '$tmp/fifo.dat': not a regular file" \
  quantize --imatrix "$tmp/fifo.dat" "$tmp/ll.gguf" "$tmp/d/i.gguf" Q4_0
fails quantize-include-needs-imatrix 2 "sqlite-quant: quantize: --include-weights and --exclude-weights choose imatrix entries; --imatrix is missing
try 'sqlite-quant quantize --help'" quantize --include-weights attn a b Q4_0
fails quantize-include-exclude 2 "sqlite-quant: quantize: --include-weights and --exclude-weights cannot be used together
try 'sqlite-quant quantize --help'" quantize --imatrix i --include-weights a --exclude-weights b a b Q4_0
fails quantize-keep-split 2 "sqlite-quant: quantize: --keep-split is llama-quantize's, not built here yet
try 'sqlite-quant quantize --help'" quantize --keep-split a b Q4_0
fails quantize-bad-kv 2 "sqlite-quant: quantize: --override-kv: TYPE is int, float, bool or str, got 'i32'
try 'sqlite-quant quantize --help'" quantize --override-kv a=i32:1 a b Q4_0
fails quantize-bad-type 2 "sqlite-quant: quantize: --tensor-type: unknown ggml type 'q9_0'
try 'sqlite-quant quantize --help'" quantize --tensor-type attn=q9_0 "$tmp/ll.gguf" b Q4_0
fails quantize-few-args 2 "sqlite-quant: quantize: IN, OUT and FTYPE are needed
try 'sqlite-quant quantize --help'" quantize a b
# Ctrl-C while writing: exit 130, no file.
interrupt quantize --progress "$tmp/big.safetensors" "$tmp/d/big.gguf" F16
check quantize-sigint-rc "$rc" 130
check quantize-sigint-stderr "$(tail -n 1 "$tmp/err")" "sqlite-quant: quantize: interrupted"
check quantize-sigint-no-file "$(ls -A "$tmp/d")" q.gguf

# ---- the command line: exit 2 ------------------------------------------------
fails info-no-file 2 "sqlite-quant: info: FILE is missing
try 'sqlite-quant info --help'" info
fails info-two-files 2 "sqlite-quant: info: one FILE only, got 'b' after 'a'
try 'sqlite-quant info --help'" info a b
fails info-unknown-option 2 "sqlite-quant: info: unknown option '--frob'
try 'sqlite-quant info --help'" info --frob x
fails info-format-no-value 2 "sqlite-quant: info: --format needs a value
try 'sqlite-quant info --help'" info x --format
fails no-such-command 2 "sqlite-quant: no command 'frob'
try 'sqlite-quant --help'" frob
fails help-no-such-command 2 "sqlite-quant: no command 'frob'
try 'sqlite-quant --help'" help frob
run
check no-arguments-rc "$rc" 2
check no-arguments-stderr-first "$(echo "$err" | head -n 1)" "usage: sqlite-quant COMMAND [OPTIONS] ARGS"
check no-arguments-stdout "$out" ""

# ---- help and version --------------------------------------------------------
run --help
check help-rc "$rc" 0
check help-first "$(echo "$out" | head -n 1)" "usage: sqlite-quant COMMAND [OPTIONS] ARGS"
check help-lists-info "$(echo "$out" | grep -c '^  info       what a model file holds')" 1
check help-lists-compare "$(echo "$out" | grep -c '^  compare    each quantization scheme')" 1
run info --help
check info-help-rc "$rc" 0
check info-help-first "$(echo "$out" | head -n 1)" \
  "usage: sqlite-quant info [--format F] [--json] [--full] FILE"
info_help=$out
run help info
check help-info-same "$out" "$info_help"
version=$(sed -n 's/^#define SQLITE_QUANT_VERSION "\(.*\)"/\1/p' include/sqlite_quant.h)
sqlite_version=$(sqlite3 :memory: 'SELECT sqlite_version();')
run --version
check version "$(echo "$out" | sed 's/, kernels [a-z0-9]*)$/)/')" \
  "sqlite-quant $version (SQLite $sqlite_version)"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
