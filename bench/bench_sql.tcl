# bench_sql.tcl: SQL-level throughput, as ratios to a plain copy through the
# same SQL path, measured in one run.
#
#   tclsh bench/bench_sql.tcl dist/quant.so            every kernel path
#   tclsh bench/bench_sql.tcl -path avx2 dist/quant.so one path (child process)
#   tclsh bench/bench_sql.tcl -ggml -path avx2 dist/quant.so  its ggml rows
#
# The table holds 256 MB of float32 weights: 256 rows of a [256,1024] matrix
# (1 MB each).  Each query is timed best of 3; the baseline is
# SELECT q_f32(w), which reads every blob and writes a float32 copy of it.
#
# Then ggml's block formats: ONE row holding one 4M-weight tensor
# ([1024,4096], 16 MB of float32), q_ggml_quantize(w, type, shape) and
# q_ggml_dequantize(blocks, type) for every type, each as a ratio to
# SELECT q_f32(w) on that same row: a 16 MB float32 copy through SQL, the
# input of a quantize and the output of a dequantize.  Quantize best of 3,
# the copy and dequantize best of 7; then q_ggml_quantize against the
# kernel alone on the same floats (build/bench_ggml --peer, one call per
# row), interleaved, medians of 5.  These children run with glibc told to
# keep freed memory (GLIBC_TUNABLES below): otherwise every 16 MB value is
# fresh memory from the kernel, and its page faults (10-40 ms per 16 MB on
# this project's VM, more than the copy itself) would be what is measured.
package require sqlite3

set path ""
set ggml 0
if {[lindex $argv 0] eq "-ggml"} {
  set ggml 1
  set argv [lrange $argv 1 end]
}
if {[lindex $argv 0] eq "-path"} {
  set path [lindex $argv 1]
  set argv [lrange $argv 2 end]
}
set ext [file normalize [lindex $argv 0]]
# The kernel alone, for the ggml rows' SQL / kernel ratio (make bench builds
# it); without it those columns are "-".
set peer [file normalize [file join [file dirname [info script]] .. build bench_ggml]]
if {![file executable $peer]} { set peer "" }

source [file join [file dirname [info script]] timing.tcl]

# median LIST
proc median {l} {
  set l [lsort -real $l]
  set n [llength $l]
  if {$n % 2} { return [lindex $l [expr {$n / 2}]] }
  return [expr {([lindex $l [expr {$n / 2 - 1}]] + [lindex $l [expr {$n / 2}]]) / 2.0}]
}

# sql_vs_kernel SQL TYPE IMPFILE: the median of 5 runs of SQL (one row of
# [1024,4096]) and of the kernel alone on the same floats (build/bench_ggml
# --peer: one call per row, as core/ggml_quant.c calls it), the two
# interleaved run by run; {sql kernel} seconds, kernel -1 without the peer.
proc sql_vs_kernel {sql type impfile} {
  global peer xfile
  set ts {}
  set tk {}
  for {set r 0} {$r < 5} {incr r} {
    if {$peer ne ""} {
      lappend tk [exec $peer --reps 3 --peer $type $xfile 1024 4096 $impfile]
    }
    # exec forked this process: its heap is copy-on-write until each page
    # is written again, so an untimed run takes those faults first
    uplevel 1 [list db eval $sql]
    set t0 [clock microseconds]
    uplevel 1 [list db eval $sql]
    lappend ts [expr {([clock microseconds] - $t0) / 1e6}]
  }
  return [list [median $ts] [expr {$peer eq "" ? -1 : [median $tk]}]]
}

# The three SQL / kernel columns of a row.
proc vs_cells {ms mk} {
  if {$mk <= 0} { return [format "%11.2f %9s %7s" [expr {$ms * 1e3}] - -] }
  return [format "%11.2f %9.2f %7.2f" [expr {$ms * 1e3}] [expr {$mk * 1e3}] [expr {$ms / $mk}]]
}

