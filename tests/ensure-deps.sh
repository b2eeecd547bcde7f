#!/bin/sh
# ensure-deps.sh WHAT: make sure the Debian packages WHAT needs are installed.
#   test     build and run the Tcl suite
#   aarch64  cross-build the kernel tests and run them under qemu-user
#   s390x    big-endian: cross-build the kernel tests, the extension and the
#            SQL host, run them under qemu-user (adds dpkg's s390x architecture)
#   demo     the demo: also npm (fetch the models), python3 (the picture),
#            librsvg2-bin (PNG copy of the picture), espeak-ng and
#            python3-numpy (the test audio, examples/make_audio.py)
#   import   the demo import checked against the Python reference importer
#            (make test-import): python3-onnx, numpy, npm
#   bench    the benchmark (numpy and PyTorch rows are optional)
#   host     build the C SQL host (make test-oom)
#   locale   the same, plus the de_DE.UTF-8 locale (make test-locale)
#   fuzz     clang with libFuzzer and the sanitizer runtimes (make fuzz, fuzz-ci)
#   ggml     the ggml reference tests: npm fetches ggml's library
#            (tests/ggml/fetch_ggml.sh), the C harness links it with dlopen
#            (make test-ggml), numpy drives tests/ggml/gen_vectors.py
#   torch    the PyTorch recipe (make test-torch): Debian's python3-torch
#   python   the Python package (make wheel, make test-python): the wheel is
#            built with Debian's setuptools and wheel, installed with pip into
#            a throwaway venv, and Debian's sqlite-utils loads the extension
#   node     the npm package (make npm-pack, make test-node): Node 20+ and npm;
#            binutils strips the packed extension; g++, make and python3
#            build better-sqlite3 from source
#   sqlite-versions  other SQLite versions (make test-sqlite-versions): npm
#            fetches their sources, tcl8.6-dev builds their Tcl bindings
#   install  make test-install: pkg-config (pkgconf) reads the installed
#            sqlite-quant.pc, the sqlite3 shell loads the installed file
#   amalgamation  make test-amalgamation: python3 writes dist/sqlite-quant.c,
#            gcc and clang build it
#   onnx-export  make test-onnx-export: python3-onnx and numpy write the ONNX
#            files (examples/export_onnx.py), Node 20 and npm fetch and run
#            onnxruntime-node (examples/fetch_onnxruntime.sh, evaluate_vad.mjs)
#   gguf-export  make test-gguf-export: npm fetches the demo's models and
#            ggml's library, the sqlite3 shell and sha256sum (coreutils)
#            export the GGUF files, python3 with numpy checks them in ggml
#   cluster  make cluster-test: go-dqlite (the dqlite-demo node and the dqlite
#            shell, with libdqlite0), gcc and libsqlite3-dev build the
#            LD_PRELOAD shim, python3 runs the test, npm fetches the models
# Installs what is missing when run as root or with password-less sudo;
# otherwise prints the exact apt-get line and fails.  Another package manager
# at work (an apt-get, dpkg, unattended-upgrades) holds apt's and dpkg's
# locks: the script then waits, saying for whom, up to
# ENSURE_DEPS_LOCK_TIMEOUT seconds (600) in all, and fails with a message
# past that (tests/ensure-deps/lock_test.sh).
set -eu
what=${1:-test}
base="gcc make libc6-dev libsqlite3-dev sqlite3 tcl libsqlite3-tcl"
case "$what" in
  # python3-numpy runs the Python example; g++ builds better-sqlite3 for the
  # Node example when its prebuilt binary cannot be downloaded; zlib1g-dev:
  # the kernel test and the bench check and time the CRC-32 against zlib's.
  test)    pkgs="$base python3 python3-numpy g++ zlib1g-dev" ;;
  aarch64) pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user" ;;
  # SQLite for s390x is Debian's own s390x build, through multiarch: only the
  # runtime library.  libsqlite3-dev:s390x cannot be installed beside amd64:
  # its libc-dev chain reaches Multi-Arch: same libraries (libssl3) whose amd64
  # copies come from bookworm-security, which has no s390x, so no version
  # matches.  sqlite3.h is the same on every architecture (amd64's
  # libsqlite3-dev) and the host links libsqlite3.so.0 by path.
  s390x)   pkgs="gcc make libc6-dev libsqlite3-dev gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user libsqlite3-0:s390x" ;;
  demo)    pkgs="$base python3 python3-numpy python3-onnx npm librsvg2-bin espeak-ng" ;;
  import)  pkgs="$base python3 python3-numpy python3-onnx npm" ;;
  bench)   pkgs="$base zlib1g-dev" ;;
  host)    pkgs="gcc make libc6-dev libsqlite3-dev" ;;
  locale)  pkgs="gcc make libc6-dev libsqlite3-dev locales"; need_locale=1 ;;
  # libFuzzer and the ASan/UBSan runtimes are in libclang-rt-dev, which clang
  # only recommends.
  fuzz)    pkgs="make libc6-dev libsqlite3-dev clang libclang-rt-dev" ;;
  ggml)    pkgs="gcc make libc6-dev npm python3 python3-numpy" ;;
  torch)   pkgs="$base python3 python3-numpy python3-torch" ;;
  python)  pkgs="gcc make libc6-dev libsqlite3-dev binutils python3 python3-numpy python3-setuptools python3-wheel python3-venv python3-pip sqlite-utils" ;;
  node)    pkgs="nodejs npm binutils g++ make python3" ;;
  sqlite-versions) pkgs="$base tcl8.6-dev npm" ;;
  install) pkgs="$base pkgconf" ;;
  amalgamation) pkgs="$base python3 clang" ;;
  onnx-export) pkgs="$base python3 python3-numpy python3-onnx nodejs npm" ;;
  gguf-export) pkgs="$base coreutils npm python3 python3-numpy" ;;
  # iproute2: the network namespaces; util-linux: setpriv (--pdeathsig).
  cluster) pkgs="gcc make libc6-dev libsqlite3-dev python3 go-dqlite npm iproute2 util-linux" ;;
  *) echo "ensure-deps.sh: unknown target '$what'" >&2; exit 2 ;;
