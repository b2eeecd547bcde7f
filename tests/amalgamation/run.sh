#!/bin/sh
# run.sh REF_EXT SQLHOST STATIC_TEST AMALG_EXT...: the single-file
# amalgamation (dist/sqlite-quant.c, tools/amalgamate.py) checked as users
# would use it.
#   - its shape: every ext/ source inlined exactly once, every header at most
#     once, no project #include left, the version in its first comment, the
#     public header copied unchanged; a second run writes the same bytes;
#   - no fused multiply-add in the -std=gnu11 -O3 -march=native build (where
#     gcc fuses a*b+c unless the amalgamation's pragma stops it), against a
#     control built with the same flags that does fuse;
#   - each AMALG_EXT (a loadable file built from it) passes the Tcl suite on
#     every kernel path, and writes the SQL catalog's transcript
#     (tests/host/queries.sql through SQLHOST) byte for byte as REF_EXT, the
#     Makefile's build, does;
#   - STATIC_TEST, the amalgamation compiled into a program with SQLITE_CORE;
#   - with -s390x HOST EXT (s390x builds of tests/host/sqlhost.c and of the
#     amalgamation), the catalog under qemu-s390x, big-endian, byte for byte
#     as on x86-64; skipped without;
#   - with -omit-fs EXT (the amalgamation built with -DSQLITE_QUANT_OMIT_FS
#     and -Wall -Wextra -Werror, so the guards leave nothing unused): no
#     file-system call among its imports (nm), against the normal build,
#     which has them; its default entry point registers exactly what
#     REF_EXT's sqlite3_quant_nofs_init does, q_info() says "files": false,
#     and the path functions are SQLite's "no such table/function".
# Ends "amalgamation: N passed, N failed, N skipped".
set -u
s390x_host="" s390x_ext="" omit_fs_ext=""
while :; do
  case "${1:-}" in
    -s390x) s390x_host=$2 s390x_ext=$3; shift 3 ;;
    -omit-fs) omit_fs_ext=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 4 ]; then
  echo "usage: sh tests/amalgamation/run.sh [-s390x HOST EXT] [-omit-fs EXT] REF_EXT SQLHOST STATIC_TEST AMALG_EXT..." >&2
  exit 2
fi
ref=$1 host=$2 static_test=$3
shift 3
amalg=dist/sqlite-quant.c
out=build/amalg
mkdir -p "$out"
passed=0 failed=0 skipped=0

. tests/check.sh

# Adds a child's last "N passed, N failed[, N skipped]" line to the totals;
# a child that fails without saying so counts as one failure.
count() { # RC OUTPUT_FILE
  line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1))
    return
  fi
  p=$(echo "$line" | sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed.*/\2/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + ${s:-0}))
  [ "$1" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
}

