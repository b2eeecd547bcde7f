#!/usr/bin/python3
"""Reference vectors for method=histogram (PyTorch 1.13's HistogramObserver).

How to rerun (Debian 12):
    apt-get install python3-torch python3-numpy
    /usr/bin/python3 tests/gen_histogram.py
Deterministic (fixed seeds, single-threaded torch): rerunning it on the same
packages rewrites the same bytes of tests/data/ref_histogram.tcl, plain Tcl
source read by tests/histogram.test, so `make test` needs no torch.

Every expected value is what torch.ao.quantization.HistogramObserver gives:
forward() on each row in order, then calculate_qparams(); scales are float32
bit patterns, so each check is exact.

  hist_tensors   name -> float32 LE hex of one tensor: normal, uniform,
                 ranges inside (-1, 1) (histc's trunc() bounds collapse to
                 0..0 and torch uses the data's own range), ranges like
                 0.5..1.5 (trunc() gives 0..1: values above 1 are not
                 counted), wide ranges, heavy tails (Laplace cubed), constants
                 (0, 0.3, -2, 3e7), all-positive and all-negative data, 1, 2,
                 3 and 7 elements, up to 20000 elements.
  hist_cases     {tensor dtype scheme options scale_bits zp}: per tensor,
                 for dtypes uint8/int8 (torch quint8/qint8), affine and
                 symmetric, with reduce_range=1 (not for quint8 symmetric:
                 see case_options), quant_min/quant_max (-127..127, 0..15:
                 dst_nbins stays 2^8) and bins=N on some tensors.
  hist_seqs      name -> {shape rows}: rows fed in order (ranges that grow:
                 torch's upsampling combine; that shrink: the plain add;
                 constant rows first: the re-initialisation).
  hist_seq_cases {seq dtype scheme options prefix}: prefix is, after each
                 row k, {scale_bits zp} of an observer fed rows 1..k (the last
                 is the aggregate over all rows).
  hist_channel_cases {tensor shape axis dtype scheme options scales zps}:
                 torch has no per-channel HistogramObserver; each channel's
                 values (the tensor's slice along axis) go to their own
                 observer, as the extension's groups do.  scales/zps are
                 float32 / int32 LE hex.
"""
import os
import struct

import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "ref_histogram.tcl")

DTYPES = {"uint8": torch.quint8, "int8": torch.qint8}
SCHEMES = {"affine": torch.per_tensor_affine,
           "symmetric": torch.per_tensor_symmetric}


def hexf(a):
    return np.asarray(a, dtype="<f4").tobytes().hex().upper()


def bits(s):
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", s))[0]


def observer(dtype, scheme, options):
    kw = {}
    for item in options.split(","):
        if not item:
            continue
        k, v = item.split("=")
        if k == "bins":
            kw["bins"] = int(v)
        elif k == "reduce_range":
            kw["reduce_range"] = v == "1"
        elif k in ("quant_min", "quant_max"):
            kw[k] = int(v)
    return torch.ao.quantization.HistogramObserver(
        dtype=DTYPES[dtype], qscheme=SCHEMES[scheme], **kw)


def qparams(ob):
    s, z = ob.calculate_qparams()
    return bits(float(s)), int(z)


def run(rows, dtype, scheme, options):
    ob = observer(dtype, scheme, options)
    out = []
    for r in rows:
        ob(torch.from_numpy(np.ascontiguousarray(r, dtype=np.float32)))
        out.append(qparams(ob))
    return out


def near_tie():
    """Tensor 137 of a search over 150 random tensors (seed 77) for the
    closest decision of _non_linear_param_search: two successive candidate
    errors 10 float32 ulp apart, while torch's float32 sum of the 2048 terms
    and the correctly rounded sum differ by at most 3 ulp on all 150."""
    rng = np.random.default_rng(77)
    for i in range(138):
        size = int(rng.integers(50, 50000))
        kind = i % 5
        x = [rng.standard_normal(size), rng.laplace(0, 1, size) ** 3,
             rng.uniform(-1, 3, size), rng.standard_t(3, size) * 10,
             rng.exponential(1, size)][kind]
    return x


