#!/usr/bin/python3
"""bench_calibration.py: calibration methods (docs/NUMERICS.md#calibration)
side by side with their peers, on the same tensor in the same run.

Run by `make bench` as Debian's /usr/bin/python3.

  1. One 16M-element float32 tensor (seeded normal), and a heavy-tailed one
     (seeded Student t, 3 degrees of freedom), both bound as blobs.
  2. Ours goes through SQL: the system's libsqlite3 (by ctypes, so the blob
     is bound without a copy, as Tcl binds it) loads dist/quant.so and runs
     q_scale(x, 'uint8', 'affine', 'method=...'), so the time includes the
     call, the NaN check, the calibration and the parameter choice.
  3. One thread everywhere (torch.set_num_threads(1)); best of N runs, in
     CPU time (process_time: user + system, page faults included).
  4. Rows and their goals:
       percentile   vs numpy.percentile of both tails in one call   >= 5x
       mse          vs PyTorch's HistogramObserver (forward +
                    calculate_qparams)                               >= 3x
       histogram    vs the same HistogramObserver                   >= 3x
       entropy      vs tests/entropy_ref.py (numpy, same algorithm)  reported
       minmax       for reference
     entropy runs twice: ONNX Runtime's defaults (bins=128
     quantized_bins=128) and TensorRT's (bins=2048 quantized_bins=128).
     A missing peer prints why and the Debian package to install.
  5. q_compare over the demo models is bench/bench_compare.tcl's (make bench
     runs it before this script).
"""
import os
import struct
import sys
import time

N = 16 * 1024 * 1024
P = 99.99
REPS = 5
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
EXT = os.path.join(ROOT, "dist", "quant")


def best(fn, reps=REPS):
    """Best CPU time (user + system) of reps calls.  CPU time, not wall
    time: every side runs on one thread, and on a shared machine wall time
    also counts the time other processes held the CPU."""
    t = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        t = min(t, time.process_time() - t0)
    return t


class Conn:
    """A connection through the system's libsqlite3 by ctypes, so that a blob
    is bound SQLITE_STATIC: Python's sqlite3 module binds every blob as a
    transient copy, and a fresh 67 MB copy (its page faults included) would
    cost more than minmax itself.  Tcl's sqlite binds bytearrays static too."""

    def __init__(self, ext):
        import ctypes
        import ctypes.util
        c = ctypes
        lib = c.CDLL(ctypes.util.find_library("sqlite3"))
        self.c, self.lib = c, lib
        lib.sqlite3_open.argtypes = [c.c_char_p, c.POINTER(c.c_void_p)]
        lib.sqlite3_errmsg.restype = c.c_char_p
        lib.sqlite3_errmsg.argtypes = [c.c_void_p]
        lib.sqlite3_enable_load_extension.argtypes = [c.c_void_p, c.c_int]
        lib.sqlite3_load_extension.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p,
                                               c.POINTER(c.c_char_p)]
        lib.sqlite3_prepare_v2.argtypes = [c.c_void_p, c.c_char_p, c.c_int,
                                           c.POINTER(c.c_void_p), c.c_void_p]
        lib.sqlite3_bind_blob.argtypes = [c.c_void_p, c.c_int, c.c_void_p, c.c_int,
                                          c.c_void_p]
        lib.sqlite3_bind_text.argtypes = [c.c_void_p, c.c_int, c.c_char_p, c.c_int,
                                          c.c_void_p]
        lib.sqlite3_step.argtypes = [c.c_void_p]
        lib.sqlite3_reset.argtypes = [c.c_void_p]
        lib.sqlite3_finalize.argtypes = [c.c_void_p]
        lib.sqlite3_column_count.argtypes = [c.c_void_p]
        lib.sqlite3_column_double.restype = c.c_double
        lib.sqlite3_column_double.argtypes = [c.c_void_p, c.c_int]
        self.db = c.c_void_p()
        if lib.sqlite3_open(b":memory:", c.byref(self.db)):
            raise RuntimeError("sqlite3_open failed")
        lib.sqlite3_enable_load_extension(self.db, 1)
        err = c.c_char_p()
        if lib.sqlite3_load_extension(self.db, ext.encode(), None, c.byref(err)):
            raise RuntimeError("load_extension: %s" % err.value.decode())

    def query(self, sql, blob, text):
        """Binds blob (bytes, static) to ?1 and text to ?2; the first row's
        columns as floats; an SQL error raises RuntimeError."""
        c, lib = self.c, self.lib
        stmt = c.c_void_p()
        if lib.sqlite3_prepare_v2(self.db, sql.encode(), -1, c.byref(stmt), None):
            raise RuntimeError(lib.sqlite3_errmsg(self.db).decode())
        try:
            lib.sqlite3_bind_blob(stmt, 1, blob, len(blob), None)  # SQLITE_STATIC
            t = text.encode()
            lib.sqlite3_bind_text(stmt, 2, t, len(t), None)
            if lib.sqlite3_step(stmt) != 100:                     # SQLITE_ROW
                raise RuntimeError(lib.sqlite3_errmsg(self.db).decode())
            return [lib.sqlite3_column_double(stmt, i)
                    for i in range(lib.sqlite3_column_count(stmt))]
        finally:
            lib.sqlite3_finalize(stmt)


