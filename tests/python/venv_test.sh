#!/bin/sh
# venv_test.sh WHEEL WHEEL_AGAIN EXT: the wheel as a user gets it.  A fresh
# virtual environment of Debian's /usr/bin/python3 (--system-site-packages,
# so Debian's numpy is there: PyPI is not reachable), the wheel installed
# with pip from the file alone, tests/python/run.py run there (WHEEL_AGAIN is
# the same wheel built a second time, EXT the extension make built), and the
# environment removed, whatever happens.  Run from the repository's root
# (make test-python); ends with "python: N passed, N failed, N skipped".
set -eu
[ $# -eq 3 ] || { echo "usage: venv_test.sh WHEEL WHEEL_AGAIN EXT" >&2; exit 2; }
wheel=$1 again=$2 ext=$3
for f in "$wheel" "$again" "$ext"; do
  [ -f "$f" ] || { echo "venv_test.sh: no file $f (make wheel builds it)" >&2; exit 1; }
done

mkdir -p build/python
venv=$(mktemp -d build/python/venv.XXXXXX)
trap 'rm -rf "$venv"' EXIT
trap 'exit 1' INT TERM

now() { date +%s.%N; }
secs() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }
t0=$(now)
/usr/bin/python3 -m venv --system-site-packages "$venv"
t1=$(now)
PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --quiet --no-index \
    --no-cache-dir "$wheel"
t2=$(now)
echo "python: venv $(secs "$t0" "$t1") s, pip install $(secs "$t1" "$t2") s"
"$venv/bin/python" tests/python/run.py --wheel "$wheel" --wheel-again "$again" --ext "$ext"
