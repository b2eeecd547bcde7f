#!/bin/sh
# run.sh DIR EXT DEBIAN_HOST REFUSED TESTED...: the SQLite version tests, run
# by `make test-sqlite-versions` once DIR holds the builds (see the Makefile
# block and fetch.sh).
#
# For each TESTED version V (DIR/V/libtclsqlite3.so, DIR/V/sqlhost):
#   0. every ext/sql, ext/formats and ext/core source compiles against V's
#      sqlite3.h and sqlite3ext.h (-fsyntax-only, an undeclared function an
#      error): for the oldest, proof that the code uses no newer API or flag.
#   1. the Tcl suite on every kernel path, on V's Tcl binding (run.tcl
#      -sqlite), each process first checking that sqlite_version() is V.
#      examples.test is left out: its examples run their own runtimes'
#      SQLite (the sqlite3 shell, Python, Node), never V.
#   2. the C SQL catalog (tests/host/queries.sql, every function) through
#      DIR/V/sqlhost, which links V statically, compared statement by
#      statement with DEBIAN_HOST's transcript (Debian's libsqlite3): the
#      extension's results must not depend on the SQLite it runs in.  The
#      host's own sqlite_version() must be V.
# Then the same sources must not compile against REFUSED's headers (they lack
# SQLITE_INNOCUOUS: the floor is not lower than it says), and REFUSED's shell
# (DIR/REFUSED/sqlite3) must refuse to load EXT with sqlite-quant's own error.
#
# Logs and transcripts stay in DIR/V/.  Ends with "sqlite-versions: N passed,
# N failed, N skipped" and exits non-zero on any failure.
set -u
if [ $# -lt 5 ]; then
  echo "usage: sh tests/sqlite-versions/run.sh DIR EXT DEBIAN_HOST REFUSED TESTED..." >&2
  exit 2
fi
dir=$1 ext=$2 debian_host=$3 refused=$4
shift 4
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(dirname "$here")
passed=0 failed=0 skipped=0

# Indented, so that no line of a sub-run reads as this run's closing line.
show() { sed 's/^/    /' "$1"; }

versions=$*
set --
for f in "$here"/*.test; do
  case $f in */examples.test) ;; *) set -- "$@" "$f" ;; esac
done
catalog=$here/host/queries.sql
printf 'SELECT sqlite_version();\n' >"$dir/version.sql"

if ! "$debian_host" "$ext" "$catalog" >"$dir/catalog-debian.txt" 2>"$dir/catalog-debian.err"; then
  echo "--- the catalog failed on Debian's SQLite"
  show "$dir/catalog-debian.err"
  failed=$((failed + 1))
fi
debian_version=$("$debian_host" "$ext" "$dir/version.sql" | sed -n 's/^row: text://p')