# ggml's block formats on one row of one 4M-weight tensor (see the top).
proc ggml_rows {} {
  global path peer xfile
  set vals {}
  for {set i 0} {$i < 4194304} {incr i} {
    lappend vals [expr {(rand() + rand() + rand() - 1.5) * 0.2}]
  }
  set w4m [binary format r* $vals]
  unset vals
  set imp {}
  for {set i 0} {$i < 4096} {incr i} {
    lappend imp [expr {pow(0.1 + 2.0 * rand(), 2)}]
  }
  set imp [binary format r* $imp]
  # The same floats for the kernel alone (bench_ggml --peer).
  set fx [file tempfile xfile]
  fconfigure $fx -translation binary
  puts -nonewline $fx $w4m
  close $fx
  set fi [file tempfile impfile]
  fconfigure $fi -translation binary
  puts -nonewline $fi $imp
  close $fi
  db eval {CREATE TABLE g(w BLOB); CREATE TABLE gb(type TEXT PRIMARY KEY, b BLOB)}
  db eval {INSERT INTO g VALUES (@w4m)}
  set base [best_of 7 {SELECT length(q_f32(w)) FROM g}]
  set row {%-8s %-22s %11.2f %7.2f %13s %7s %11s %9s %7s}
  puts [format $row $path "q_f32(w): the copy" [expr {$base * 1e3}] 1.0 - - - - -]
  foreach type {q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K} {
    set tq [best_of 3 {SELECT length(q_ggml_quantize(w, $type, '[1024,4096]')) FROM g}]
    db eval {INSERT INTO gb SELECT $type, q_ggml_quantize(w, $type, '[1024,4096]') FROM g}
    set td [best_of 7 {SELECT length(q_ggml_dequantize(b, $type)) FROM gb WHERE type = $type}]
    lassign [sql_vs_kernel {SELECT length(q_ggml_quantize(w, $type, '[1024,4096]')) FROM g} \
                 $type -] ms mk
    puts [format "%-8s %-22s %11.2f %7.2f %13.2f %7.2f %s" $path $type \
              [expr {$tq * 1e3}] [expr {$tq / $base}] [expr {$td * 1e3}] [expr {$td / $base}] \
              [vs_cells $ms $mk]]
  }
  foreach type {q4_K q8_0} {
    set sql {SELECT length(q_ggml_quantize(w, $type, '[1024,4096]', @imp)) FROM g}
    set tq [best_of 3 $sql]
    lassign [sql_vs_kernel $sql $type $impfile] ms mk
    puts [format "%-8s %-22s %11.2f %7.2f %13s %7s %s" $path "$type with importance" \
              [expr {$tq * 1e3}] [expr {$tq / $base}] - - [vs_cells $ms $mk]]
  }
  file delete $xfile $impfile
}

