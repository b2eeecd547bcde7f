# run.tcl: runs the *.test files and reports "N passed, N failed".
#
#   tclsh tests/run.tcl EXT [FILE...]        every kernel path the CPU has,
#                                            each in its own process
#   tclsh tests/run.tcl -path P EXT [FILE...] one path (SQLITE_QUANT_KERNEL=P)
#
# EXT is the extension to load (dist/quant.so).  Exit status is non-zero when
# any test fails or a test file cannot run.
set here [file dirname [file normalize [info script]]]

proc run_files {files} {
  set ::sq_passed 0
  set ::sq_failed 0
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
if {[lindex $argv 0] eq "-path"} {
  set path [lindex $argv 1]
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
  puts "$path: $::sq_passed passed, $::sq_failed failed"
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
foreach p [split [string map {\" ""} $names] ,] {
  set rc [catch {exec [info nameofexecutable] [info script] -path $p \
                     $::quant_ext {*}$files 2>@1} out]
  puts $out
  if {[regexp {(\d+) passed, (\d+) failed\s*$} $out -> np nf]} {
    incr total_passed $np
    incr total_failed $nf
  } else {
    incr total_failed
  }
  if {$rc && ![regexp {failed\s*$} $out]} { incr total_failed }
}
puts "$total_passed passed, $total_failed failed"
exit [expr {$total_failed ? 1 : 0}]