def connect():
    return Conn(EXT)


def ours(db, blob, method, extra=""):
    """Best time of q_scale through SQL with method=<method> [extra]."""
    opts = "method=" + method + (" " + extra if extra else "")
    sql = "SELECT q_scale(?1, 'uint8', 'affine', ?2)"
    return best(lambda: db.query(sql, blob, opts)), db.query(sql, blob, opts)


def histogram_observer(torch, t):
    from torch.ao.quantization.observer import HistogramObserver
    obs = HistogramObserver(dtype=torch.quint8, qscheme=torch.per_tensor_affine)
    obs(t)
    return obs.calculate_qparams()


def entropy_ref():
    """tests/entropy_ref.py: ONNX Runtime's entropy calibrator in numpy."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        import entropy_ref as ref
        return ref
    finally:
        sys.path.pop(0)


def row(name, ms_ours, ms_peer, peer, goal):
    if ms_peer is None:
        print("%-24s %10.2f %10s %8s  %s" % (name, ms_ours, "-", "-", peer))
        return
    ratio = ms_peer / ms_ours
    mark = "" if goal is None else ("  goal %gx %s" % (goal, "met" if ratio >= goal else "MISSED"))
    print("%-24s %10.2f %10.2f %7.1fx  %s%s" % (name, ms_ours, ms_peer, ratio, peer, mark))


def tensor_section(db, np, torch, label, x):
    blob = x.astype("<f4").tobytes()
    print("\n%s: %d float32 (%.0f MB), best of %d CPU times, one thread"
          % (label, x.size, x.nbytes / 1e6, REPS))
    print("%-24s %10s %10s %8s  %s" % ("method", "ours ms", "peer ms", "ratio", "peer"))
    t_mm, _ = ours(db, blob, "minmax")
    row("minmax", t_mm * 1e3, best(lambda: (x.min(), x.max())) * 1e3,
        "numpy min()+max()", None)

    t, _ = ours(db, blob, "percentile", "percentile=%g" % P)
    tp = best(lambda: np.percentile(x, [100 - P, P]))
    row("percentile=%g" % P, t * 1e3, tp * 1e3, "numpy.percentile([%g, %g])" % (100 - P, P), 5)

    th = None
    if torch is not None:
        tt = torch.from_numpy(x)
        th = best(lambda: histogram_observer(torch, tt), 3)
    peer = "torch HistogramObserver" if th is not None else \
        "no torch (Debian: apt-get install python3-torch)"
    t, _ = ours(db, blob, "mse")
    row("mse", t * 1e3, th * 1e3 if th is not None else None, peer, 3)
    t, _ = ours(db, blob, "histogram")
    row("histogram", t * 1e3, th * 1e3 if th is not None else None, peer, 3)
    ref = entropy_ref()
    for bins, qbins in ((128, 128), (2048, 128)):
        t, _ = ours(db, blob, "entropy", "bins=%d quantized_bins=%d" % (bins, qbins))
        tr = best(lambda: ref.entropy_range([x], bins, qbins), 3)
        row("entropy %d/%d" % (bins, qbins), t * 1e3, tr * 1e3,
            "tests/entropy_ref.py (numpy, same algorithm)", None)

def main():
    try:
        import numpy as np
    except ImportError:
        print("calibration bench skipped: /usr/bin/python3 has no numpy "
              "(Debian: apt-get install python3-numpy python3-torch)")
        return
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    db = connect()
    rng = np.random.default_rng(0)
    print("\nCalibration vs numpy %s and PyTorch %s" % (
        np.__version__, torch.__version__ if torch else "(absent)"))
    tensor_section(db, np, torch, "normal(0, 1)", rng.normal(0, 1, N).astype(np.float32))
    tensor_section(db, np, torch, "student t(3), heavy tails",
                   rng.standard_t(3, N).astype(np.float32))


if __name__ == "__main__":
    main()