if {$path eq ""} {
  sqlite3 db :memory:
  db enable_load_extension 1
  db eval {SELECT load_extension($ext)}
  regexp {"kernels":\[([^\]]*)\]} [db one {SELECT q_info()}] -> names
  db close
  puts {SQL level: 256 rows x 1 MB float32 ([256,1024] each), best of 3, ratio to SELECT q_f32(w)}
  puts [format "%-8s %-44s %9s %8s %7s" path query seconds GB/s ratio]
  set paths [split [string map {\" ""} $names] ,]
  foreach p $paths {
    puts [exec [info nameofexecutable] [info script] -path $p $ext]
  }
  puts "\nSQL level, ggml block formats: one row of 4M float32 weights (\[1024,4096\], 16.8 MB),"
  puts "ratio to SELECT q_f32(w) on that row (a 16.8 MB float32 copy through SQL: quantize's input,"
  puts "dequantize's output); quantize best of 3, the rest best of 7; glibc keeps freed memory"
  puts "The last three columns: q_ggml_quantize and the kernel alone on the same floats (build/bench_ggml"
  puts "--peer, one call per row), interleaved run by run, medians of 5, and their ratio (SQL / kernel)"
  puts [format "%-8s %-22s %11s %7s %13s %7s %11s %9s %7s" path type "quantize ms" ratio "dequantize ms" ratio \
            "SQL med ms" "kernel ms" SQL/k]
  set env(GLIBC_TUNABLES) glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967295
  foreach p $paths {
    puts [exec [info nameofexecutable] [info script] -ggml -path $p $ext]
  }
  exit 0
}

set env(SQLITE_QUANT_KERNEL) $path
sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($ext)}
expr {srand(7)}
if {$ggml} {
  ggml_rows
  exit 0
}
db eval {CREATE TABLE w(id INTEGER PRIMARY KEY, w BLOB, q BLOB, s BLOB, z BLOB,
                        s1 BLOB, z1 BLOB)}
# 16 distinct 1 MB tensors, stored 16 times each (every row its own pages).
set blobs {}
for {set b 0} {$b < 16} {incr b} {
  set vals {}
  for {set i 0} {$i < 262144} {incr i} {
    lappend vals [expr {(rand() + rand() + rand() - 1.5) * 0.2}]
  }
  lappend blobs [binary format r* $vals]
}
db transaction {
  for {set r 0} {$r < 256} {incr r} {
    set blob [lindex $blobs [expr {$r % 16}]]
    db eval {INSERT INTO w(id, w) VALUES ($r, @blob)}
  }
}
db eval {
  UPDATE w SET q = quantize_blob(w, 0.002, 0),
               s = q_per_channel_scales(w, '[256,1024]', 0),
               z = q_per_channel_zero_points(w, '[256,1024]', 0),
               s1 = q_per_channel_scales(w, '[256,1024]', -1),
               z1 = q_per_channel_zero_points(w, '[256,1024]', -1)
}
set mb [expr {256.0 * 1048576 / 1e9}]
set base [best_of 3 {SELECT sum(length(q_f32(w))) FROM w}]
set rows {
  {"q_f32(w)  (the copy baseline)" {SELECT sum(length(q_f32(w))) FROM w}}
  {"quantize_blob(w, s, z) int8" {SELECT sum(length(quantize_blob(w, 0.002, 0))) FROM w}}
  {"quantize_blob(w, s, z, 'uint4')" {SELECT sum(length(quantize_blob(w, 0.002, 8, 'uint4'))) FROM w}}
  {"dequantize_blob(q, s, z) int8" {SELECT sum(length(dequantize_blob(q, 0.002, 0))) FROM w}}
  {"q_fake_quantize(w, s, z)" {SELECT sum(length(q_fake_quantize(w, 0.002, 0))) FROM w}}
  {"q_scale(w)" {SELECT sum(q_scale(w)) FROM w}}
  {"quantize_per_channel_blob axis 0 (256 ch)" {SELECT sum(length(quantize_per_channel_blob(w, s, z, '[256,1024]', 0))) FROM w}}
  {"quantize_per_channel_blob axis -1 (1024 ch)" {SELECT sum(length(quantize_per_channel_blob(w, s1, z1, '[256,1024]', -1))) FROM w}}
  {"q_per_channel_scales axis 0" {SELECT sum(length(q_per_channel_scales(w, '[256,1024]', 0))) FROM w}}
  {"q_per_channel_scales axis -1" {SELECT sum(length(q_per_channel_scales(w, '[256,1024]', -1))) FROM w}}
  {"q_mse(w, w)" {SELECT sum(q_mse(w, w)) FROM w}}
}
foreach row $rows {
  lassign $row label sql
  set t [best_of 3 $sql]
  puts [format "%-8s %-44s %9.4f %8.2f %7.2f" $path $label $t [expr {$mb / $t}] [expr {$t / $base}]]
}
# method=mse and percentile on one 16M-element tensor (issue: must stay fast)
set big [string repeat [lindex $blobs 0][lindex $blobs 1][lindex $blobs 2][lindex $blobs 3] 16]
foreach {label opts} {"q_scale 16M method=minmax" "" "q_scale 16M method=percentile" "method=percentile" "q_scale 16M method=mse" "method=mse"} {
  set t [best_of 3 {SELECT q_scale(@big, 'int8', 'affine', $opts)}]
  puts [format "%-8s %-44s %9.4f %8.2f %7s" $path $label $t [expr {64*1048576/1e9 / $t}] "-"]
}
