#!/usr/bin/python3
"""ref_check.py: the extension's NF4/FP4 quantizer against bnb4_ref.py on fresh data.

    /usr/bin/python3 tests/bnb4/ref_check.py EXT [--seed N] [--cases N]

Each case draws a random length (ragged and odd ones too), a block size
from bitsandbytes' list, NF4 or FP4, and one of several families of
float32 data (normal at random scales, every code value and midpoint
exactly under absmax 1 and their neighbours, zeros among the data,
subnormals, values near the float32 limits), then checks that
q_bnb4_quantize, q_bnb4_absmax, q_bnb4_dequantize, q_bnb4_nest and
q_bnb4_unnest give exactly the bytes of tests/bnb4/bnb4_ref.py (the numpy
reimplementation of bitsandbytes' rules; there is no bitsandbytes here).
Every kernel path the CPU has is run (SQLITE_QUANT_KERNEL), in a child
process each.  Exits non-zero on any difference.  Needs Debian's
python3-numpy.
"""
import json
import os
import sqlite3
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bnb4_ref as ref  # noqa: E402

f32 = np.float32


def data(rng, kind, n):
    fam = rng.integers(0, 6)
    if fam == 0:
        return (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6)).astype(f32), "normal"
    if fam == 1:
        # every value and midpoint of the table, and their float32 neighbours,
        # under absmax 1 (one per 32, the smallest block)
        t = ref.table(kind)
        b = ref.bounds(np.sort(t, kind="stable"))
        pool = np.concatenate([t, b, np.nextafter(b, f32(2)), np.nextafter(b, f32(-2)),
                               [0.0, -0.0, 1e-30, -1e-30]]).astype(f32)
        x = rng.choice(pool, n).astype(f32)
        x[::32] = f32(1.0) if rng.integers(0, 2) else f32(-1.0)
        return x, "midpoints"
    if fam == 2:
        x = rng.standard_normal(n).astype(f32)
        x[rng.random(n) < 0.5] = 0.0
        return x, "zeros"
    if fam == 3:
        return (rng.standard_normal(n) * 1e-41).astype(f32), "subnormal"
    if fam == 4:
        return (rng.uniform(-1, 1, n) * 3.4e38).astype(f32), "huge"
    x = rng.standard_normal(n).astype(f32)
    x[rng.integers(0, n)] = f32(rng.uniform(50, 500))          # an outlier
    return x, "outlier"


def child(ext, seed, cases):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    path = json.loads(db.execute("SELECT q_info()").fetchone()[0])["kernel"]
    rng = np.random.default_rng(seed)
    bad = 0
    for i in range(cases):
        kind = ("nf4", "fp4")[rng.integers(0, 2)]
        block = int(rng.choice(ref.BLOCK_SIZES))
        n = int(rng.integers(1, 3 * block + 2))
        x, fam = data(rng, kind, n)
        codes, am = ref.quantize(x, kind, block)
        dq = ref.dequantize(codes, am, kind, block, n)
        nested = ref.nest(am)
        un = ref.unnest(nested, am.size)
        xb = x.astype("<f4").tobytes()
        ab = am.astype("<f4").tobytes()
        got = db.execute(
            "SELECT q_bnb4_quantize(?1, ?2, ?3), q_bnb4_absmax(?1, ?3),"
            " q_bnb4_dequantize(?4, ?5, ?2, ?3, ?6), q_bnb4_nest(?5), q_bnb4_unnest(?7)",
            (xb, kind, block, codes, ab, n, nested)).fetchone()
        want = (codes, ab, dq.astype("<f4").tobytes(), nested,
                un.astype("<f4").tobytes())
        for what, g, w in zip(("codes", "absmax", "dequantized", "nested", "unnested"),
                              got, want):
            if g != w:
                bad += 1
                print(f"ref_check[{path}]: case {i} ({kind}, block {block}, n {n}, {fam}):"
                      f" {what} differs", file=sys.stderr)
    print(f"ref_check[{path}]: {cases} cases (seed {seed}), {bad} differences")
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    ext, seed, cases = args[0], None, 300
    if "--seed" in args:
        seed = int(args[args.index("--seed") + 1])
    if "--cases" in args:
        cases = int(args[args.index("--cases") + 1])
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    if "--child" in args:
        return child(ext, seed, cases)
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    paths = json.loads(db.execute("SELECT q_info()").fetchone()[0])["kernels"]
    db.close()
    rc = 0
    for p in paths:
        r = subprocess.run([sys.executable, __file__, ext, "--child", "--seed", str(seed),
                            "--cases", str(cases)],
                           env=dict(os.environ, SQLITE_QUANT_KERNEL=p))
        rc |= r.returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
