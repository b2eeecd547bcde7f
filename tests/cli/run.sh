#!/bin/sh
# run.sh BIN: the command-line tool (docs/CLI.md) as a user meets it.
#   - info's output on committed files, byte for byte (tests/cli/*.out: the
#     tables, --json, escaped names, cut metadata, --full);
#   - compare's totals and per-tensor rows on a model made here, byte for
#     byte; its progress lines; Ctrl-C (exit code 130, no output);
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
"$bin" compare --progress "$tmp/big.safetensors" >"$tmp/out" 2>"$tmp/err" &
pid=$!
n=0
while ! grep -q '^\[ *1/256\]' "$tmp/err" 2>/dev/null && [ $n -lt 3000 ]; do
  sleep 0.01
  n=$((n + 1))
done
kill -INT $pid
wait $pid
check compare-sigint-rc $? 130
check compare-sigint-stderr "$(tail -n 1 "$tmp/err")" "sqlite-quant: compare: interrupted"
check compare-sigint-stdout "$(cat "$tmp/out")" ""

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
