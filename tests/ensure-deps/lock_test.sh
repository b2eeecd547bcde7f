#!/bin/sh
# lock_test.sh [SCRIPT]: tests/ensure-deps.sh (or SCRIPT, another copy of it)
# waits while another package manager holds apt's or dpkg's locks, instead of
# failing as it did in CI (make test-ensure-deps).
#
# Runs as root in a private mount namespace (unshare -m), over private copies
# of /var/lib/dpkg and /var/lib/apt and an empty /var/cache/apt, so neither
# the locks it holds nor anything apt does reach the machine's own package
# manager.  A dpkg-query on PATH reports one package, which is installed, as
# missing: the script then runs its real apt path, apt-get update and an
# apt-get install that has nothing to do.  Another process holds one lock
# the way apt does (an fcntl lock: flock(1) takes a different kind, which
# apt never sees) for a few seconds, and the script must wait for it, say
# so, and succeed:
#   1. dpkg's frontend lock (what apt-get install takes first);
#   2. the lists lock (apt-get update, which does not honour
#      DPkg::Lock::Timeout);
#   3. dpkg's own lock, around `dpkg --add-architecture` (which takes no
#      lock): the architecture is added only after the lock is released
#      (needs libsqlite3-0:s390x installed: sh tests/ensure-deps.sh s390x);
#   4. past ENSURE_DEPS_LOCK_TIMEOUT it gives up with a message, in time;
#   5. with nothing missing it never waits.
# After each run, dpkg's status is the machine's, byte for byte.
# Ends "ensure-deps-lock: N passed, N failed, N skipped".
set -u
script=${1:-tests/ensure-deps.sh}
script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
work=$(pwd)/build/ensure-deps-test
passed=0 failed=0 skipped=0
. tests/check.sh

finish() {
  echo "ensure-deps-lock: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
  exit
}
skip_all() {
  echo "SKIPPED ensure-deps-lock: $1"
  skipped=$((skipped + 1))
  finish
}

if [ "${SQ_LOCK_TEST_INSIDE:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || skip_all "needs root (the locks and a mount namespace)"
  for t in unshare mount python3 apt-get dpkg-query; do
    command -v "$t" >/dev/null 2>&1 || skip_all "no $t"
  done
  rm -rf "$work"
  mkdir -p "$work"
  SQ_LOCK_TEST_INSIDE=1 unshare -m --propagation private sh "$0" "$script"
  rc=$?
  rm -rf "$work"
  exit "$rc"
fi

# ---- inside the namespace ------------------------------------------------------
cp -a /var/lib/dpkg "$work/dpkg" && mount --bind "$work/dpkg" /var/lib/dpkg &&
  cp -a /var/lib/apt "$work/apt" && mount --bind "$work/apt" /var/lib/apt &&
  mount -t tmpfs tmpfs /var/cache/apt && mkdir -p /var/cache/apt/archives/partial ||
  { failed=$((failed + 1)); echo "FAILED setup: the private package state"; finish; }
cp /var/lib/dpkg/status "$work/status.before"

# dpkg-query -W -f='${Status}' PKG as ensure-deps.sh asks it: every package
# installed but $SQ_TEST_MISSING (really installed too: apt has nothing to do).
mkdir -p "$work/bin"
cat >"$work/bin/dpkg-query" <<'EOF'
#!/bin/sh
if [ "$1" = -W ]; then
  for pkg; do :; done
  [ "$pkg" = "${SQ_TEST_MISSING:-}" ] && exit 1
  printf 'install ok installed'
  exit 0
fi
exec /usr/bin/dpkg-query "$@"
EOF
chmod +x "$work/bin/dpkg-query"

# Holds an fcntl write lock on FILE for SECONDS, as apt and dpkg lock; returns
# once it is held.  The holder writes the time it lets go to $work/released.
hold() { # FILE SECONDS
  rm -f "$work/held" "$work/released"
  python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o640)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
with open(sys.argv[4], "w") as f:
    f.write(repr(time.time()))
' "$1" "$2" "$work/held" "$work/released" &
  holder=$!
  while [ ! -e "$work/held" ]; do sleep 0.1; done
}

