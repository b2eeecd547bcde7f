#!/usr/bin/tclsh
# tcl_example.tcl: sqlite-quant from Tcl (Debian: tcl libsqlite3-tcl).
#   tclsh examples/tcl_example.tcl        (from the repo root)
# The extension is dist/quant unless SQLITE_QUANT_EXT names another build.
package require sqlite3
sqlite3 db :memory:
db enable_load_extension 1
set ext [expr {[info exists env(SQLITE_QUANT_EXT)] ? $env(SQLITE_QUANT_EXT) : "dist/quant"}]
db eval {SELECT load_extension($ext)}

# A [4,8] weight, row c scaled by (c+1)/4, packed as little-endian float32
# ("binary format r*"), stored as a BLOB: a bound bytearray variable (@w).
set vals {}
for {set i 0} {$i < 32} {incr i} { lappend vals [expr {sin($i) * ($i / 8 + 1) / 4.0}] }
set w [binary format r* $vals]
db eval {CREATE TABLE tensors(name TEXT, shape TEXT, data BLOB)}
db eval {INSERT INTO tensors VALUES ('fc', '[4,8]', @w)}

# Per-channel int8 parameters (axis 0) and codes, decoded with binary scan.
db eval {
  SELECT q_per_channel_scales(data, shape, 0) AS s,
         q_per_channel_zero_points(data, shape, 0) AS z FROM tensors
} break
db eval {SELECT quantize_per_channel_blob(data, @s, @z, shape, 0) AS q,
                q_sqnr(data, q_fake_quantize_per_channel(data, @s, @z, shape, 0)) AS sqnr
         FROM tensors} break
binary scan $s r* scales
binary scan $z i* zps
binary scan $q c* codes
binary scan $w r* x

# Recompute the codes by docs/NUMERICS.md#quantize in float32: q = clamp(rint(x * (1/s)) + zp).
proc f32 {v} { binary scan [binary format r $v] r f; return $f }
proc rint {y} {    ;# round half to even
  set r [expr {floor($y)}]; set d [expr {$y - $r}]
  if {$d > 0.5 || ($d == 0.5 && fmod($r, 2) != 0)} { set r [expr {$r + 1}] }
  return [expr {int($r)}]
}
set n 0
foreach xi $x qi $codes {
  set c [expr {$n / 8}]; incr n
  set inv [f32 [expr {1.0 / [lindex $scales $c]}]]
  set e [expr {[rint [f32 [expr {$xi * $inv}]]] + [lindex $zps $c]}]
  set e [expr {min(127, max(-128, $e))}]
  if {$e != $qi} { error "element [expr {$n - 1}]: SQL gave $qi, Tcl $e" }
}
puts "scales      [lmap v $scales {format %.6g $v}]"
puts "zero points $zps"
puts "codes row 0 [lrange $codes 0 7]"
puts "sqnr        [format %.2f $sqnr] dB"
puts "codes match Tcl: ok"
