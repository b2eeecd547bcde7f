#!/usr/bin/python3
"""bench_histogram.py: method=histogram against PyTorch 1.13's
HistogramObserver (forward + calculate_qparams) on the same 16M float32
values, one thread, best of 5, measured in one run.

    /usr/bin/python3 bench/bench_histogram.py [dist/quant.so]

Ours is timed in tclsh, whose sqlite binds a byte array without copying it;
Python's sqlite3 copies a bound 64 MB blob first (about 30 ms here, as much
as the method itself), so the end-to-end Python time is printed as well.
SQLITE_QUANT_KERNEL picks the kernel path as usual.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import numpy as np

N = 16 * 1024 * 1024
EXT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "dist/quant.so")
QUERIES = [("minmax", "uint8", "affine", ""),
           ("histogram", "uint8", "affine", "method=histogram"),
           ("histogram symmetric", "int8", "symmetric", "method=histogram")]

TCL = r"""
package require sqlite3
sqlite3 db :memory:
db enable_load_extension 1
db eval {SELECT load_extension($ext)}
set f [open $path rb]; set x [read $f]; close $f
foreach {name dtype scheme opts} $queries {
  set best 1e99
  for {set i 0} {$i < 5} {incr i} {
    set t [clock microseconds]
    db eval {SELECT q_scale(:x, :dtype, :scheme, :opts)}
    set d [expr {[clock microseconds] - $t}]
    if {$d < $best} { set best $d }
  }
  puts "$name\t[expr {$best / 1000.0}]"
}
"""


def best(fn, reps=5):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    x = np.random.default_rng(0).standard_normal(N).astype("<f4")
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        x.tofile(f.name)
        qs = " ".join("{%s} %s %s {%s}" % q for q in QUERIES)
        script = "set ext {%s}; set path {%s}; set queries {%s}\n%s" % (
            EXT, f.name, qs, TCL)
        out = subprocess.run(["tclsh"], input=script, capture_output=True,
                             text=True, check=True).stdout
    ours = {}
    for line in out.splitlines():
        name, ms = line.split("\t")
        ours[name] = float(ms)
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    b = x.tobytes()
    py = best(lambda: con.execute(
        "SELECT q_scale(?, 'uint8', 'affine', 'method=histogram')", (b,)).fetchone())
    bind = best(lambda: con.execute("SELECT length(?)", (b,)).fetchone())
    try:
        import torch
    except ImportError:
        print("torch is missing (python3-torch): no ratio")
        torch = None
    print("method=histogram, %d float32 values, one thread, best of 5" % N)
    for name, ms in ours.items():
        print("  ours %-22s %8.1f ms" % (name, ms))
    print("  ours via Python sqlite3  %8.1f ms (binding the blob alone: %.1f ms)"
          % (py * 1e3, bind * 1e3))
    if torch is not None:
        torch.set_num_threads(1)
        tx = torch.from_numpy(x)

        def observe():
            ob = torch.ao.quantization.HistogramObserver()
            ob(tx)
            return ob.calculate_qparams()
        t = best(observe)
        print("  torch HistogramObserver  %8.1f ms" % (t * 1e3))
        print("  ratio torch / ours: %.1fx (Tcl), %.1fx (Python sqlite3)"
              % (t * 1e3 / ours["histogram"], t / py))


if __name__ == "__main__":
    main()
