#!/bin/sh
# locale.sh SQLHOST EXT QUERIES [OUTDIR]: the locale test.
#
# The extension runs inside other people's processes, and a host may have
# called setlocale(LC_ALL, "") in a locale whose decimal point is ','.  The
# C library's strtod and printf follow that locale, so an extension that uses
# them unguarded reads '[0.5]' or 'percentile=99.9' wrongly and writes '0,5'
# in JSON.  This runs the catalog twice, in the C locale and in de_DE.UTF-8
# (sqlhost --locale refuses to run unless the decimal point really is ','),
# and requires the two transcripts to be identical query by query.
#
# The transcripts are kept in OUTDIR (default build/host) for diffing.  Ends
# with "locale: N passed, N failed", one count per query; exits non-zero on
# any difference or when a run fails.
set -u
if [ $# -lt 3 ]; then
  echo "usage: sh tests/host/locale.sh SQLHOST EXT QUERIES [OUTDIR]" >&2
  exit 2
fi
host=$1 ext=$2 queries=$3 out=${4:-build/host}
mkdir -p "$out"
c_txt=$out/locale-C.txt
de_txt=$out/locale-de_DE.txt

LC_ALL=C "$host" "$ext" "$queries" >"$c_txt"
rc=$?
if [ $rc -ne 0 ]; then
  echo "locale: the run in the C locale failed (exit $rc)"
  exit 1
fi
LC_ALL=de_DE.UTF-8 "$host" --locale "$ext" "$queries" >"$de_txt"
de_rc=$?
# 2: sqlhost refused (the locale is missing or its decimal point is not ','),
# and said why; comparing would prove nothing.
[ $de_rc -eq 2 ] && exit 2

# Each query's block starts with its "## N (line L) SQL" header; a block the
# de_DE run never printed (it died) counts as a difference.
awk -v c_file="$c_txt" -v de_rc="$de_rc" '
  function keep() {
    if (key == "") return
    body[f, key] = text
    if (f == 1) order[++n] = key
  }
  FILENAME != cur { keep(); key = ""; text = ""; cur = FILENAME; f = (FILENAME == c_file) ? 1 : 2 }
  /^## / { keep(); key = $0; text = ""; next }
  { text = text $0 "\n" }
  function show(label, s,   m, lines, j) {
    if (s == "") { printf "  %-7s (nothing)\n", label; return }
    m = split(s, lines, "\n")
    for (j = 1; j < m; j++) printf "  %-7s %s\n", (j == 1 ? label : ""), lines[j]
  }
  END {
    keep()
    passed = failed = 0
    for (i = 1; i <= n; i++) {
      k = order[i]
      if (((2, k) in body) && body[1, k] == body[2, k]) { passed++; continue }
      failed++
      sub(/^## /, "", k)
      printf "FAILED locale #%s\n", k
      show("C:", body[1, order[i]])
      if ((2, order[i]) in body) show("de_DE:", body[2, order[i]])
      else show("de_DE:", "(the de_DE run printed no block for this query)\n")
    }
    if (de_rc != 0) printf "locale: the de_DE run exited with status %d\n", de_rc
    printf "locale: %d passed, %d failed\n", passed, failed
    exit (failed > 0 || de_rc != 0) ? 1 : 0
  }
' "$c_txt" "$de_txt"
