# file_crash.tcl: the path writers (docs/FORMATS.md#file-writers) against
# what a test inside one process cannot do: a writer killed mid-write and a
# full disk.  make test-file-crash runs it.
#
#   tclsh tests/file_crash.tcl EXT [EXT...]
#
# For each library (dist/quant.so takes O_TMPFILE; build/named-tmp/quant.so
# is built to take the named temporary file, as on a file system without
# O_TMPFILE), checks that
#   - a child killed with SIGKILL or SIGTERM while it inserts rows leaves
#     the old target unchanged and nothing else (the named way: its locked
#     temporary file, which the next write of the target removes, while a
#     live writer's is kept);
#   - on a full tmpfs (mounted here; needs root, else skipped with the
#     reason) a row that does not fit, or a header that does not fit at the
#     COMMIT, is an error, keeps the old file and leaves nothing;
#   - a file fits in a tmpfs that holds it once but not twice (0.2.0
#     needed a data file and an output file).
# Then it runs file_write.test and file_transactions.test on each library
# that is not dist/quant.so.  Prints "file-crash: N passed, N failed, N
# skipped".
set fc_here [file dirname [file normalize [info script]]]
set exts [lmap e $argv {file normalize $e}]
set ::quant_ext [lindex $exts 0]
source [file join $fc_here tester.tcl]
set ::sq_passed 0
set ::sq_failed 0
set ::sq_skipped 0

set fc_root [file join [pwd] build file-crash-[pid]]
file delete -force $fc_root
file mkdir $fc_root
set fc_child [file join $fc_root child.tcl]
set f [open $fc_child w]
puts $f {
  # A writer that inserts 100000 rows of 4 KiB, slowly from row 3 on, and
  # says so by creating the marker file: it is killed before it ends.
  lassign $argv load ext target marker fn col
  eval $load
  sqlite3 db :memory:
  db enable_load_extension 1
  db eval {SELECT load_extension($ext)}
  db function slow {apply {{k} {
    if {$k == 3} { close [open $::marker w] }
    if {$k >= 3} { after 20 }
    return $k
  }}}
  db eval "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 100000)
           INSERT INTO $fn\(path, name, data, $col, shape)
           SELECT \$target, 't' || k, zeroblob(4096), 'int8', '\[4096\]' FROM n WHERE slow(k)"
}
close $f

proc fc_put {path nbytes} {
  set f [open $path wb]
  puts -nonewline $f [string repeat O $nbytes]
  close $f
}
proc fc_read {path} {
  set f [open $path rb]
  set b [read $f]
  close $f
  return $b
}
proc fc_ls {dir} {
  lsort [glob -nocomplain -directory $dir -tails {*} {.*}]
}
proc fc_entries {dir} {
  lmap f [fc_ls $dir] { if {$f in {. ..}} continue; set f }
}
# Starts the child writing target; returns its pid once it is mid-write.
proc fc_start {fn col target} {
  set marker [file join $::fc_root started]
  file delete $marker
  set pid [exec tclsh $::fc_child $::sq_sqlite_load $::quant_ext $target \
               $marker $fn $col &]
  for {set i 0} {$i < 3000 && ![file exists $marker]} {incr i} { after 10 }
  file delete $marker
  return $pid
}
# Waits until pid has died (exited, or a zombie nobody reaped yet).
proc fc_wait_dead {pid} {
  for {set i 0} {$i < 3000} {incr i} {
    if {![file exists /proc/$pid]} return
    if {[catch {fc_read /proc/$pid/stat} stat]} return
    if {[lindex [split [string range $stat [string last ) $stat] end]] 1] eq "Z"} return
    after 10
  }
}
proc fc_leftover {name entries} {
  lsearch -all -inline -regexp $entries "^[string map {. \\.} $name]\\.sq-tmp-\[A-Za-z0-9\]{6}\$"
}

