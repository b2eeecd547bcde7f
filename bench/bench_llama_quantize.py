#!/usr/bin/env python3
"""bench_llama_quantize.py [--dir DIR] [--layers N] [--ftypes Q4_K_M,Q8_0]
[--threads 1,2] [--reps R]

File-to-file quantization of a synthetic Llama-3.2-1B-shaped checkpoint
(16 layers, 2048 wide, 8192 FFN, 32 heads over 8, a 128256-token vocabulary,
untied output: 1.50B weights in f16, 2.8 GiB; --layers makes it smaller),
by `sqlite-quant quantize` and by llama.cpp's `llama_model_quantize`
(libllama.v0.5.0.so, `make llama-lib`), side by side in the same run,
interleaved, each in a process of its own: wall time, CPU time (user +
system) and peak RSS of that process, the median of R runs.  The output
files are compared byte for byte each time.

The model is made once by tests/llama/gen_llama_gguf.py (random weights,
seed 1) and kept in DIR (default build/bench-llama).  The page cache holds
it after the first run on either side: both sides read warm input.  The
llama.cpp side runs in a Python process that loads the library through
ctypes; its RSS includes that interpreter (about 20 MB, measured and
printed as "python alone").
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "llama"))

LLAMA_RUNNER = r'''
import sys
sys.path.insert(0, sys.argv[1])
from quantize_check import Llama
lib, src, dst, ftype, threads = sys.argv[2:7]
sys.exit(Llama(lib).quantize(src, dst, ftype, [], nthread=int(threads)))
'''


def run(cmd, scratch):
    """Runs cmd under GNU time; returns (wall s, CPU s, peak RSS MiB) of
    that process.  (A child's peak RSS starts at its parent's RSS when it
    forks, so the process measured must not be forked from this Python:
    time forks it from a process of 2 MB.)"""
    out = os.path.join(scratch, "time.txt")
    p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed (exit {p.returncode})")
    e, u, s_, m = open(out).read().split()
    return float(e), float(u) + float(s_), int(m) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "bench-llama"))
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--ftypes", default="Q4_K_M,Q8_0")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "llama"))
    ap.add_argument("--cli", default=os.path.join(ROOT, "dist", "sqlite-quant"))
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    src = os.path.join(a.dir, f"llama-1b-shape-{a.layers}l-f16.gguf")
    if not os.path.exists(src):
        print(f"bench: making {src}", flush=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "llama", "gen_llama_gguf.py"),
                        src + ".tmp", "--untied", "--layers", str(a.layers),
                        "--embd", "2048", "--ff", "8192", "--heads", "32",
                        "--kv-heads", "8", "--vocab", "128256", "--seed", "1"], check=True)
        os.rename(src + ".tmp", src)
    size = os.path.getsize(src)
    print(f"bench: {src}: {size / 2**30:.2f} GiB (warm page cache after the first run)")
    runner = os.path.join(a.dir, "llama_runner.py")
    with open(runner, "w") as f:
        f.write(LLAMA_RUNNER)
    base = run([sys.executable, "-c", "import ctypes"], a.dir)
    print(f"bench: python alone: {base[2]:.0f} MiB peak RSS")

    print(f"\n| ftype | threads | tool wall s | llama.cpp wall s | wall ratio | "
          f"tool CPU s | llama.cpp CPU s | tool RSS MiB | llama.cpp RSS MiB | same bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for ftype in a.ftypes.split(","):
        for threads in a.threads.split(","):
            ours, theirs, same = [], [], True
            out_a = os.path.join(a.dir, "out.tool.gguf")
            out_b = os.path.join(a.dir, "out.llama.gguf")
            for _ in range(a.reps):
                ours.append(run([a.cli, "quantize", "--quiet", src, out_a, ftype, threads],
                                a.dir))
                theirs.append(run([sys.executable, runner, os.path.join(ROOT, "tests", "llama"),
                                   a.lib, src, out_b, ftype, threads], a.dir))
                same = same and os.path.getsize(out_a) == os.path.getsize(out_b) and \
                    subprocess.run(["cmp", "-s", out_a, out_b]).returncode == 0
            m = lambda xs, k: statistics.median(x[k] for x in xs)
            print(f"| {ftype} | {threads} | {m(ours, 0):.2f} | {m(theirs, 0):.2f} | "
                  f"{m(theirs, 0) / m(ours, 0):.2f}x | {m(ours, 1):.2f} | {m(theirs, 1):.2f} | "
                  f"{m(ours, 2):.0f} | {m(theirs, 2):.0f} | {'yes' if same else 'NO'} |",
                  flush=True)
            for f in (out_a, out_b):
                if os.path.exists(f):
                    os.remove(f)


if __name__ == "__main__":
    main()
