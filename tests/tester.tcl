# tester.tcl: the test harness, sourced by run.tcl before each *.test file.
#
# Every test names one behaviour and states its exact expected result:
#   do_execsql_test NAME SQL EXPECTED    rows of SQL, flattened, == EXPECTED
#   do_catchsql_test NAME SQL EXPECTED   {0 rows} on success, {1 message} on error
#   do_test NAME SCRIPT EXPECTED         result of a Tcl script == EXPECTED
#   sq_skip NAME REASON                  a test that cannot run here (a missing
#                                        runtime): counted and shown, never a pass
# Failures print the expected and actual values; run.tcl counts them.

# Debian's Tcl SQLite by default; run.tcl -sqlite LIB loads another build's
# Tcl binding instead (tests/sqlite-versions/run.sh runs the suite on other
# SQLite versions).  ::sq_sqlite_load is the command, for child interpreters.
if {[info exists ::sq_sqlite_lib]} {
  set ::sq_sqlite_load [list load $::sq_sqlite_lib Sqlite3]
} else {
  set ::sq_sqlite_load [list package require sqlite3]
}
eval $::sq_sqlite_load

# A fresh in-memory database with the extension loaded, as `db`.
proc open_db {{file :memory:}} {
  catch {db close}
  sqlite3 db $file
  db enable_load_extension 1
  db eval {SELECT load_extension($::quant_ext)}
}

proc sq_record {name ok expected got} {
  if {[info exists ::sq_filter] && ![string match $::sq_filter $name]} return
  if {$ok} {
    incr ::sq_passed
  } else {
    incr ::sq_failed
    lappend ::sq_failures $name
    puts "FAILED $name"
    puts "  expected: [string range $expected 0 600]"
    puts "  got:      [string range $got 0 600]"
  }
}

proc sq_skip {name reason} {
  if {[info exists ::sq_filter] && ![string match $::sq_filter $name]} return
  incr ::sq_skipped
  puts "SKIPPED $name: $reason"
}

proc do_test {name script expected} {
  if {[catch {uplevel 1 $script} got]} {
    set got "error: $got"
  }
  sq_record $name [expr {$got eq $expected}] $expected $got
}

proc do_execsql_test {name sql expected} {
  if {[catch {uplevel 1 [list db eval $sql]} got]} {
    sq_record $name 0 $expected "error: $got"
    return
  }
  # Compare as lists so that layout of the expected text does not matter.
  sq_record $name [expr {[list {*}$got] eq [list {*}$expected]}] $expected $got
}

proc do_catchsql_test {name sql expected} {
  set rc [catch {uplevel 1 [list db eval $sql]} got]
  set got [list $rc $got]
  sq_record $name [expr {$got eq [list {*}$expected]}] $expected $got
}

# Float32 helpers for building inputs and reading results exactly.
proc f32_hex {args} {
  # Little-endian float32 bytes of the given numbers, as an X'..' literal body.
  binary scan [binary format r* $args] H* h
  return [string toupper $h]
}
proc f32_bits {x} {
  # IEEE bit pattern of a number rounded to float32, as 0xXXXXXXXX.
  binary scan [binary format r $x] iu u
  return [format 0x%08X $u]
}
