# run.tcl: runs the *.test files and reports "N passed, N failed".
#
#   tclsh tests/run.tcl EXT [FILE...]        every kernel path the CPU has,
#                                            each in its own process
#   tclsh tests/run.tcl -path P EXT [FILE...] one path (SQLITE_QUANT_KERNEL=P)
#   tclsh tests/run.tcl -kernels BIN EXT ...  also runs the C kernel tests BIN
#                                            and counts them in the total
#   tclsh tests/run.tcl -sqlite LIB [-sqlite-version V] EXT ...
#                                            on the SQLite of the Tcl binding
#                                            LIB (load LIB Sqlite3) instead of
#                                            Debian's package; with V, one
#                                            more test per process requires
#                                            sqlite_version() to be V
#
# EXT is the extension to load (dist/quant.so).  Exit status is non-zero when
# any test fails or a test file cannot run.
set here [file dirname [file normalize [info script]]]

proc run_files {files} {
  set ::sq_passed 0
  set ::sq_failed 0
  set ::sq_skipped 0
  set ::sq_failures {}
  foreach f $files {
    open_db
    if {[catch {uplevel #0 [list source $f]} err]} {
      incr ::sq_failed
      puts "FAILED [file tail $f]: the file stopped with an error: $err"
      puts $::errorInfo
    }
  }
  catch {db close}
}

set path ""
set kernel_tests ""
set sqlite_version ""
while {[string match -* [lindex $argv 0]]} {
  switch -- [lindex $argv 0] {
    -path { set path [lindex $argv 1] }
    -kernels { set kernel_tests [lindex $argv 1] }
    -sqlite { set ::sq_sqlite_lib [file normalize [lindex $argv 1]] }
    -sqlite-version { set sqlite_version [lindex $argv 1] }
    default { puts stderr "run.tcl: unknown option [lindex $argv 0]"; exit 2 }
  }
  set argv [lrange $argv 2 end]
}
set ::quant_ext [file normalize [lindex $argv 0]]
set files [lrange $argv 1 end]
if {[llength $files] == 0} {
  set files [lsort [glob -directory $here *.test]]
}
source [file join $here tester.tcl]

if {$path ne ""} {
  set ::env(SQLITE_QUANT_KERNEL) $path
  run_files $files
  # The SQLite the tests ran on is the one intended, not whichever the
  # binding happened to resolve.
  if {$sqlite_version ne ""} {
    open_db
    do_test sqlite-version {db one {SELECT sqlite_version()}} $sqlite_version
    db close
  }
  puts "$path: $::sq_passed passed, $::sq_failed failed, $::sq_skipped skipped"
  exit [expr {$::sq_failed ? 1 : 0}]
}

# Every path the CPU can run, each in a child process (the path is chosen once
# per process).
open_db
set info [db one {SELECT q_info()}]
db close
regexp {"kernels":\[([^\]]*)\]} $info -> names
set total_passed 0
set total_failed 0
set total_skipped 0

# Counts the last "N passed, N failed" line of a child's output.
# (A failing child's output ends with Tcl's "child process exited abnormally",
# so the summary is the last match anywhere, not the last line.)
proc count_child {rc out} {
  set matches [regexp -all -inline -line \
      {^(?:\w+: )?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$} $out]
  if {[llength $matches]} {
    lassign [lrange $matches end-3 end] -> np nf ns
    incr ::total_passed $np
    incr ::total_failed $nf
    if {$ns ne ""} { incr ::total_skipped $ns }
    if {$rc && $nf == 0} { incr ::total_failed }
  } else {
    incr ::total_failed
  }
}

if {$kernel_tests ne ""} {
  set rc [catch {exec $kernel_tests 2>@1} out]
  puts $out
  count_child $rc $out
}

foreach p [split [string map {\" ""} $names] ,] {
  set sqlite_opts {}
  if {[info exists ::sq_sqlite_lib]} { lappend sqlite_opts -sqlite $::sq_sqlite_lib }
  if {$sqlite_version ne ""} { lappend sqlite_opts -sqlite-version $sqlite_version }
  set rc [catch {exec [info nameofexecutable] [info script] -path $p \
                     {*}$sqlite_opts $::quant_ext {*}$files 2>@1} out]
  puts $out
  count_child $rc $out
}
puts "$total_passed passed, $total_failed failed, $total_skipped skipped"
exit [expr {$total_failed ? 1 : 0}]
