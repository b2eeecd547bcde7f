# bench_params.tcl: a scale and its zero point, as the pair of scalar calls
# against one call of the table that returns both (q_params,
# q_per_channel_params), for every calibration method.
#
#   tclsh bench/bench_params.tcl dist/quant.so
#
# The table holds 32 rows of a [256,256] float32 matrix (256 KB each, 8 MB
# in all, Gaussian-ish values).  Each query is timed best of 3 on the
# default kernel path; "pair / one" is the time of
#   SELECT q_scale(w, ...), q_zero_point(w, ...) FROM t
# over the time of
#   SELECT p.scale, p.zero_point FROM t, q_params(t.w, ...) AS p
# (per channel: the two BLOB functions against the table's rows).  Both
# return the same values (tests/params.test).
package require sqlite3

set ext [file normalize [lindex $argv 0]]
sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($ext)}

source [file join [file dirname [info script]] timing.tcl]

expr {srand(25)}
db eval {CREATE TABLE t(w BLOB)}
for {set r 0} {$r < 32} {incr r} {
  set vals {}
  for {set i 0} {$i < 65536} {incr i} {
    lappend vals [expr {(rand() + rand() + rand() - 1.5) * 0.2}]
  }
  set w [binary format r* $vals]
  db eval {INSERT INTO t VALUES (@w)}
}

puts "q_params: 32 rows of \[256,256\] float32, [db one {SELECT json_extract(q_info(), '$.kernel')}] kernels, best of 3"
puts [format "%-12s %-10s %10s %10s %11s" granularity method "pair ms" "one ms" "pair / one"]
foreach method {minmax percentile mse histogram entropy} {
  set opts "method=$method"
  set pair [best_of 3 {SELECT q_scale(w, 'int8', 'affine', $opts), q_zero_point(w, 'int8', 'affine', $opts) FROM t}]
  set one [best_of 3 {SELECT p.scale, p.zero_point FROM t, q_params(t.w, 'int8', 'affine', $opts) AS p}]
  puts [format "%-12s %-10s %10.2f %10.2f %11.2f" tensor $method [expr {$pair * 1e3}] [expr {$one * 1e3}] [expr {$pair / $one}]]
}
foreach method {minmax percentile mse histogram entropy} {
  set opts "method=$method"
  set pair [best_of 3 {SELECT length(q_per_channel_scales(w, '[256,256]', 0, 'int8', 'affine', $opts)),
                              length(q_per_channel_zero_points(w, '[256,256]', 0, 'int8', 'affine', $opts)) FROM t}]
  set one [best_of 3 {SELECT count(p.scale), count(p.zero_point)
                      FROM t, q_per_channel_params(t.w, '[256,256]', 0, 'int8', 'affine', $opts) AS p}]
  puts [format "%-12s %-10s %10.2f %10.2f %11.2f" channel $method [expr {$pair * 1e3}] [expr {$one * 1e3}] [expr {$pair / $one}]]
}
