#!/bin/sh
# run.sh TARBALL: the npm package as a user installs it (make test-node).
#
# A throwaway project under build/npm-test gets TARBALL with `npm install
# --offline` (the package has no dependency to fetch; better-sqlite3 is an
# optional peer) and better-sqlite3 as a symlink to the machine-wide build of
# tests/node/better_sqlite3.sh, the one the Node example uses, so nothing is
# compiled twice.  Inside the project, tsc checks the declarations
# (types_test.mts), docs/NODE.md's example runs (readme_example.mjs) and
# tests/node/package_test.mjs runs.
# The project is removed after a pass and kept after a failure, to look at.
set -eu
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(pwd)
project="$root/build/npm-test"

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
cp tests/node/package_test.mjs tests/node/types_test.mts tests/node/readme_example.mjs "$project/"

# The declarations: TypeScript and Node's types, pinned with their sha512 in
# tests/node/types/package-lock.json, installed once under build/node-types
# (npm ci checks each tarball against the lock) and reused while the lock is
# the same.  Offline, the check is counted as skipped, never as passed.
types="$root/build/node-types"
tsc_passed=0 tsc_failed=0 tsc_skipped=0
if ! { cmp -s tests/node/types/package-lock.json "$types/package-lock.json" &&
       [ -x "$types/node_modules/.bin/tsc" ]; }; then
  rm -rf "$types"
  mkdir -p "$types"
  cp tests/node/types/package.json tests/node/types/package-lock.json "$types/"
  (cd "$types" && npm ci --no-audit --no-fund --loglevel=error) || rm -rf "$types"
fi
if [ ! -x "$types/node_modules/.bin/tsc" ]; then
  echo "SKIPPED test-node types: typescript could not be installed (offline? see npm's error above)"
  tsc_skipped=1
elif (cd "$project" && "$types/node_modules/.bin/tsc" --strict --noEmit --target es2022 \
        --module node16 --moduleResolution node16 \
        --typeRoots "$types/node_modules/@types" --types node types_test.mts); then
  tsc_passed=1
else
  echo "FAIL types_test.mts: tsc reported the errors above"
  tsc_failed=1
fi

# docs/NODE.md's example, output compared byte for byte.
ex_passed=0 ex_failed=0
if (cd "$project" && node readme_example.mjs) >"$project/readme_example.out" 2>&1 &&
   cmp -s tests/node/readme_example.expected "$project/readme_example.out"; then
  ex_passed=1
else
  echo "FAIL readme_example.mjs: its output differs from tests/node/readme_example.expected:"
  diff tests/node/readme_example.expected "$project/readme_example.out" || true
  ex_failed=1
fi

log="$project/package_test.log"
rc=0
(cd "$project" && node package_test.mjs "$root/include/sqlite_quant.h") >"$log" || rc=$?
cat "$log"
line=$(tail -n 1 "$log")
passed=$(echo "$line" | sed -n 's/^package: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
failed=$(echo "$line" | sed -n 's/^package: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
[ -n "$passed" ] || { passed=0; failed=1; }
passed=$((passed + tsc_passed + ex_passed))
failed=$((failed + tsc_failed + ex_failed))
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
if [ "$failed" -eq 0 ]; then
  rm -rf "$project"
else
  echo "test-node: the project is kept in $project" >&2
fi
skipped=""
[ "$tsc_skipped" -eq 0 ] || skipped=", 1 skipped"
echo "test-node: $passed passed, $failed failed$skipped"
[ "$failed" -eq 0 ]
