#!/bin/sh
# run.sh BIN: the command-line tool (docs/CLI.md) as a user meets it.
#   - info's output on committed files, byte for byte (tests/cli/*.out: the
#     tables, --json, escaped names, cut metadata, --full);
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
# golden NAME FILE ARGS...: stdout equals FILE byte for byte, stderr is
# empty, exit code 0.
golden() {
  name=$1 want=$2
  shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
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
