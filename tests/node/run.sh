#!/bin/sh
# run.sh TARBALL: the npm package as a user installs it (make test-node).
#
# A throwaway project under build/npm-test gets TARBALL with `npm install
# --offline` (the package has no dependency to fetch; better-sqlite3 is an
# optional peer) and better-sqlite3 as a symlink to the machine-wide build of
# tests/node/better_sqlite3.sh, the one the Node example uses, so nothing is
# compiled twice.  tests/node/package_test.mjs then runs inside the project.
# The project is removed after a pass and kept after a failure, to look at.
set -eu
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(pwd)
project="$root/build/npm-test"
start=$(date +%s)

skip() {
  echo "SKIPPED test-node: $1"
  echo "test-node: 0 passed, 0 failed, 1 skipped"
  exit 0
}
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) ||
  skip "no node on PATH (Node 20 or later, for better-sqlite3 12)"
[ "$major" -ge 20 ] || skip "node $(node --version) is older than 20 (better-sqlite3 12 needs Node 20+)"
modules=$(sh tests/node/better_sqlite3.sh examples/node) ||
  skip "better-sqlite3 could not be built (offline? see npm's error above)"

rm -rf "$project"
mkdir -p "$project"
printf '{ "name": "throwaway", "private": true }\n' >"$project/package.json"
(cd "$project" && npm install --offline --no-audit --no-fund --loglevel=error "$tarball")
ln -s "$modules/better-sqlite3" "$project/node_modules/better-sqlite3"
cp tests/node/package_test.mjs "$project/"

if (cd "$project" && node package_test.mjs "$root/include/sqlite_quant.h"); then
  rm -rf "$project"
else
  echo "test-node: failed; the project is kept in $project" >&2
  exit 1
fi
