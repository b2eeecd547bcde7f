# change_rows.tcl LOAD EXT DIR MODE: a host process that reads a model file
# row by row while the file changes under it (tests/readers.test runs it as
# a child, so a host killed by a signal is a failed test, not a dead suite).
#
# LOAD is the Tcl command that loads SQLite's binding, EXT the extension.
# DIR/m.safetensors holds three f32 tensors a, b, c (values 1, 2, 3); in the
# db eval body of the first row of q_tensors_file, MODE changes the file:
#   truncate   truncated to 0 bytes in place
#   overwrite  `cp` of a file of the same size (values 7, 8, 9) over it
#   rename     that file renamed over it (the reader keeps the old one)
# Prints one line per row (name, nbytes, the data's first 4 bytes in hex),
# then "done" or "error: <message>".
lassign $argv load ext dir mode
eval $load
sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($ext)}

proc model {path v1 v2 v3} {
  foreach v [list $v1 $v2 $v3] n {x1 x2 x3} { set $n "\[$v,$v,$v,$v\]" }
  set bytes [db one {
    SELECT q_safetensors_agg(name, q_f32(x), 'f32', '[4]')
    FROM (SELECT 'a' AS name, $x1 AS x UNION ALL SELECT 'b', $x2
          UNION ALL SELECT 'c', $x3)
  }]
  set f [open $path wb]
  puts -nonewline $f $bytes
  close $f
  # A time long past: any write now changes it, whatever the clock's tick.
  file mtime $path 1577836800
}
set path [file join $dir m.safetensors]
set other [file join $dir other.safetensors]
model $path 1 2 3
model $other 7 8 9

set rows {}
set rc [catch {
  db eval {SELECT name, nbytes, hex(substr(data, 1, 4)) AS head
           FROM q_tensors_file($path)} {
    lappend rows "$name $nbytes $head"
    if {[llength $rows] == 1} {
      switch -- $mode {
        truncate {
          set f [open $path r+]
          chan truncate $f 0
          close $f
        }
        overwrite { exec cp $other $path }
        rename {
          file copy -force $other $path.new
          file rename -force $path.new $path
        }
      }
    }
  }
} err]
puts [join $rows \n]
puts [expr {$rc ? "error: $err" : "done"}]
db close