esac

# The locale test needs a locale whose decimal point is ','.  Debian's
# `locales` package generates none until /etc/locale.gen enables it.
ensure_locale() {
  [ -n "${need_locale:-}" ] || return 0
  locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8' && return 0
  if [ "$(id -u)" = 0 ]; then
    s=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    s="sudo"
  else
    echo "ensure-deps.sh: the de_DE.UTF-8 locale is not generated" >&2
    echo "generate it with:  echo 'de_DE.UTF-8 UTF-8' | sudo tee -a /etc/locale.gen && sudo locale-gen" >&2
    exit 1
  fi
  echo "ensure-deps.sh: generating the de_DE.UTF-8 locale"
  if grep -q '^# *de_DE.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
    $s sed -i 's/^# *\(de_DE.UTF-8 UTF-8\)/\1/' /etc/locale.gen
  elif ! grep -q '^de_DE.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
    echo 'de_DE.UTF-8 UTF-8' | $s tee -a /etc/locale.gen >/dev/null
  fi
  $s locale-gen
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "ensure-deps.sh: not a Debian system; make sure these (or your system's equivalents) are installed: $pkgs" >&2
  exit 0
fi

# A tool may come from outside Debian (Node's own npm, say): a command that
# already runs counts as installed.
provides() {
  case "$1" in
    npm) command -v npm >/dev/null 2>&1 ;;
    nodejs) command -v node >/dev/null 2>&1 ;;
    librsvg2-bin) command -v rsvg-convert >/dev/null 2>&1 ;;
    *) return 1 ;;
  esac
}
missing=""
for p in $pkgs; do
  provides "$p" && continue
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && { ensure_locale; exit 0; }

if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo"
else
  echo "ensure-deps.sh: missing packages:$missing" >&2
  for p in $missing; do
    case "$p" in *:*) echo "first enable its architecture:  sudo dpkg --add-architecture ${p#*:} && sudo apt-get update" >&2 ;; esac
  done
  echo "install them with:  sudo apt-get install -y$missing" >&2
  exit 1