def tie_report(x):
    """The candidate errors torch compares for x (int8 symmetric), as torch
    sums them and correctly rounded from the same float32 terms."""
    HO = torch.ao.quantization.HistogramObserver
    orig_sum = torch.Tensor.sum
    pairs = []

    def spy(t, *a, **k):
        r = orig_sum(t, *a, **k)
        if t.dtype == torch.float32 and t.dim() == 1 and not a and not k \
                and t.numel() == 2048 and spy.active:
            pairs.append((r.item(), float(np.float32(t.double().sum().item()))))
        return r
    spy.active = False
    orig_err = HO._compute_quantization_error

    def err(self, s, e):
        spy.active = True
        try:
            return orig_err(self, s, e)
        finally:
            spy.active = False
    torch.Tensor.sum = spy
    HO._compute_quantization_error = err
    try:
        run([x], "int8", "symmetric", "")
    finally:
        torch.Tensor.sum = orig_sum
        HO._compute_quantization_error = orig_err
    return pairs


def tensors():
    rng = np.random.default_rng(13)
    t = {}
    for n in (1, 2, 3, 7, 100, 1000, 20000):
        t["normal%d" % n] = rng.standard_normal(n)
    t["uniform5000"] = rng.uniform(-3.0, 5.0, 5000)
    t["inside1"] = rng.uniform(-0.7, 0.9, 3000)
    t["positive_inside1"] = rng.uniform(0.05, 0.95, 3000)
    t["half_to_1p5"] = rng.uniform(0.5, 1.5, 3000)
    t["neg_1p5_to_half"] = rng.uniform(-1.5, -0.5, 3000)
    t["wide"] = rng.standard_normal(4000) * 300.0 + 20.0
    t["laplace_cubed"] = rng.laplace(0.0, 1.0, 6000) ** 3
    t["student_t"] = rng.standard_t(2.0, 5000)
    t["positive"] = rng.exponential(2.0, 4000) + 0.25
    t["negative"] = -rng.gamma(2.0, 3.0, 4000)
    t["huge"] = rng.standard_normal(2000) * 1e6
    t["tiny"] = rng.standard_normal(2000) * 1e-4
    t["const0"] = np.zeros(50)
    t["const0p3"] = np.full(50, 0.3)
    t["const_neg2"] = np.full(9, -2.0)
    t["const3e7"] = np.full(9, 3e7)
    t["two_values"] = np.array([-0.5, 2.5] * 20)   # nothing inside histc 0..2
    t["outlier"] = np.concatenate([rng.standard_normal(3000), [40.0, -25.0]])
    t["grid"] = np.linspace(-4.0, 4.0, 2049)
    t["near_tie"] = near_tie()
    return {k: np.asarray(v, dtype=np.float32) for k, v in t.items()}


def case_options(name, dtype, scheme):
    # reduce_range with quint8 symmetric is left out: torch keeps zero point
    # 128 there (outside 0..127), which the extension refuses to copy.
    opts = [""]
    if dtype == "int8" or scheme == "affine":
        opts.append("reduce_range=1")
    if name in ("normal1000", "uniform5000", "wide", "inside1", "laplace_cubed"):
        opts += ["bins=256", "bins=100", "bins=3000"]
        opts.append("quant_min=-127,quant_max=127" if dtype == "int8"
                    else "quant_min=0,quant_max=15")
    return opts


