#!/usr/bin/python3
"""Reference vectors for method=entropy (ONNX Runtime's entropy calibrator,
docs/NUMERICS.md#calibration), from tests/entropy_ref.py.

How to rerun (Debian 12: apt-get install python3-numpy):
    /usr/bin/python3 tests/gen_entropy.py
Deterministic (fixed seeds): it rewrites the same bytes of
    tests/data/ref_entropy.tcl
plain Tcl source read by tests/entropy.test, so the suite needs no numpy.

ref_entropy_rows: data {hex ...}: float32 little-endian hex rows, one per
  collect() batch, in order
ref_entropy_cases: name {data D bins B qb Q lo L hi H params {...}}
  lo, hi    float32 bits of entropy_range(rows, B, Q), the range ORT reports
  params    what docs/NUMERICS.md#choosing-parameters gives for [lo, hi]:
            w256  float32 bits of scale for uint16 quant_min=0 quant_max=256
                  affine: (max(hi,0) - min(lo,0)) / 256, exact (the width)
            a128  float32 bits of scale for int16 quant_min=-128
                  quant_max=128 symmetric: max(|lo|, |hi|) / 128 (the amax)
            u8a   uint8 affine scale bits and zero point
            i8s   int8 symmetric scale bits (zero point 0)
Before writing, the binning this generator's cases exercise is checked
against np.histogram edge for edge (values on and next to every edge), and
the vectorized q of entropy_ref against ORT's literal loops.
"""
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from entropy_ref import EntropyCollector, entropy_range  # noqa: E402

OUT = os.path.join(HERE, "data", "ref_entropy.tcl")
f32 = np.float32
EPS = f32(2.0 ** -23)


def bits(v):
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", float(v)))[0]


def hexs(a):
    return np.asarray(a, dtype="<f4").tobytes().hex().upper()


def params(lo, hi):
    lo, hi = f32(lo), f32(hi)
    mn, mx = min(lo, f32(0)), max(hi, f32(0))
    w = f32(mx - mn)
    out = {"w256": bits(max(f32(w / f32(256)), EPS)),
           "a128": bits(max(f32(max(-mn, mx) / f32(128)), EPS))}
    s = max(f32(w / f32(255)), EPS)
    z = int(np.clip(0 - np.rint(f32(mn / s)), 0, 255))
    out["u8a"] = "%s %d" % (bits(s), z)
    out["i8s"] = bits(max(f32(max(-mn, mx) / f32(127.5)), EPS))
    return out


def edge_values(thr, nb):
    """Every edge of np.histogram(range=(-thr, thr), nb) and its float32
    neighbours, inside the range."""
    _, e = np.histogram(np.zeros(1, f32), nb, range=(-thr, thr))
    e = e.astype(f32)
    v = np.concatenate([e, np.nextafter(e, f32(np.inf)), np.nextafter(e, f32(-np.inf))])
    return v[(v >= e[0]) & (v <= e[-1])].astype(f32)


def model_hist(x, thr, thr64, nb):
    """The C binning rule (entropy_calibrator.c rule 3) in numpy float32."""
    first, last = -float(thr), float(thr)
    if first == last:
        first, last = first - 0.5, last + 0.5
    ff, fl = f32(first), f32(last)
    width = f32(fl - ff)
    norm = nb / ((last - first) if thr64 else float(width))
    wide = norm > float(np.finfo(f32).max)   # numpy then multiplies in double
    if not wide:
        norm = f32(norm)
    step = (last - first) / nb
    edges = ((np.arange(nb + 1, dtype=np.float64) * step) + first).astype(f32)
    edges[nb] = fl
    out = np.zeros(nb, np.int64)
    for v in x[(x >= ff) & (x <= fl)]:
        d = f32(v - ff)
        b = min(int(float(d) * norm if wide else f32(d * norm)), nb - 1)
        if v < edges[b]:
            b -= 1
        elif b != nb - 1 and v >= edges[b + 1]:
            b += 1
        out[b] += 1
    return out


