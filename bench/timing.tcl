# timing.tcl: the timer the SQL benchmarks share (sourced).
#   best_run N SQL   runs SQL on `db` N times in the caller's scope (its
#                    variables bind as they would there) and returns the
#                    best time in seconds and the last run's result;
#   best_of N SQL    the best time alone.
# Wall time of an in-memory query on a quiet connection: the best of N
# is the least disturbed by the other work of a shared machine.
proc best_run {n sql} {
  set best 1e30
  set r {}
  for {set i 0} {$i < $n} {incr i} {
    set t0 [clock microseconds]
    set r [uplevel 1 [list db eval $sql]]
    set dt [expr {([clock microseconds] - $t0) / 1e6}]
    if {$dt < $best} { set best $dt }
  }
  return [list $best $r]
}

proc best_of {n sql} {
  return [lindex [uplevel 1 [list best_run $n $sql]] 0]
}