fi

# ---- waiting for another package manager ------------------------------------
# apt and dpkg lock these files with fcntl locks, which flock(1) neither
# takes nor sees.  apt-get waits for the first two itself when told to
# (DPkg::Lock::Timeout), but `apt-get update` fails at once on the lists
# lock, and `dpkg --add-architecture` takes none: so the script waits until
# none is held (from /proc/locks) before each call, and tries an apt-get that
# still lost the race again.
locks="/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock"
lock_timeout=${ENSURE_DEPS_LOCK_TIMEOUT:-600}
case "$lock_timeout" in
  ''|*[!0-9]*) echo "ensure-deps.sh: ENSURE_DEPS_LOCK_TIMEOUT must be a number of seconds, got '$lock_timeout'" >&2; exit 2 ;;
esac
deadline=$(( $(date +%s) + lock_timeout ))

# "PID (COMMAND)" of a process holding a POSIX or open-file lock on $1,
# nothing when none does.  /proc/locks names the file by device (major:minor
# in hex) and inode.
lock_holder() {
  [ -r /proc/locks ] || return 0
  set -- "$1" $(stat -L -c '%d %i' "$1" 2>/dev/null)
  [ $# -eq 3 ] || return 0
  want=$(printf '%02x:%02x:%s' $((($2 >> 8) & 0xfff)) \
         $((($2 & 0xff) | (($2 >> 12) & 0xfff00))) "$3")
  pid=$(awk -v w="$want" '$2 != "->" && ($2 == "POSIX" || $2 == "OFDLCK") && $6 == w { print $5; exit }' /proc/locks)
  [ -n "$pid" ] || return 0
  if [ "$pid" -gt 0 ] 2>/dev/null; then
    echo "process $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo '?'))"
  else
    echo "another process"
  fi
}

# Returns once no package manager holds a lock; a message when it starts
# waiting and every 30 s; past the deadline, a message and exit 1.
wait_for_locks() {
  said=0
  while :; do
    held="" by=""
    for f in $locks; do
      by=$(lock_holder "$f")
      if [ -n "$by" ]; then held=$f; break; fi
    done
    [ -z "$held" ] && return 0
    now=$(date +%s)
    if [ "$now" -ge "$deadline" ]; then
      echo "ensure-deps.sh: gave up after $lock_timeout s waiting for $held (held by $by); set ENSURE_DEPS_LOCK_TIMEOUT to wait longer" >&2
      exit 1
    fi
    if [ $((now - said)) -ge 30 ]; then
      echo "ensure-deps.sh: waiting for $held, held by $by (another package manager; up to $((deadline - now)) s more)" >&2
      said=$now
    fi
    sleep 1
  done
}

# apt-get ARGS, after waiting for the locks; again when it lost the race to
# another package manager (its "Could not get lock"), until the deadline.
apt_get() {
  err=$(mktemp)
  while :; do
    wait_for_locks
    left=$((deadline - $(date +%s)))
    [ "$left" -gt 0 ] || left=1
    if $sudo apt-get -o DPkg::Lock::Timeout="$left" "$@" 2>"$err"; then
      cat "$err" >&2
      rm -f "$err"
      return 0
    else
      rc=$?
    fi
    cat "$err" >&2
    if ! grep -q 'Could not get lock\|Unable to lock' "$err" ||
       [ "$(date +%s)" -ge "$deadline" ]; then
      rm -f "$err"
      return "$rc"
    fi
    sleep 1
  done
}

echo "ensure-deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# A package named NAME:ARCH is another architecture's build (multiarch); apt
# only knows it once dpkg has that architecture, added before the update.
for p in $missing; do
  case "$p" in
    *:*) arch=${p#*:}
         if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
           wait_for_locks
           echo "ensure-deps.sh: adding the dpkg architecture $arch"
           $sudo dpkg --add-architecture "$arch"
         fi ;;
  esac
done
apt_get update -qq
# --no-upgrade: only missing packages are named, so it changes nothing here
# but guarantees that naming an installed one never upgrades it.
apt_get install -y -qq --no-install-recommends --no-upgrade $missing
ensure_locale