def check_binning():
    for thr, nb in [(f32(1), 128), (f32(0.3), 128), (f32(3.7), 2048),
                    (f32(1e-3), 255), (f32(0), 128), (f32(7.1), 1000),
                    (f32(1e-45), 128), (f32(3e-42), 2048), (f32(2e-39), 255)]:
        x = edge_values(thr, nb)
        h, _ = np.histogram(x, nb, range=(-thr, thr))
        if not np.array_equal(h, model_hist(x, thr, False, nb)):
            sys.exit("binning model differs from np.histogram: %r %d" % (thr, nb))
    for thr, nb in [(1.3671875, 200), (0.30000001192092896 * 3, 384)]:
        x = edge_values(thr, nb)
        h, _ = np.histogram(x, nb, range=(-thr, thr))
        if not np.array_equal(h, model_hist(x, thr, True, nb)):
            sys.exit("float64 binning model differs: %r %d" % (thr, nb))


def gen(rng, kind, n, scale):
    if kind == "normal":
        x = rng.standard_normal(n)
    elif kind == "t2":
        x = rng.standard_t(2, n)
    elif kind == "relu":
        x = np.maximum(rng.standard_normal(n), 0)
    elif kind == "neg":
        x = -np.abs(rng.laplace(size=n)) - 0.25
    elif kind == "ints":
        x = rng.integers(-3, 4, n).astype(np.float64)
    elif kind == "zeros":
        x = np.zeros(n)
    else:
        raise ValueError(kind)
    return (x * scale).astype(f32)


CONFIGS = [(128, 128), (2048, 128), (512, 64), (255, 32), (129, 128),
           (128, 127), (1000, 7), (64, 1)]


def cases():
    rng = np.random.default_rng(13)
    out = []
    # one row each: every distribution under every bins/quantized_bins
    for kind, n, sc in [("normal", 1500, 1.0), ("t2", 1500, 0.5),
                        ("relu", 1000, 2.0), ("neg", 800, 3.0),
                        ("ints", 300, 0.25)]:
        x = gen(rng, kind, n, sc)
        for b, q in CONFIGS:
            out.append((kind, b, q, [x]))
    # rows whose range grows, shrinks, starts at zero, grows twice
    base = gen(rng, "normal", 800, 1.0)
    seqs = {
        "grow": [base, gen(rng, "normal", 600, 1.5), gen(rng, "t2", 500, 1.0)],
        "shrink": [gen(rng, "t2", 600, 2.0), gen(rng, "normal", 600, 0.5),
                   gen(rng, "relu", 400, 1.0)],
        "zerofirst": [np.zeros(50, f32), gen(rng, "normal", 600, 1.0),
                      gen(rng, "normal", 500, 1.7)],
        "zeros": [np.zeros(10, f32), np.zeros(5, f32)],
        "grow64": [gen(rng, "normal", 600, 0.3), gen(rng, "normal", 600, 0.7),
                   gen(rng, "normal", 600, 0.5), gen(rng, "t2", 600, 0.4)],
        "edges": [edge_values(f32(1), 128), edge_values(f32(1.5), 128)],
        "edges2k": [edge_values(f32(0.3), 2048)],
    }
    for name, rows in seqs.items():
        for b, q in [(128, 128), (2048, 128), (256, 64), (255, 32)]:
            out.append((name, b, q, rows))
    return out


def main():
    check_binning()
    lines = ["# Generated by tests/gen_entropy.py -- do not edit by hand.",
             "# See the generator's header for what each field holds.",
             "set ref_entropy_rows {"]
    all_cases = cases()
    seen = set()
    for data, _, _, rows in all_cases:
        if data in seen:
            continue
        seen.add(data)
        lines.append("  %s {" % data)
        for r in rows:
            lines.append("    " + hexs(r))
        lines.append("  }")
    lines.append("}")
    lines.append("set ref_entropy_cases {")
    for data, b, q, rows in all_cases:
        name = "%s-%d-%d" % (data, b, q)
        c = EntropyCollector(b, q)
        c.check_loops = True
        for r in rows:
            c.collect(r)
        if c.state[0].size > 16384:   # past sqlite-quant's limit: refused
            continue
        lo, hi = c.threshold()
        if (lo, hi) != entropy_range(rows, b, q):
            sys.exit("entropy_range differs from the collector")
        p = params(lo, hi)
        lines.append("  %s {data %s bins %d qb %d lo %s hi %s" % (name, data, b, q, bits(lo), bits(hi)))
        lines.append("    params {w256 %s a128 %s u8a {%s} i8s %s}}" %
                     (p["w256"], p["a128"], p["u8a"], p["i8s"]))
    lines.append("}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
