# bench_compare.tcl: q_compare over every weight tensor of both demo models
# (docs/reference/compare.md#q_compare-choosing-a-scheme), best of 3 each:
#   1. the default candidates (int8+int4, affine+symmetric, per tensor, per
#      channel(0), blocks of 32 and 128 along rows): goal at most 0.06 s,
#      half of the 0.12 s this took before blocks ran along rows;
#   2. methods=minmax+mse: goal at most 0.5 s (2.8 s before).
#
#   tclsh bench/bench_compare.tcl dist/quant.so [demo.db]
#
# The weights are the demo's (build/demo.db, made by `make demo`) when that
# file exists; otherwise tensors of the same 53 shapes (642K weights) are
# generated, deterministic sums of uniforms scaled per row, and the output
# says so.  The database is opened read-only: the demo is never modified.
# A goal missed prints MISSED; the script never fails on timing (speed is
# measured here, not asserted in the test suite).
package require sqlite3

set ext [file normalize [lindex $argv 0]]
set demo [expr {[llength $argv] > 1 ? [lindex $argv 1] : "build/demo.db"}]

# The demo's weight tensors (2 or more dimensions): Silero VAD's two
# decoders and encoders, and MediaPipe's face detector.
set demo_shapes {
  {258 1 256} {128 129 3} {64 128 3} {64 64 3} {128 64 3} {512 128} {512 128}
  {1 128 1} {130 1 128} {128 65 3} {64 128 3} {64 64 3} {128 64 3} {512 128}
  {512 128} {1 128 1} {24 5 5 3} {1 3 3 24} {24 1 1 24} {1 3 3 24}
  {28 1 1 24} {1 3 3 28} {32 1 1 28} {1 3 3 32} {36 1 1 32} {1 3 3 36}
  {42 1 1 36} {1 3 3 42} {48 1 1 42} {1 3 3 48} {56 1 1 48} {1 3 3 56}
  {64 1 1 56} {1 3 3 64} {72 1 1 64} {1 3 3 72} {80 1 1 72} {1 3 3 80}
  {88 1 1 80} {1 3 3 88} {96 1 1 88} {1 3 3 96} {96 1 1 96} {1 3 3 96}
  {96 1 1 96} {1 3 3 96} {96 1 1 96} {1 3 3 96} {96 1 1 96} {2 1 1 88}
  {6 1 1 96} {32 1 1 88} {96 1 1 96}
}

if {[file exists $demo]} {
  sqlite3 db $demo -readonly 1
  set source "demo weights ($demo)"
  set from {(SELECT q_f32(data, dtype) AS x, shape FROM tensors
             WHERE json_array_length(shape) >= 2)}
} else {
  sqlite3 db :memory:
  set source "generated tensors of the demo's shapes ($demo not found)"
  db eval {CREATE TABLE w(x BLOB, shape TEXT)}
  expr {srand(1234)}
  foreach s $demo_shapes {
    set n [expr [join $s *]]
    set rows [lindex $s 0]
    set v {}
    for {set i 0} {$i < $n} {incr i} {
      set r [expr {$i / ($n / $rows)}]
      lappend v [expr {(rand() + rand() + rand() - 1.5) * 0.1 * (1 + $r % 7)}]
    }
    set blob [binary format r* $v]
    set shape "\[[join $s ,]\]"
    db eval {INSERT INTO w VALUES (@blob, :shape)}
  }
  set from {w}
}
db enable_load_extension 1
db eval "SELECT load_extension('$ext')"

source [file join [file dirname [info script]] timing.tcl]

puts "q_compare over $source"
puts [format "%-28s %6s %9s %8s %9s %s" candidates rows weights seconds goal ""]
foreach {label opts goal} {
  "default" "" 0.06
  "methods=minmax+mse" "methods=minmax+mse" 0.5
} {
  lassign [best_run 3 "SELECT count(*), (SELECT sum(length(x)) / 4 FROM $from)
                      FROM $from AS t, q_compare(t.x, t.shape, 0, '$opts')"] t r
  puts [format "%-28s %6d %9d %8.4f %9.2f %s" $label [lindex $r 0] [lindex $r 1] \
            $t $goal [expr {$t <= $goal ? "ok" : "MISSED"}]]
}