foreach ext $exts {
  set ::quant_ext $ext
  open_db
  set named [string match *named-tmp* $ext]
  set label [expr {$named ? "named" : "tmpfile"}]

  # ---- killed mid-write ----
  foreach {fn col e} {q_gguf_write type gguf q_npz_write dtype npz} {
    foreach sig {KILL TERM} {
      set dir [file join $fc_root $label-$fn-$sig]
      file mkdir $dir
      set target [file join $dir m.$e]
      fc_put $target 1000
      set pid [fc_start $fn $col $target]
      set during [fc_entries $dir]
      exec kill -$sig $pid
      fc_wait_dead $pid
      set after [fc_entries $dir]
      if {!$named} {
        do_test fc-$label-$fn-$sig-nothing-visible-while-writing [list set during] m.$e
        do_test fc-$label-$fn-$sig-nothing-left [list set after] m.$e
      } else {
        do_test fc-$label-$fn-$sig-one-temporary-while-writing {
          list [llength $during] [llength [fc_leftover m.$e $during]]
        } {2 1}
        do_test fc-$label-$fn-$sig-its-leftover-only {
          list [llength $after] [llength [fc_leftover m.$e $after]]
        } {2 1}
      }
      do_test fc-$label-$fn-$sig-old-bytes {fc_read $target} [string repeat O 1000]
      # The next write of the target: the new file, nothing else.
      db eval "INSERT INTO $fn\(path, name, data, $col, shape) VALUES (\$target, 'w', X'01', 'int8', '\[1\]')"
      do_test fc-$label-$fn-$sig-next-write-cleans [list fc_entries $dir] m.$e
      do_test fc-$label-$fn-$sig-next-write-bytes {
        string equal [fc_read $target] [db one "SELECT [string map {_write _agg} $fn]('w', X'01', 'int8', '\[1\]')"]
      } 1
    }
  }
  # A live writer's temporary file is not a leftover.
  if {$named} {
    set dir [file join $fc_root $label-live]
    file mkdir $dir
    set target [file join $dir m.gguf]
    set pid [fc_start q_gguf_write type $target]
    db eval {INSERT INTO q_gguf_write(path, name, data, type, shape) VALUES ($target, 'w', X'01', 'int8', '[1]')}
    do_test fc-$label-live-writer-kept {llength [fc_leftover m.gguf [fc_entries $dir]]} 1
    exec kill -KILL $pid
    fc_wait_dead $pid
    db eval {INSERT INTO q_gguf_write(path, name, data, type, shape) VALUES ($target, 'w', X'01', 'int8', '[1]')}
    do_test fc-$label-dead-writer-removed [list fc_entries $dir] m.gguf
  }

  # ---- a full disk ----
  if {[exec id -u] ne "0" || [auto_execok mount] eq ""} {
    sq_skip fc-$label-full-disk "mounting a tmpfs needs root (uid [exec id -u])"
  } else {
    set mnt [file join $fc_root $label-tmpfs]
    file mkdir $mnt
    exec mount -t tmpfs -o size=6m,mode=0755 sq-file-crash $mnt
    try {
      set target [file join $mnt m.gguf]
      fc_put $target 4096
      # 5 MiB of tensors fit in 6 MiB beside the old file: the disk holds
      # the output once (0.2.0 needed 10 MiB: a data file and the output).
      do_test fc-$label-fits-once {
        db eval {WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 5)
                 INSERT INTO q_gguf_write(path, name, data, type, shape)
                 SELECT $target, 't' || k, zeroblob(1048576), 'int8', '[1048576]' FROM n}
        list [file size $target] [fc_entries $mnt]
      } [list [expr {5 * 1048576 + 224}] m.gguf]
      fc_put $target 4096
      # 8 MiB do not: the row that does not fit is the error.
      do_test fc-$label-full-at-a-row {
        list [catch {db eval {WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 8)
                 INSERT INTO q_gguf_write(path, name, data, type, shape)
                 SELECT $target, 't' || k, zeroblob(1048576), 'int8', '[1048576]' FROM n}} m] $m
      } [list 1 "q_gguf_write: cannot write '$target': no space left on the device"]
      do_test fc-$label-full-at-a-row-old-file {
        list [fc_read $target] [fc_entries $mnt]
      } [list [string repeat O 4096] m.gguf]
      # Exactly the free space in 4 KiB tensors: every row fits, the header
      # does not, and the COMMIT is the error.
      set free [lindex [exec df -B1 --output=avail $mnt] end]
      set n [expr {$free / 4096}]
      do_test fc-$label-full-at-commit {
        list [catch {db eval {BEGIN}
                     db eval {WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < $n)
                              INSERT INTO q_gguf_write(path, name, data, type, shape)
                              SELECT $target, 't' || k, zeroblob(4096), 'int8', '[4096]' FROM n}
                     db eval {COMMIT}} m] $m
      } [list 1 "q_gguf_write: cannot write '$target': no space left on the device"]
      catch {db eval ROLLBACK}
      do_test fc-$label-full-at-commit-old-file {
        list [fc_read $target] [fc_entries $mnt] [lindex [exec df -B1 --output=avail $mnt] end]
      } [list [string repeat O 4096] m.gguf $free]
      # The same through .npz.
      set target [file join $mnt m.npz]
      fc_put $target 4096
      do_test fc-$label-npz-full {
        list [catch {db eval {WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 8)
                 INSERT INTO q_npz_write(path, name, data, dtype, shape)
                 SELECT $target, 't' || k, zeroblob(1048576), 'int8', '[1048576]' FROM n}} m] $m \
             [fc_read $target] [fc_entries $mnt]
      } [list 1 "q_npz_write: cannot write '$target': no space left on the device" [string repeat O 4096] {m.gguf m.npz}]
    } finally {
      exec umount $mnt
    }
  }
  db close
}

# The transaction tests on the libraries other than the default one.
foreach ext [lrange $exts 1 end] {
  set ::quant_ext $ext
  foreach t {file_write.test file_transactions.test} {
    open_db
    if {[catch {uplevel #0 [list source [file join $fc_here $t]]} err]} {
      incr ::sq_failed
      puts "FAILED $t on $ext: the file stopped with an error: $err"
    }
  }
}
catch {db close}
file delete -force $fc_root
puts "file-crash: $::sq_passed passed, $::sq_failed failed, $::sq_skipped skipped"
exit [expr {$::sq_failed ? 1 : 0}]
