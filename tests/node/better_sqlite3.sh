#!/bin/sh
# better_sqlite3.sh PROJECT_DIR: print the path of a node_modules directory
# holding a built better-sqlite3, the version PROJECT_DIR's package-lock.json
# pins, filling a machine-wide cache the first time.
#
# Its prebuilt binary cannot be downloaded here, so `npm ci` compiles it from
# source (its bundled SQLite and the addon: over a minute on two cores).  The
# result depends only on better-sqlite3's version, Node's module ABI
# (process.versions.modules), the platform and the architecture, so it is
# built once per machine under that key and every clone reuses it:
#
#   ${SQLITE_QUANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sqlite-quant}/
#       better-sqlite3-VERSION-node-abiABI-PLATFORM-ARCH/node_modules
#
# An entry is filled in a temporary directory beside it and renamed into
# place once it loads, so a reader never sees half an entry; concurrent
# fillers wait on a lock (flock) and reuse the winner's.  Remove the
# directory to rebuild.  Progress goes to stderr; stdout is the path alone.
set -eu
project=${1:?usage: better_sqlite3.sh PROJECT_DIR}
project=$(cd "$project" && pwd)
cache=${SQLITE_QUANT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sqlite-quant}

key=$(cd "$project" && node -e '
  const lock = require("./package-lock.json");
  const v = lock.packages["node_modules/better-sqlite3"].version;
  const p = process;
  console.log(`better-sqlite3-${v}-node-abi${p.versions.modules}-${p.platform}-${p.arch}`);
')
entry="$cache/$key"

# A complete entry loads and opens a database.
loads() {
  (cd "$1" && node -e 'new (require("better-sqlite3"))(":memory:").close()') \
    >/dev/null 2>&1
}

fill() {
  loads "$entry/node_modules" && return 0
  tmp=$(mktemp -d "$cache/.fill-XXXXXX")
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  cp "$project/package.json" "$project/package-lock.json" "$tmp/"
  echo "better_sqlite3.sh: building $key (npm ci, once per machine) into $entry" >&2
  start=$(date +%s)
  (cd "$tmp" && npm ci --no-audit --no-fund --fetch-retries=1) >&2
  loads "$tmp/node_modules" || {
    echo "better_sqlite3.sh: the better-sqlite3 just built does not load" >&2
    exit 1
  }
  # The objects and the bundled SQLite sources are only needed to rebuild.
  b="$tmp/node_modules/better-sqlite3"
  rm -rf "$b/build/Release/obj" "$b/build/Release/obj.target" \
         "$b/build/Release/.deps" "$b/build/Release/sqlite3.a" \
         "$b/build/Release/test_extension.node" "$b/deps" "$b/src"
  loads "$tmp/node_modules"
  rm -rf "$entry"
  mv "$tmp" "$entry"
  trap - EXIT
  echo "better_sqlite3.sh: built in $(($(date +%s) - start)) s" >&2
}

mkdir -p "$cache"
if ! loads "$entry/node_modules"; then
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/.$key.lock"
    flock 9
  fi
  fill
fi
echo "$entry/node_modules"
