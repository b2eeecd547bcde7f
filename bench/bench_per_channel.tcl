# bench_per_channel.tcl: per-channel quantize along the last axis against a
# float32 copy of the same BLOB, through SQL, measured in one run.
#
#   tclsh bench/bench_per_channel.tcl dist/quant.so            every kernel path
#   tclsh bench/bench_per_channel.tcl -path avx2 dist/quant.so one path (child)
#
# One row holding a [1024,4096] float32 matrix (16.8 MB).  The peer is
# SELECT q_f32(w): it reads the blob and writes a float32 copy of it through
# the same SQL path.  Rows: quantize_per_channel_blob(w, s, z, shape, -1), the
# last axis with 4096 channels (every row of the matrix uses all 4096 scales
# and zero points), the same data as [4096,1024] (1024 channels) and axis 0.
# Each sample is the process CPU time of `inner` runs of one query
# (/proc/self/schedstat: this thread's nanoseconds on a CPU); the queries
# take turns within every round, so a slow moment of the shared machine hits
# them alike; the figure is the median over the rounds.  "x copy" is the
# copy's median time over the query's: above 1, faster than the copy.
# Children run with glibc told to keep freed memory, so the 16 MB results do
# not page-fault fresh memory on every call (that would be what is measured).
package require sqlite3

set path ""
if {[lindex $argv 0] eq "-path"} {
  set path [lindex $argv 1]
  set argv [lrange $argv 2 end]
}
set ext [file normalize [lindex $argv 0]]

if {$path eq ""} {
  sqlite3 db :memory:
  db enable_load_extension 1
  db eval {SELECT load_extension($ext)}
  regexp {"kernels":\[([^\]]*)\]} [db one {SELECT q_info()}] -> names
  db close
  set env(GLIBC_TUNABLES) glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967295
  puts "\nSQL level, per-channel quantize on the last axis: one \[1024,4096\] float32 row (16.8 MB),"
  puts "median process CPU time of interleaved rounds; x copy = SELECT q_f32(w)'s time over the query's"
  puts [format "%-8s %-46s %9s %8s" path query ms "x copy"]
  foreach p [split [string map {\" ""} $names] ,] {
    puts [exec [info nameofexecutable] [info script] -path $p $ext]
  }
  exit 0
}

set env(SQLITE_QUANT_KERNEL) $path
sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($ext)}

proc cpu_ns {} {
  set f [open /proc/self/schedstat]
  set t [lindex [read $f] 0]
  close $f
  return $t
}
proc median {l} {
  set l [lsort -real $l]
  set n [llength $l]
  if {$n % 2} { return [lindex $l [expr {$n / 2}]] }
  return [expr {([lindex $l [expr {$n / 2 - 1}]] + [lindex $l [expr {$n / 2}]]) / 2.0}]
}

expr {srand(7)}
set vals {}
for {set i 0} {$i < 4194304} {incr i} {
  lappend vals [expr {(rand() + rand() + rand() - 1.5) * 0.2}]
}
db eval {CREATE TABLE t(w BLOB, s BLOB, z BLOB, s1 BLOB, z1 BLOB, s0 BLOB, z0 BLOB)}
set blob [binary format r* $vals]
unset vals
db eval {INSERT INTO t(w) VALUES (@blob)}
db eval {
  UPDATE t SET s = q_per_channel_scales(w, '[1024,4096]', -1),
               z = q_per_channel_zero_points(w, '[1024,4096]', -1),
               s1 = q_per_channel_scales(w, '[4096,1024]', -1),
               z1 = q_per_channel_zero_points(w, '[4096,1024]', -1),
               s0 = q_per_channel_scales(w, '[1024,4096]', 0),
               z0 = q_per_channel_zero_points(w, '[1024,4096]', 0)
}
set queries {
  {"q_f32(w) (the copy)" {SELECT length(q_f32(w)) FROM t}}
  {"axis -1, 4096 channels ([1024,4096])" {SELECT length(quantize_per_channel_blob(w, s, z, '[1024,4096]', -1)) FROM t}}
  {"axis -1, 1024 channels ([4096,1024])" {SELECT length(quantize_per_channel_blob(w, s1, z1, '[4096,1024]', -1)) FROM t}}
  {"axis 0, 1024 channels ([1024,4096])" {SELECT length(quantize_per_channel_blob(w, s0, z0, '[1024,4096]', 0)) FROM t}}
}
set rounds 9
# /proc/self/schedstat advances in scheduler ticks (4 ms) on this project's
# VM: a sample of about 100 ms keeps that under 5%.
set inner [expr {$path eq "scalar" ? 5 : 25}]
foreach q $queries { db eval [lindex $q 1] }   ;# warm up: pages, statement cache
for {set r 0} {$r < $rounds} {incr r} {
  set k 0
  foreach q $queries {
    set sql [lindex $q 1]
    set t0 [cpu_ns]
    for {set i 0} {$i < $inner} {incr i} { db eval $sql }
    lappend times($k) [expr {([cpu_ns] - $t0) / 1e6 / $inner}]
    incr k
  }
}
set base [median $times(0)]
set out {}
set k 0
foreach q $queries {
  set m [median $times($k)]
  lappend out [format "%-8s %-46s %9.2f %8.2f" $path [lindex $q 0] $m [expr {$base / $m}]]
  incr k
}
puts [join $out \n]