def sequences():
    rng = np.random.default_rng(1313)
    s = {}
    s["grow"] = [rng.standard_normal(500) * (1.0 + k) for k in range(6)]
    s["shrink"] = [rng.standard_normal(500) / (1.0 + k) for k in range(6)]
    s["mixed"] = [rng.uniform(-a, b, 400) for a, b in
                  ((0.5, 0.7), (2.0, 0.3), (0.2, 5.0), (1.0, 1.0), (9.0, 12.0))]
    s["const_first"] = [np.full(10, 1.5), np.full(10, 1.5),
                        rng.standard_normal(300), rng.standard_normal(300) * 3]
    s["shift"] = [rng.standard_normal(300) + 10.0 * k for k in range(5)]
    s["positive_grow"] = [rng.exponential(1.0 + k, 300) for k in range(5)]
    s["single"] = [np.array([v]) for v in (0.25, -1.0, 3.5, 2.0, -7.25)]
    s["jump"] = [rng.standard_normal(200) * 0.1, rng.standard_normal(200) * 5.0,
                 rng.standard_normal(200)]
    return {k: [np.asarray(r, dtype=np.float32) for r in v] for k, v in s.items()}


def tcl_list(items):
    return "{" + " ".join(str(i) for i in items) + "}"


def main():
    lines = ["# Generated by tests/gen_histogram.py -- do not edit by hand.",
             "# Expected values: PyTorch %s HistogramObserver (see the generator)."
             % torch.__version__, ""]
    T = tensors()
    lines.append("set hist_tensors {")
    for k, v in T.items():
        lines.append("  %s %s" % (k, hexf(v)))
    lines.append("}")
    lines.append("set hist_cases {")
    count = 0
    for k, v in T.items():
        for dt in DTYPES:
            for sc in SCHEMES:
                for op in case_options(k, dt, sc):
                    (b, z), = run([v], dt, sc, op)
                    lines.append("  {%s %s %s {%s} %s %d}" % (k, dt, sc, op, b, z))
                    count += 1
    lines.append("}")
    S = sequences()
    lines.append("set hist_seqs {")
    for k, rows in S.items():
        lines.append("  %s {shape {%d} rows {" % (k, rows[0].size))
        for r in rows:
            lines.append("    " + hexf(r))
        lines.append("  }}")
    lines.append("}")
    lines.append("set hist_seq_cases {")
    for k, rows in S.items():
        for dt in DTYPES:
            for sc in SCHEMES:
                for op in ("", "bins=300"):
                    if op and k not in ("grow", "mixed"):
                        continue
                    pre = run(rows, dt, sc, op)
                    lines.append("  {%s %s %s {%s} {%s}}" % (
                        k, dt, sc, op, " ".join("{%s %d}" % p for p in pre)))
                    count += 1
    lines.append("}")
    lines.append("set hist_channel_cases {")
    for k, shape, axis in (("normal1000", (10, 100), 0), ("normal1000", (10, 100), 1),
                           ("wide", (4, 10, 100), 1), ("laplace_cubed", (1000, 6), -1)):
        x = T[k].reshape(shape)
        ax = axis % len(shape)
        for dt in DTYPES:
            for sc in SCHEMES:
                scales, zps = [], []
                for c in range(shape[ax]):
                    (b, z), = run([np.take(x, c, axis=ax).ravel()], dt, sc, "")
                    scales.append(struct.unpack("<f", struct.pack("<I", int(b, 16)))[0])
                    zps.append(z)
                lines.append("  {%s %s %d %s %s {} %s %s}" % (
                    k, tcl_list(shape), axis, dt, sc, hexf(scales),
                    np.asarray(zps, dtype="<i4").tobytes().hex().upper()))
                count += 1
    lines.append("}")
    lines.append("# near_tie, int8 symmetric: the candidate errors torch compared,")
    lines.append("# {torch's float32 sum, the correctly rounded sum} (the extension's)")
    lines.append("set hist_near_tie_norms {")
    for a, b in tie_report(T["near_tie"]):
        lines.append("  {%r %r}" % (a, b))
    lines.append("}")
    lines.append("set hist_case_count %d" % count)
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d cases" % (OUT, count))


if __name__ == "__main__":
    main()
