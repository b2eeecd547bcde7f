# compare.awk S390X X86_SCALAR X86_DEFAULT: compares three sqlhost
# transcripts of the same query catalog, statement by statement.
#
# A transcript is a run of records, each opening with sqlhost's header line
# for its statement, "## N (line L) SQL" (rows and errors start with "row:"
# and "error:", so no other line can open one); lines before the first
# record form record 0.  A record passes when all three transcripts hold it
# byte for byte alike (awk keeps every byte of a line but its newline, and
# all three lose the same newlines).  For each differing record it prints the
# statement and the lines of its output that differ, side by side (the header
# is line 1); the last line printed is "PASSED FAILED".
BEGIN {
  hdr = "^## [0-9]+ [(]line [0-9]+[)] "
  # Lines longer than this are cut when printed (the transcripts keep them).
  if (width == "") width = 200
  if (shown == "") shown = 40
  if (lines_shown == "") lines_shown = 12
  for (i = 1; i < ARGC; i++) file_no[ARGV[i]] = i
}
{
  f = file_no[FILENAME]
  if ($0 ~ hdr) n[f]++
  k = f SUBSEP n[f]
  rec[k] = rec[k] $0 "\n"
  if (!(k in head)) head[k] = $0
}
function cut(s) {
  return length(s) > width ? substr(s, 1, width) "... (" length(s) " chars)" : s
}
# Line j of host f's record i, or a mark when that host's record is shorter.
function line_of(f, j) {
  return j <= m[f] ? L[f, j] : "(no such line)"
}
function report(i,    f, j, most, diff, printed, a, b, c) {
  most = 0
  for (f = 1; f <= 3; f++) {
    m[f] = split(rec[f SUBSEP i], tmp, "\n") - 1
    if (m[f] < 0) m[f] = 0
    for (j = 1; j <= m[f]; j++) L[f, j] = tmp[j]
    if (m[f] > most) most = m[f]
  }
  diff = printed = 0
  for (j = 1; j <= most; j++) {
    a = line_of(1, j); b = line_of(2, j); c = line_of(3, j)
    if (a == b && b == c) continue
    if (++diff > lines_shown) continue
    printed++
    print "    output line " j ":"
    print "        s390x:          " cut(a)
    print "        x86-64 scalar:  " (b == a ? "(the same as s390x)" : cut(b))
    print "        x86-64 default: " (c == a ? "(the same as s390x)" : \
          c == b ? "(the same as x86-64 scalar)" : cut(c))
  }
  if (diff > printed) print "    (" diff - printed " more differing lines)"
}
END {
  total = 0
  for (f = 1; f <= 3; f++) if (n[f] > total) total = n[f]
  passed = failed = 0
  for (i = 0; i <= total; i++) {
    a = rec[1 SUBSEP i]; b = rec[2 SUBSEP i]; c = rec[3 SUBSEP i]
    # Record 0 is what a host printed before its first statement: nothing,
    # usually; it is compared but only counted when it differs.
    if (a == b && b == c) { if (i > 0) passed++; continue }
    failed++
    if (failed > shown) continue
    name = head[1 SUBSEP i]
    if (name == "") name = head[2 SUBSEP i]
    if (name == "") name = head[3 SUBSEP i]
    if (i == 0) name = "(before the first statement)"
    print "DIFFERENT: statement " i ": " cut(name)
    report(i)
  }
  if (failed > shown)
    print "(" failed - shown " more differing statements not shown; the transcripts are kept)"
  print passed, failed
}