# ensure-deps.sh TARGET with MISSING reported missing: sets rc, took (whole
# seconds) and the output in $work/out.
run_deps() { # TARGET MISSING [ENV...]
  target=$1 pretend=$2
  shift 2
  t0=$(date +%s.%N)
  env PATH="$work/bin:$PATH" SQ_TEST_MISSING="$pretend" "$@" sh "$script" "$target" \
    >"$work/out" 2>&1
  rc=$?
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a }')
}
waited() { # FILE: the script's waiting line for FILE, held by the holder
  grep -c "^ensure-deps.sh: waiting for $1, held by process $holder (python3) " "$work/out"
}
show_on_failure() {
  [ "$failed" -gt "$1" ] && { echo "--- ensure-deps.sh said:"; cat "$work/out"; }
}
status_kept() { # NAME
  check "$1-installed-nothing" "$(cmp "$work/status.before" /var/lib/dpkg/status 2>&1)" ""
}

# 1. dpkg's frontend lock, held 5 s.
f0=$failed
hold /var/lib/dpkg/lock-frontend 5
run_deps host make
wait "$holder"
check frontend-succeeds "$rc" 0
check frontend-waited-for-the-lock "$(waited /var/lib/dpkg/lock-frontend)" 1
check frontend-waited-long-enough "$([ "$took" -ge 4 ] && echo yes || echo "no, $took s")" yes
status_kept frontend
show_on_failure "$f0"

# 2. The lists lock, held 5 s.
f0=$failed
hold /var/lib/apt/lists/lock 5
run_deps host make
wait "$holder"
check lists-succeeds "$rc" 0
check lists-waited-for-the-lock "$(waited /var/lib/apt/lists/lock)" 1
check lists-waited-long-enough "$([ "$took" -ge 4 ] && echo yes || echo "no, $took s")" yes
status_kept lists
show_on_failure "$f0"

# 3. dpkg's lock, held 5 s, while the script must add an architecture.
if [ "$(/usr/bin/dpkg-query -W -f='${Status}' libsqlite3-0:s390x 2>/dev/null)" != "install ok installed" ]; then
  skipped=$((skipped + 1))
  echo "SKIPPED add-architecture: libsqlite3-0:s390x is not installed (sh tests/ensure-deps.sh s390x)"
else
  f0=$failed
  grep -vx s390x /var/lib/dpkg/arch >"$work/arch"
  cat "$work/arch" >/var/lib/dpkg/arch
  hold /var/lib/dpkg/lock 5
  run_deps s390x libsqlite3-0:s390x
  wait "$holder"
  check add-architecture-succeeds "$rc" 0
  check add-architecture-waited-for-the-lock "$(waited /var/lib/dpkg/lock)" 1
  check add-architecture-added "$(grep -cx s390x /var/lib/dpkg/arch)" 1
  check add-architecture-after-the-lock-was-released "$(python3 -c '
import os, sys
print(os.stat(sys.argv[1]).st_mtime >= float(open(sys.argv[2]).read()))
' /var/lib/dpkg/arch "$work/released")" True
  status_kept add-architecture
  show_on_failure "$f0"
fi

# 4. A lock held past the bound: a message, and no longer a wait than asked.
f0=$failed
hold /var/lib/dpkg/lock-frontend 15
run_deps host make ENSURE_DEPS_LOCK_TIMEOUT=3
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
check bound-fails "$rc" 1
check bound-says-why "$(grep -c "^ensure-deps.sh: gave up after 3 s waiting for /var/lib/dpkg/lock-frontend (held by process $holder (python3)); set ENSURE_DEPS_LOCK_TIMEOUT to wait longer\$" "$work/out")" 1
check bound-in-time "$([ "$took" -ge 2 ] && [ "$took" -le 8 ] && echo yes || echo "no, $took s")" yes
status_kept bound
show_on_failure "$f0"

# 5. Nothing missing: no apt, no wait, even with a lock held.
f0=$failed
hold /var/lib/dpkg/lock-frontend 5
run_deps host ""
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
check nothing-missing-succeeds "$rc" 0
check nothing-missing-no-wait "$([ "$took" -le 2 ] && echo yes || echo "no, $took s")" yes
check nothing-missing-silent "$(cat "$work/out")" ""
show_on_failure "$f0"

finish