# ---- shape ----------------------------------------------------------------
marker() { grep -c "^/\*\*\*\*\*\*\*\*\*\*\*\*\*\* begin $1 \*\*\*\*\*\*\*\*\*\*\*\*\*\*/\$" "$amalg"; }
bad=""
for f in ext/*/*.c; do
  [ "$(marker "$f")" = 1 ] || bad="$bad $f"
done
check every-source-once "$bad" ""
# A header with an include guard (its first directive an #ifndef) is inlined
# at most once; one without is a template (the x86 kernels' width
# vocabulary and bodies), inlined at each of its #includes.
bad=""
tbad=""
for f in ext/*/*.h include/*.h; do
  if grep -m1 '^[[:space:]]*#' "$f" | grep -q '^[[:space:]]*#[[:space:]]*ifndef'; then
    [ "$(marker "$f")" -le 1 ] || bad="$bad $f"
  else
    uses=$(cat ext/*/*.c ext/*/*.h | grep -c "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"${f#ext/}\"")
    [ "$(marker "$f")" = "$uses" ] || tbad="$tbad $f"
  fi
done
check headers-at-most-once "$bad" ""
check templates-at-every-include "$tbad" ""
check no-project-includes "$(grep -c '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$amalg")" 0
version=$(sed -n 's/^#define SQLITE_QUANT_VERSION "\(.*\)"/\1/p' include/sqlite_quant.h)
check version-in-comment "$(sed -n 2p "$amalg")" \
  "** sqlite-quant $version: a SQLite extension for quantizing float tensors stored"
check header-copied "$(cmp include/sqlite_quant.h dist/sqlite_quant.h 2>&1)" ""
/usr/bin/python3 tools/amalgamate.py "$out/again"
check reproducible "$(cmp "$amalg" "$out/again/sqlite-quant.c" 2>&1)" ""

# ---- no fused multiply-add ---------------------------------------------------
fma='v?f(n?m(add|sub))[0-9]{3}[sp][sd]'
native=""
for so in "$@"; do
  case $so in */native/*) native=$so ;; esac
done
if ! grep -qw fma /proc/cpuinfo 2>/dev/null; then
  skipped=$((skipped + 2))
  echo "SKIPPED fma: this CPU has no FMA, so -march=native cannot fuse"
elif [ -z "$native" ] || ! command -v objdump >/dev/null 2>&1; then
  skipped=$((skipped + 2))
  echo "SKIPPED fma: no */native/* build given, or objdump missing (binutils)"
else
  printf 'float f(float a, float b, float c) { return a * b + c; }\n' >"$out/fma_control.c"
  gcc -std=gnu11 -O3 -march=native -c "$out/fma_control.c" -o "$out/fma_control.o"
  check fma-control-fuses \
    "$(objdump -d "$out/fma_control.o" | grep -cE "$fma")" 1
  check fma-none-in-native-build "$(objdump -d "$native" | grep -cE "$fma")" 0
fi

# ---- the suite and the catalog, per build -------------------------------------
LC_ALL=C "$host" "$ref" tests/host/queries.sql >"$out/catalog-ref.txt" 2>&1
check catalog-reference-runs "$?" 0
for so in "$@"; do
  name=$(basename "$(dirname "$so")")
  echo "=== the suite against $so"
  tclsh tests/run.tcl "$so" >"$out/suite-$name.txt" 2>&1
  rc=$?
  grep -E '^(FAILED|[a-z0-9]+: [0-9]+ passed)' "$out/suite-$name.txt"
  count "$rc" "$out/suite-$name.txt"
  LC_ALL=C "$host" "$so" tests/host/queries.sql >"$out/catalog-$name.txt" 2>&1
  check "catalog-$name-same-bytes" \
    "$(cmp "$out/catalog-ref.txt" "$out/catalog-$name.txt" 2>&1)" ""
done

if [ -n "$s390x_ext" ]; then
  echo "=== the catalog on s390x (qemu) against $s390x_ext"
  qemu-s390x "$s390x_host" "$s390x_ext" tests/host/queries.sql >"$out/catalog-s390x.txt" 2>&1
  check catalog-s390x-same-bytes \
    "$(cmp "$out/catalog-ref.txt" "$out/catalog-s390x.txt" 2>&1)" ""
else
  skipped=$((skipped + 1))
  echo "SKIPPED catalog-s390x: no s390x tools (sh tests/ensure-deps.sh s390x)"
fi

# ---- without the file system (SQLITE_QUANT_OMIT_FS) ------------------------------
# The calls of the path code (reading and writing model files, ONNX's
# external data): none may be imported by a build without it.
fs_calls='^(open|open64|openat|openat64|creat|creat64|close|read|pread|pread64|write|pwrite|pwrite64|lseek|lseek64|fstat|fstat64|stat|stat64|lstat|lstat64|fstatat|statx|mmap|mmap64|munmap|madvise|fsync|fdatasync|ftruncate|ftruncate64|copy_file_range|sendfile|rename|renameat|renameat2|link|linkat|unlink|unlinkat|realpath|mkstemp|mkostemp|fopen|fopen64|opendir|fdopendir|readdir|readdir64|closedir|readlink|flock|fchmod|fchmodat)$'
fs_imports() { nm -D --undefined-only "$1" | awk '{ sub(/@.*/, "", $2); print $2 }' | grep -E "$fs_calls" | tr '\n' ' '; }
# What a connection has: functions (name, arity), modules, q_info's "files".
surface() { # EXT ENTRY
  sqlite3 -batch :memory: ".load $1 $2" "SELECT group_concat(x, ' ') FROM (
    SELECT name || '/' || narg AS x FROM pragma_function_list
     WHERE name LIKE 'q\_%' ESCAPE '\' OR name LIKE '%quantize%'
    UNION ALL SELECT name FROM pragma_module_list WHERE name LIKE 'q\_%' ESCAPE '\'
    UNION ALL SELECT 'files=' || json_extract(q_info(), '\$.files') ORDER BY 1)" 2>&1
}
if [ -z "$omit_fs_ext" ]; then
  skipped=$((skipped + 1))
  echo "SKIPPED omit-fs: no -omit-fs build given"
elif ! command -v nm >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
  skipped=$((skipped + 1))
  echo "SKIPPED omit-fs: nm (binutils) or the sqlite3 shell missing"
else
  echo "=== without the file system: $omit_fs_ext"
  normal=$1
  check omit-fs-control-normal-build-imports-file-calls \
    "$([ -n "$(fs_imports "$normal")" ] && echo some || echo none)" some
  check omit-fs-imports-no-file-calls "$(fs_imports "$omit_fs_ext")" ""
  check omit-fs-exports-both-entry-points \
    "$(nm -D --defined-only "$omit_fs_ext" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort | tr '\n' ' ')" \
    "sqlite3_quant_init sqlite3_quant_nofs_init "
  nofs=$(surface "$ref" sqlite3_quant_nofs_init)
  check omit-fs-reference-nofs-has-no-files \
    "$(echo "$nofs" | tr ' ' '\n' | grep '^files=')" "files=0"
  check omit-fs-init-is-the-nofs-set "$(surface "$omit_fs_ext" sqlite3_quant_init)" "$nofs"
  check omit-fs-nofs-is-the-nofs-set "$(surface "$omit_fs_ext" sqlite3_quant_nofs_init)" "$nofs"
  check omit-fs-no-such-table \
    "$(sqlite3 -batch :memory: ".load $omit_fs_ext" "SELECT * FROM q_tensors_file('/etc/hostname')" 2>&1)" \
    "Error: in prepare, no such table: q_tensors_file"
  check omit-fs-no-such-writer \
    "$(sqlite3 -batch :memory: ".load $omit_fs_ext" "INSERT INTO q_gguf_write (path, name, data, type, shape) VALUES ('x.gguf', 'w', X'0000803F', 'f32', '[1]')" 2>&1)" \
    "Error: in prepare, no such table: q_gguf_write"
  check omit-fs-blob-reader-works \
    "$(sqlite3 -batch :memory: ".load $omit_fs_ext" "SELECT name, shape FROM q_tensors((SELECT q_npz_agg('w', q_f32('[1, 2]'), 'f32', '[2]')))" 2>&1)" \
    "w|[2]"
fi

# ---- linked in, not loaded -------------------------------------------------------
"$static_test" >"$out/static.txt" 2>&1
rc=$?
cat "$out/static.txt"
count "$rc" "$out/static.txt"

echo "amalgamation: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
