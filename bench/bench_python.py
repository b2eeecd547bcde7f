#!/usr/bin/python3
"""bench_python.py: the same operations in numpy and PyTorch, side by side with
the extension's kernels, measured in one run (best of 5, 16M float32 elements).

Run by `make bench` as Debian's /usr/bin/python3.  numpy (python3-numpy) and
PyTorch (python3-torch) are optional: a missing one is reported with the
package to install and its rows are skipped.  Our numbers come from
build/bench_kernels, run from here so that every ratio is from this run.
Everything is single-threaded: PyTorch is pinned to one thread, as our
kernels and numpy's elementwise loops are.
"""
import os
import re
import subprocess
import sys
import time

N = 16 * 1024 * 1024
SCALE, ZP = 0.02, 0
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "build", "bench_kernels")


def best(fn, reps=5):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def ours():
    """Best path's time (seconds) per operation, from build/bench_kernels."""
    out = subprocess.run([BENCH, "--big", str(N), "--small", "0"],
                         capture_output=True, text=True, check=True).stdout
    times = {}
    for line in out.splitlines():
        m = re.match(r"(\S.*?)\s{2,}(\w+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+$", line)
        if m and m.group(2) != "scalar":
            op, us = m.group(1), float(m.group(3)) / 1e6
            if op not in times or us < times[op][0]:
                times[op] = (us, m.group(2))
    return times


def main():
    try:
        import numpy as np
    except ImportError:
        print("numpy and PyTorch rows skipped: /usr/bin/python3 has no numpy "
              "(Debian: apt-get install python3-numpy python3-torch)")
        return
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
        print("PyTorch rows skipped: no torch (Debian: apt-get install python3-torch)")

    x = np.random.default_rng(0).normal(0, 1, N).astype(np.float32)
    inv = np.float32(1.0) / np.float32(SCALE)
    q = np.clip(np.rint(x * inv) + ZP, -128, 127).astype(np.int8)
    rows = {
        "quantize int8": [lambda: np.clip(np.rint(x * inv) + ZP, -128, 127).astype(np.int8)],
        "dequantize int8": [lambda: (q.astype(np.float32) - ZP) * np.float32(SCALE)],
        "minmax": [lambda: (x.min(), x.max())],
    }
    if torch is not None:
        t = torch.from_numpy(x)
        tq = torch.quantize_per_tensor(t, SCALE, ZP, torch.qint8)
        rows["quantize int8"].append(lambda: torch.quantize_per_tensor(t, SCALE, ZP, torch.qint8))
        rows["dequantize int8"].append(lambda: tq.dequantize())
        rows["minmax"].append(lambda: torch.aminmax(t))
    mine = ours()
    print("\nvs numpy %s and PyTorch %s: %d float32 (%.0f MB), best of 5, one thread"
          % (np.__version__, torch.__version__ if torch else "(absent)", N, N * 4 / 1e6))
    print("%-18s %10s %10s %14s %9s %9s" % ("operation", "numpy ms", "torch ms",
                                          "ours ms", "vs numpy", "vs torch"))
    for op, fns in rows.items():
        tn = best(fns[0])
        tt = best(fns[1]) if len(fns) > 1 else None
        to, path = mine[op]
        print("%-18s %10.2f %10s %9.2f %-4s %8.1fx %8s" % (
            op, tn * 1e3, "%.2f" % (tt * 1e3) if tt else "-", to * 1e3, path,
            tn / to, "%.1fx" % (tt / to) if tt else "-"))


if __name__ == "__main__":
    main()
