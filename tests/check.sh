# check.sh: the exact-value check the shell test scripts share (sourced).
#   check NAME GOT WANT   counts a pass when GOT equals WANT, byte for byte;
#                         otherwise counts a failure and prints both.
# The sourcing script sets passed=0 failed=0 first and prints its own
# "N passed, N failed" line at the end.
check() {
  if [ "$2" = "$3" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAILED %s\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"
  fi
}