# compiles V: the extension's sources against V's headers; errors in
# DIR/V/compile.log (the C locale: plain quotes in the messages).
compiles() {
  : >"$dir/$1/compile.log"
  ok=0
  for f in "$root"/ext/sql/*.c "$root"/ext/formats/*.c "$root"/ext/core/*.c; do
    LC_ALL=C ${CC:-cc} -std=c11 -fsyntax-only -Werror=implicit-function-declaration \
      -I"$dir/$1" -I"$root/include" -I"$root/ext" "$f" >>"$dir/$1/compile.log" 2>&1 || ok=1
  done
  return $ok
}

for v in $versions; do
  echo "--- SQLite $v: the extension's sources against its headers"
  if compiles "$v"; then
    passed=$((passed + 1))
    echo "    they compile"
  else
    echo "FAILED the sources do not compile against SQLite $v's headers:"
    grep 'error' "$dir/$v/compile.log" | head -n 10 | sed 's/^/    /'
    failed=$((failed + 1))
  fi

  echo "--- SQLite $v: the Tcl suite, every kernel path"
  tclsh "$here/run.tcl" -sqlite "$dir/$v/libtclsqlite3.so" -sqlite-version "$v" \
    "$ext" "$@" >"$dir/$v/suite.log" 2>&1
  rc=$?
  # The skips' reasons, each once (every path prints them), then the counts.
  grep '^SKIPPED' "$dir/$v/suite.log" | sort -u | sed 's/^/    /'
  grep -v '^SKIPPED' "$dir/$v/suite.log" | sed 's/^/    /'
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$dir/$v/suite.log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "    the suite printed no total"
    failed=$((failed + 1))
  else
    np=$(echo "$line" | cut -d' ' -f1)
    nf=$(echo "$line" | cut -d' ' -f3)
    ns=$(echo "$line" | cut -d' ' -f5)
    passed=$((passed + np)) failed=$((failed + nf)) skipped=$((skipped + ns))
    [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ] && failed=$((failed + 1))
    echo "    SQLite $v suite: $np passed, $nf failed, $ns skipped"
  fi

  echo "--- SQLite $v: the C SQL catalog against Debian's SQLite $debian_version"
  got=$("$dir/$v/sqlhost" "$ext" "$dir/version.sql" | sed -n 's/^row: text://p')
  if [ "$got" = "$v" ]; then
    passed=$((passed + 1))
  else
    echo "FAILED the static host runs SQLite '$got', not $v"
    failed=$((failed + 1))
  fi
  "$dir/$v/sqlhost" "$ext" "$catalog" >"$dir/$v/catalog.txt" 2>"$dir/$v/catalog.err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAILED the catalog on SQLite $v stopped (exit $rc)"
    show "$dir/$v/catalog.err"
    failed=$((failed + 1))
  fi
  # One record per statement, opening with sqlhost's "## N (line L) SQL".
  counts=$(awk -v ref="$dir/catalog-debian.txt" -v v="$v" -v dv="$debian_version" '
    FILENAME != cur { cur = FILENAME; f = (FILENAME == ref) ? 1 : 2; k = 0 }
    /^## [0-9]+ [(]line [0-9]+[)] / { k++; head[f, k] = $0; if (k > n) n = k }
    { body[f, k] = body[f, k] $0 "\n" }
    END {
      alike = 0; diff = 0; refused = 0
      for (i = 0; i <= n; i++) {
        if (body[1, i] == body[2, i]) { if (i > 0) alike++; continue }
        # The path writers refuse rows before SQLite 3.36.0 (docs/FORMATS.md#file-writers).
        if (body[2, i] ~ /_write: needs SQLite 3\.36\.0 or later/) { refused++; continue }
        diff++
        printf "FAILED catalog statement %d: %s\n", i, (head[1, i] != "" ? head[1, i] : head[2, i])
        printf "    SQLite %s:\n%s    SQLite %s:\n%s", dv, body[1, i], v, body[2, i]
      }
      print alike, diff, refused
    }' "$dir/catalog-debian.txt" "$dir/$v/catalog.txt" | tee "$dir/$v/catalog.compare" | tail -n 1)
  sed '$d' "$dir/$v/catalog.compare"
  case $counts in
    [0-9]*" "[0-9]*" "[0-9]*)
      alike=${counts%% *} rest=${counts#* }
      different=${rest%% *} writers_refused=${rest#* }
      echo "    SQLite $v catalog: $alike statements alike, $different different, $writers_refused skipped (path writers the SQLite is too old for)"
      passed=$((passed + alike)) failed=$((failed + different)) skipped=$((skipped + writers_refused)) ;;
    *)
      echo "FAILED the catalog comparison itself"
      failed=$((failed + 1)) ;;
  esac
done

echo "--- SQLite $refused (older than the oldest supported): its headers lack what the sources use"
if compiles "$refused"; then
  echo "FAILED the sources compile against SQLite $refused's headers: is the floor lower than 3.31.0?"
  failed=$((failed + 1))
elif grep -q "'SQLITE_INNOCUOUS' undeclared" "$dir/$refused/compile.log"; then
  passed=$((passed + 1))
  echo "    $(grep -c 'error:' "$dir/$refused/compile.log") errors, SQLITE_INNOCUOUS undeclared among them"
else
  echo "FAILED the sources fail to compile against SQLite $refused's headers, but not for SQLITE_INNOCUOUS:"
  grep 'error' "$dir/$refused/compile.log" | head -n 10 | sed 's/^/    /'
  failed=$((failed + 1))
fi

echo "--- SQLite $refused: the extension refuses to load"
# The shell prints the version (stdout), then SQLite's wrapping of the
# extension's error (stderr), and stops with a non-zero status.
want_err="Error: error during initialization: sqlite-quant: needs SQLite 3.31.0 or later, got $refused"
got=$("$dir/$refused/sqlite3" :memory: 'SELECT sqlite_version();' ".load $ext" \
        'SELECT q_version();' 2>"$dir/refused.err")
rc=$?
got_err=$(cat "$dir/refused.err")
if [ "$rc" -ne 0 ] && [ "$got" = "$refused" ] && [ "$got_err" = "$want_err" ]; then
  passed=$((passed + 1))
  echo "    $got_err"
else
  failed=$((failed + 1))
  echo "FAILED the $refused shell (exit $rc) printed:"
  echo "    stdout: $got"
  echo "    stderr: $got_err"
  echo "  expected a non-zero exit and:"
  echo "    stdout: $refused"
  echo "    stderr: $want_err"
fi

echo "sqlite-versions: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
