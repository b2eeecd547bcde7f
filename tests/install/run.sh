#!/bin/sh
# run.sh MAKE VERSION SO: `make install` and `make uninstall` tried the way a
# user or a packager would, in throwaway directories under build/:
#   1. DESTDIR=build/install-test/destdir with the default PREFIX: the exact
#      file list, the pkg-config file's version and paths (without DESTDIR),
#      the installed extension loaded from the sqlite3 shell with and without
#      its suffix, and a renamed copy, which loads only with the entry point
#      named; its exports are the two entry points, and the one without
#      files (sqlite3_quant_nofs_init) loads and has no q_tensors_file, in
#      the shared and in the static library; then uninstall leaves no file
#      and no extension directory;
#   2. PREFIX and LIBDIR set (no DESTDIR): the file list, then a C program
#      compiled and linked from the installed header and static library
#      through PKG_CONFIG_PATH and pkg-config, run; then uninstall.
# Each check compares one exact value.  Ends "install: N passed, N failed".
set -u
if [ $# -ne 3 ]; then
  echo "usage: sh tests/install/run.sh MAKE VERSION SO" >&2
  exit 2
fi
make=$1 version=$2 so=$3
top=$(pwd)/build/install-test
rm -rf "$top"
mkdir -p "$top"
passed=0 failed=0

. tests/check.sh

# The files under a directory, one line, sorted ("" when none).
files() { (cd "$1" && find . -type f | LC_ALL=C sort | tr '\n' ' '); }

# make with a log; a failure counts and shows the log.
run_make() { # NAME ARGS...
  name=$1
  shift
  if $make --no-print-directory "$@" >"$top/$name.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $name: make $*"
    cat "$top/$name.log"
  fi
}

# 1. DESTDIR, default PREFIX (/usr/local).
dest=$top/destdir
run_make install-destdir install DESTDIR="$dest"
check destdir-files "$(files "$dest")" \
  "./usr/local/bin/sqlite-quant ./usr/local/include/sqlite_quant.h ./usr/local/lib/libsqlite_quant.a ./usr/local/lib/pkgconfig/sqlite-quant.pc ./usr/local/lib/sqlite-quant/quant.$so "
check installed-cli-version \
  "$("$dest/usr/local/bin/sqlite-quant" --version 2>&1 | cut -d' ' -f1-2)" \
  "sqlite-quant $version"
# (pkg-config ends --libs with a space)
pc() { PKG_CONFIG_PATH=$dest/usr/local/lib/pkgconfig pkg-config "$@" 2>&1 | sed 's/ *$//'; }
check pc-version "$(pc --modversion sqlite-quant)" "$version"
check pc-extension "$(pc --variable=extension sqlite-quant)" \
  "/usr/local/lib/sqlite-quant/quant.$so"
check pc-libs "$(pc --libs sqlite-quant)" "-L/usr/local/lib -lsqlite_quant -lm"
ext=$dest$(pc --variable=extension sqlite-quant)
check shell-load "$(sqlite3 :memory: ".load $ext" 'SELECT q_version();' 2>&1)" \
  "$version"
check shell-load-no-suffix \
  "$(sqlite3 :memory: ".load ${ext%.$so}" 'SELECT q_version();' 2>&1)" "$version"
# SQLite derives the entry point from the file name: renamed.so ->
# sqlite3_renamed_init, which does not exist; naming it loads the file.
cp "$ext" "$top/renamed.$so"
check renamed-default \
  "$(cd "$top" && sqlite3 :memory: ".load ./renamed.$so" 'SELECT q_version();' 2>&1)" \
  "Error: ./renamed.$so: undefined symbol: sqlite3_renamed_init"
check renamed-entry-point \
  "$(cd "$top" && sqlite3 :memory: ".load ./renamed.$so sqlite3_quant_init" 'SELECT q_version();' 2>&1)" \
  "$version"
# The entry point for hosts whose users must not reach files.
check exports-entry-points \
  "$(nm -D --defined-only "$ext" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort | tr '\n' ' ')" \
  "sqlite3_quant_init sqlite3_quant_nofs_init "
# (the static library's other symbols are global but hidden)
check static-library-entry-points \
  "$(nm "$dest/usr/local/lib/libsqlite_quant.a" | awk '$2 == "T" && $3 ~ /^sqlite3_/ { print $3 }' | sort | tr '\n' ' ')" \
  "sqlite3_quant_init sqlite3_quant_nofs_init "
check header-declares-nofs \
  "$(grep -c '^int sqlite3_quant_nofs_init(' "$dest/usr/local/include/sqlite_quant.h")" 1
check shell-load-nofs \
  "$(sqlite3 :memory: ".load $ext sqlite3_quant_nofs_init" "SELECT json_extract(q_info(), '\$.files');" 2>&1)" 0
check shell-load-nofs-no-such-table \
  "$(sqlite3 :memory: ".load $ext sqlite3_quant_nofs_init" "SELECT count(*) FROM q_tensors_file('/etc/hostname');" 2>&1)" \
  "Error: in prepare, no such table: q_tensors_file"
run_make uninstall-destdir uninstall DESTDIR="$dest"
check destdir-after-uninstall "$(files "$dest")" ""
check destdir-extension-dir-removed \
  "$(test -e "$dest/usr/local/lib/sqlite-quant" && echo present || echo absent)" absent

# 2. PREFIX and LIBDIR, a program built from the installed files alone.
prefix=$top/prefix
run_make install-prefix install PREFIX="$prefix" LIBDIR="$prefix/lib64"
check prefix-files "$(files "$prefix")" \
  "./bin/sqlite-quant ./include/sqlite_quant.h ./lib64/libsqlite_quant.a ./lib64/pkgconfig/sqlite-quant.pc ./lib64/sqlite-quant/quant.$so "
export PKG_CONFIG_PATH=$prefix/lib64/pkgconfig
check prefix-pc-extension "$(pkg-config --variable=extension sqlite-quant 2>&1)" \
  "$prefix/lib64/sqlite-quant/quant.$so"
flags=$(pkg-config --cflags --libs sqlite-quant sqlite3 2>&1)
if cc -std=c11 -Wall -Wextra -o "$top/hello" tests/install/hello.c $flags \
     >"$top/hello.log" 2>&1; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAILED hello-build: cc tests/install/hello.c $flags"
  cat "$top/hello.log"
fi
check hello-run "$("$top/hello" 2>&1)" "$version $version"
check prefix-shell-load \
  "$(sqlite3 :memory: ".load $(pkg-config --variable=extension sqlite-quant)" 'SELECT q_version();' 2>&1)" \
  "$version"
run_make uninstall-prefix uninstall PREFIX="$prefix" LIBDIR="$prefix/lib64"
check prefix-after-uninstall "$(files "$prefix")" ""

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
