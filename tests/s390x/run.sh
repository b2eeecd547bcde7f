#!/bin/sh
# run.sh DIR NATIVE_EXT NATIVE_HOST CATALOG...: the big-endian proof, run by
# `make test-s390x` once the s390x builds are in DIR (kernel_test, quant.so,
# sqlhost).
#
# 1. DIR/kernel_test under qemu-s390x: the scalar kernels' own checks.
# 2. Each CATALOG through DIR/sqlhost + DIR/quant.so under qemu-s390x, and
#    through NATIVE_HOST + NATIVE_EXT on this x86-64 host twice: with the
#    scalar kernels (SQLITE_QUANT_KERNEL=scalar, the code s390x runs) and with
#    the default (best vector) path.  The stored formats are little-endian on
#    every host, so the three transcripts must be equal byte for byte; they
#    are cut into one record per statement and compared record by record, so
#    a difference names its query.
#
# Prints every differing query with the lines each host printed differently,
# then one closing line `s390x: N passed, N failed` (kernel-test checks plus
# compared statements) and exits non-zero if anything failed.  The
# transcripts stay in DIR (NAME.s390x.txt, ...) for a closer look.
set -u
if [ $# -lt 4 ]; then
  echo "usage: sh tests/s390x/run.sh DIR NATIVE_EXT NATIVE_HOST CATALOG..." >&2
  exit 2
fi
dir=$1 native_ext=$2 native_host=$3
shift 3
here=$(dirname "$0")
qemu=${QEMU_S390X:-qemu-s390x}
passed=0
failed=0

# The counts a program printed in its own "N passed, N failed" line.
add_counts() {
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}

# Indented, so that no line of a sub-run reads as this run's closing line.
show() { sed 's/^/    /' "$1"; }

echo "--- s390x kernel tests (scalar) under $qemu"
"$qemu" "$dir/kernel_test" >"$dir/kernel_test.log" 2>&1
rc=$?
show "$dir/kernel_test.log"
add_counts "$dir/kernel_test.log"
if [ "$rc" -ne 0 ]; then
  echo "s390x kernel tests: exit status $rc"
  # A crash may leave a clean count line behind; it still fails.
  grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' "$dir/kernel_test.log" ||
    failed=$((failed + 1))
fi

# One transcript per host.  A host that stops early (an exit status, or
# nothing on stdout) is one failure more, besides the statements it lacks.
run_host() {
  out=$1; shift
  "$@" >"$dir/$out.txt" 2>"$dir/$out.err"
  rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$dir/$out.txt" ]; then
    echo "--- $out: exit status $rc"
    show "$dir/$out.err"
    failed=$((failed + 1))
  fi
}

for catalog in "$@"; do
  name=$(basename "$catalog" .sql)
  echo "--- $catalog on s390x (qemu) and x86-64 (scalar, default kernel)"
  run_host "$name.s390x" env -u SQLITE_QUANT_KERNEL \
    "$qemu" "$dir/sqlhost" "$dir/quant.so" "$catalog"
  run_host "$name.x86-64-scalar" env SQLITE_QUANT_KERNEL=scalar \
    "$native_host" "$native_ext" "$catalog"
  run_host "$name.x86-64-default" env -u SQLITE_QUANT_KERNEL \
    "$native_host" "$native_ext" "$catalog"
  counts=$(awk -f "$here/compare.awk" "$dir/$name.s390x.txt" \
      "$dir/$name.x86-64-scalar.txt" "$dir/$name.x86-64-default.txt" |
    tee "$dir/$name.compare.log" | tail -n 1)
  sed '$d' "$dir/$name.compare.log"
  case "$counts" in
    *[0-9]" "[0-9]*)
      echo "    $catalog: ${counts%% *} statements alike, ${counts##* } different"
      passed=$((passed + ${counts%% *}))
      failed=$((failed + ${counts##* })) ;;
    *) echo "    $catalog: the comparison itself failed"
      failed=$((failed + 1)) ;;
  esac
done

echo "s390x: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
