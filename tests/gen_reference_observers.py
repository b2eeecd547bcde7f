#!/usr/bin/python3
"""Reference vectors for the calibration aggregates, the error metrics and
method=percentile of sqlite-quant, from PyTorch 1.13 and numpy.

How to rerun (Debian 12):
    apt-get install python3-torch python3-numpy
    /usr/bin/python3 tests/gen_reference_observers.py
It is deterministic (fixed seeds, single-threaded torch, no time or hash
dependence): rerunning it on the same packages rewrites the same bytes of
    tests/data/ref_observers.tcl
which is plain Tcl source, committed, so `make test` needs neither torch nor
numpy.  It is read by reference_observers.test (observers), metrics.test
(ref_metric_*) and calibrate.test (ref_percentile_*).

What is generated, and where each expected value comes from:

  ref_obs_seqs      sequences of rows, each row a small random float32 tensor
                    of the sequence's shape (3 to 12 rows; normal, skewed
                    uniform, all-positive, heavy-tailed Student t, all-negative,
                    mixed magnitudes, a constant channel).  Stored as float32
                    little-endian hex, one entry per row, in row order.
  ref_obs_numbers   sequences of plain numbers (rows that are single numbers),
                    stored as Python repr of the double (some, like 0.1, are not
                    float32 values: both torch.tensor([v]) and the extension
                    round the double to float32, to nearest).
  ref_obs_tensor_cases
                    per-tensor observers: torch.ao.quantization.MinMaxObserver
                    and MovingAverageMinMaxObserver(averaging_constant=0.01 and
                    0.3), dtype quint8/qint8, qscheme per_tensor_affine /
                    per_tensor_symmetric (plus a restricted -127..127 symmetric
                    qint8 range and quint8 reduce_range), fed the rows in order.
                    After all rows: scale (float32 bits) and zero point of
                    calculate_qparams().  `prefix`: the same after each of the
                    first k rows (k = 1..n), for the window form
                    OVER (ORDER BY step ROWS UNBOUNDED PRECEDING).  For MinMax
                    only, `w3`: a fresh observer over exactly the rows of the
                    frame ROWS BETWEEN 2 PRECEDING AND CURRENT ROW at each row,
                    and `f12`: over the frame ROWS BETWEEN 1 FOLLOWING AND 2
                    FOLLOWING ({} where that frame is empty: SQL NULL).
  ref_obs_channel_cases
                    the same for PerChannelMinMaxObserver and
                    MovingAveragePerChannelMinMaxObserver (ch_axis 0, 1 and -1;
                    per_channel_affine / per_channel_symmetric): scales as the
                    float32 LE hex blob, zero points as the int32 LE hex blob.
  ref_obs_long      a one-number-per-row table (layer, step, value): per layer,
                    MinMaxObserver over that layer's numbers (quint8 affine and
                    qint8 symmetric), for GROUP BY layer.

  ref_metric_cases  pairs (a, b) of float32 tensors (b = a plus noise, a
                    round trip, or unrelated), with, computed by torch in
                    float64 on the float32 values: mse = ((a-b)**2).mean(),
                    max_error = (a-b).abs().max(), sqnr = the undecorated body
                    of torch.ao.ns.fx.utils.compute_sqnr (the decorated one
                    returns None for float64 input), cosine = the undecorated
                    compute_cosine_similarity (F.cosine_similarity, eps 1e-8).
                    Printed with %.17g.  The extension sums in 16 fixed lanes,
                    torch in its own order: equal to ~1e-15 relative, not bit
                    for bit (max_error is exact: a-b of two float32 is exact in
                    double here).
  ref_metric_rows   several (a, b) rows; expected q_mse_agg / q_sqnr_agg are
                    the torch float64 metrics of the concatenation.

  ref_percentile_cases
                    inputs x (float32 hex) and P; lo = float32(numpy.percentile(
                    x, 100 - P)), hi = float32(numpy.percentile(x, P)),
                    amax = float32(numpy.percentile(|x|, P)) (numpy 1.24,
                    method='linear', on the float64 values of x).  The documented
                    definition (pos = P/100*(n-1), x[i] + frac*(x[i+1]-x[i]) in
                    double, rounded once to float32) is recomputed here too and
                    the generator aborts if it differs from numpy.  Expected
                    parameters follow from docs/NUMERICS.md#choosing-parameters in numpy float32.

Every torch-derived observer value is ALSO recomputed with an independent
numpy float32 implementation (docs/NUMERICS.md#choosing-parameters plus docs/reference/calibration.md's moving-average rule
m = m + c * (row_m - m) in float32, c = float32(averaging_constant)) and the
generator aborts on any difference.
"""

import os
import struct
import sys
import warnings

import numpy as np
import torch
from torch.ao.ns.fx import utils as ns_utils
from torch.ao.quantization import (MinMaxObserver, MovingAverageMinMaxObserver,
                                   MovingAveragePerChannelMinMaxObserver,
                                   PerChannelMinMaxObserver)

warnings.filterwarnings("ignore")
torch.manual_seed(0)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "ref_observers.tcl")
f32 = np.float32
EPS = f32(2.0 ** -23)


def f32bits(v):
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", float(v)))[0]


def hexs(arr, fmt="<f4"):
    return np.asarray(arr).astype(fmt).tobytes().hex().upper()


def undecorated(fn):
    """The function that torch.ao.ns's decorator wraps (it returns None for
    anything but float32 tensors)."""
    for cell in fn.__closure__:
        inner = cell.cell_contents
        if callable(inner) and inner is not fn and inner.__name__ in (
                "compute_sqnr", "compute_cosine_similarity"):
            return inner
    raise RuntimeError("cannot unwrap " + fn.__name__)


compute_sqnr = undecorated(ns_utils.compute_sqnr)
compute_cosine = undecorated(ns_utils.compute_cosine_similarity)

# --------------------------------------------------------------------------
# Configurations: (label, torch dtype, qmin, qmax, scheme, reduce_range,
#                  custom range given to torch, extension options)

CONFIGS = [
    ("u8a", torch.quint8, 0, 255, "affine", False, None, ""),
    ("u8s", torch.quint8, 0, 255, "symmetric", False, None, ""),
    ("i8a", torch.qint8, -128, 127, "affine", False, None, ""),
    ("i8s", torch.qint8, -128, 127, "symmetric", False, None, ""),
    ("i8r", torch.qint8, -127, 127, "symmetric", False, (-127, 127),
     "quant_min=-127 quant_max=127"),
    ("u8rr", torch.quint8, 0, 127, "affine", True, None, "reduce_range=1"),
]


def sql_dtype(tdt):
    return "uint8" if tdt == torch.quint8 else "int8"


# --------------------------------------------------------------------------
# docs/NUMERICS.md#choosing-parameters and the observers in numpy float32 (independent of torch)

def spec_qparams(mn, mx, qmin, qmax, scheme, unsigned, custom):
    """mn, mx: float32 arrays (one per channel)."""
    mn = np.asarray(mn, dtype=f32)
    mx = np.asarray(mx, dtype=f32)
    min_neg = np.minimum(mn, f32(0))
    max_pos = np.maximum(mx, f32(0))
    if scheme == "affine":
        scale = ((max_pos - min_neg) / f32(qmax - qmin)).astype(f32)
        scale = np.maximum(scale, EPS)
        zp = qmin - np.rint((min_neg / scale).astype(f32)).astype(np.int64)
        zp = np.clip(zp, qmin, qmax)
    else:
        amax = np.maximum(-min_neg, max_pos)
        scale = np.maximum((amax / f32((qmax - qmin) / 2)).astype(f32), EPS)
        if not unsigned:
            z = 0
        elif not custom:
            z = 128
        else:
            z = (qmin + qmax) // 2
        zp = np.full(scale.shape, z, dtype=np.int64)
    return scale.astype(f32), zp.astype(np.int64)


def spec_observe(rows, channel_fn, moving, c):
    """rows: list of float32 arrays; channel_fn(row) -> (mins, maxs)."""
    c = f32(c)
    mn = mx = None
    for r in rows:
        rmn, rmx = channel_fn(r)
        if mn is None:
            mn, mx = rmn.astype(f32), rmx.astype(f32)
        elif moving:
            mn = (mn + (c * (rmn - mn).astype(f32)).astype(f32)).astype(f32)
            mx = (mx + (c * (rmx - mx).astype(f32)).astype(f32)).astype(f32)
        else:
            mn, mx = np.minimum(mn, rmn), np.maximum(mx, rmx)
    return mn, mx


def tensor_minmax(r):
    return np.array([r.min()], dtype=f32), np.array([r.max()], dtype=f32)


def channel_minmax_fn(axis):
    def fn(r):
        y = np.moveaxis(r, axis, 0).reshape(r.shape[axis], -1)
        return y.min(axis=1).astype(f32), y.max(axis=1).astype(f32)
    return fn


# --------------------------------------------------------------------------
# torch side

def torch_observer(cfg, moving, c, per_channel, axis):
    _, tdt, qmin, qmax, scheme, rr, custom, _ = cfg
    kw = dict(dtype=tdt, reduce_range=rr)
    if custom is not None:
        kw["quant_min"], kw["quant_max"] = custom
    if per_channel:
        kw["qscheme"] = {"affine": torch.per_channel_affine,
                         "symmetric": torch.per_channel_symmetric}[scheme]
        if moving:
            obs = MovingAveragePerChannelMinMaxObserver(
                ch_axis=axis, averaging_constant=c, **kw)
        else:
            obs = PerChannelMinMaxObserver(ch_axis=axis, **kw)
    else:
        kw["qscheme"] = {"affine": torch.per_tensor_affine,
                         "symmetric": torch.per_tensor_symmetric}[scheme]
        if moving:
            obs = MovingAverageMinMaxObserver(averaging_constant=c, **kw)
        else:
            obs = MinMaxObserver(**kw)
    assert (obs.quant_min, obs.quant_max) == (qmin, qmax), cfg
    return obs


def torch_qparams(obs):
    scale, zp = obs.calculate_qparams()
    assert scale.dtype == torch.float32
    return (scale.numpy().astype(f32).reshape(-1),
            zp.numpy().astype(np.int64).reshape(-1))


def observe(cfg, rows, moving, c, per_channel, axis, check_fn):
    """(scales, zps) of a fresh torch observer over rows, checked against
    the numpy version."""
    obs = torch_observer(cfg, moving, c, per_channel, axis)
    for r in rows:
        obs(torch.from_numpy(r.copy()))
    s, z = torch_qparams(obs)
    mn, mx = spec_observe(rows, check_fn, moving, c)
    _, _, qmin, qmax, scheme, _, custom, _ = cfg
    unsigned = qmin >= 0
    es, ez = spec_qparams(mn, mx, qmin, qmax, scheme, unsigned,
                          custom is not None or cfg[5])
    if not (np.array_equal(s.view(np.uint32), es.view(np.uint32))
            and np.array_equal(z, ez)):
        sys.exit("torch and numpy disagree: %r %r %r %r %r" % (cfg, s, es, z, ez))
    return s, z


def fmt_tensor(s, z):
    return "{%s %d}" % (f32bits(s[0]), int(z[0]))


def fmt_channel(s, z):
    return "{%s %s}" % (hexs(s, "<f4"), hexs(z, "<i4"))


# --------------------------------------------------------------------------
# The row sequences

rng = np.random.default_rng(20240605)


def seq(shape, n, kind):
    rows = []
    for _ in range(n):
        if kind == "normal":
            r = rng.normal(0.0, 1.0, size=shape)
        elif kind == "skewed":
            r = rng.uniform(-2.0, 5.0, size=shape)
        elif kind == "positive":
            r = rng.exponential(0.5, size=shape) + 0.25
        elif kind == "heavy":
            r = rng.standard_t(2.0, size=shape) * 0.3
        elif kind == "negative":
            r = -rng.exponential(2.0, size=shape) - 0.5
        elif kind == "magnitudes":
            r = rng.normal(0.0, 1.0, size=shape) * \
                np.where(rng.uniform(size=shape) < 0.3, 1000.0, 1e-3)
        elif kind == "constant_channel":
            r = rng.normal(0.0, 3.0, size=shape)
            r[1] = 0.75          # channel 1 along axis 0 never changes
        rows.append(np.asarray(r, dtype=f32))
    return rows


SEQS = [
    ("s1", (2, 3), 5, "normal"),
    ("s2", (3, 4), 8, "skewed"),
    ("s3", (4,), 3, "positive"),
    ("s4", (2, 2, 3), 12, "heavy"),
    ("s5", (3, 5), 6, "negative"),
    ("s6", (5, 2), 4, "magnitudes"),
    ("s7", (3, 2, 2), 7, "constant_channel"),
]
seq_rows = {name: seq(shape, n, kind) for name, shape, n, kind in SEQS}
seq_shape = {name: shape for name, shape, _, _ in SEQS}

NUMBERS = [
    ("n1", [0.5, -1.25, 3.0, 2.0, -0.375, 1.0]),
    ("n2", [0.1, 0.7, -0.3, 2.2, 1e-05, -1.9, 0.45, 3.3, -2.05]),
    ("n3", [4, 2, 7]),                 # integers (SQL INTEGER rows)
    ("n4", [-3.5, -0.25, -7.0, -1.0]),
    ("n5", [123.456, -0.001, 98.7, 5e-07, -45.6, 0.0, 77.0, 1.5, 33.3, -12.0,
            64.0, 0.333]),
]
number_rows = {name: [np.array([v], dtype=f32) for v in vals]
               for name, vals in NUMBERS}

OBSERVERS = [("mm", False, 0.01, ""),
             ("ma01", True, 0.01, "observer=moving_average"),
             ("ma3", True, 0.3, "observer=moving_average averaging_constant=0.3")]


def join_opts(*parts):
    return " ".join(p for p in parts if p)


def frame_rows(rows, k, lo, hi):
    """Rows of the frame ROWS BETWEEN lo .. hi (relative offsets) at row k."""
    a, b = max(0, k + lo), min(len(rows) - 1, k + hi)
    return rows[a:b + 1] if a <= b else []


lines = []
emit = lines.append
emit("# Generated by tests/gen_reference_observers.py -- do not edit by hand.")
emit("# See the generator's header for what each variable holds and where every")
emit("# expected value comes from (PyTorch 1.13 observers, torch.ao.ns metrics in")
emit("# float64, numpy 1.24 percentiles).")
emit("")
emit("# name {shape {..} rows {hex hex ..}}: float32 LE rows, in step order")
emit("set ref_obs_seqs {")
for name, shape, _, _ in SEQS:
    emit("  %s {shape {%s} rows {" % (name, " ".join(map(str, shape))))
    for r in seq_rows[name]:
        emit("    %s" % hexs(r))
    emit("  }}")
emit("}")
emit("")
emit("# name {v v ..}: one number per row, in step order (Python repr of the")
emit("# double; integers are SQL INTEGER rows)")
emit("set ref_obs_numbers {")
for name, vals in NUMBERS:
    emit("  %s {%s}" % (name, " ".join(repr(v) for v in vals)))
emit("}")
emit("")

# Per-tensor cases over tensor rows and number rows.
emit("# Per-tensor: name {src seq|numbers seq NAME dtype D scheme S opts O")
emit("#   final {scale_bits zp} prefix {{bits zp} ..} [w3 {..} f12 {..}]}")
emit("set ref_obs_tensor_cases {")
for src, names, rowsets in (("seq", [s[0] for s in SEQS], seq_rows),
                            ("numbers", [n[0] for n in NUMBERS], number_rows)):
    for sname in names:
        rows = rowsets[sname]
        for cfg in CONFIGS:
            for oname, moving, c, oopts in OBSERVERS:
                if cfg[0] in ("i8r", "u8rr") and oname == "ma01":
                    continue
                flat = [r.reshape(-1) for r in rows]
                final = observe(cfg, flat, moving, c, False, 0, tensor_minmax)
                prefix = [fmt_tensor(*observe(cfg, flat[:k + 1], moving, c,
                                              False, 0, tensor_minmax))
                          for k in range(len(flat))]
                case = "%s-%s-%s" % (sname, cfg[0], oname)
                emit("  %s {src %s seq %s dtype %s scheme %s opts {%s}" %
                     (case, src, sname, sql_dtype(cfg[1]), cfg[4],
                      join_opts(oopts, cfg[7])))
                emit("    final %s" % fmt_tensor(*final))
                emit("    prefix {%s}" % " ".join(prefix))
                if not moving:
                    for fname, lo, hi in (("w3", -2, 0), ("f12", 1, 2)):
                        vals = []
                        for k in range(len(flat)):
                            fr = frame_rows(flat, k, lo, hi)
                            vals.append(fmt_tensor(*observe(
                                cfg, fr, False, c, False, 0, tensor_minmax))
                                if fr else "{}")
                        emit("    %s {%s}" % (fname, " ".join(vals)))
                emit("  }")
emit("}")
emit("")

# Per-channel cases.
emit("# Per-channel: name {seq NAME axis A dtype D scheme S opts O")
emit("#   final {scales_hex zps_hex} prefix {..} [w3 {..} f12 {..}]}")
emit("set ref_obs_channel_cases {")
for sname, shape, _, _ in SEQS:
    rows = seq_rows[sname]
    if len(shape) == 1:
        continue  # torch 1.13's per-channel observers need 2+ dimensions
    axes = [0, 1, -1]
    for axis in axes:
        fn = channel_minmax_fn(axis)
        for cfg in CONFIGS:
            for oname, moving, c, oopts in OBSERVERS:
                if cfg[0] in ("i8r", "u8rr") and (oname == "ma01" or axis == 1):
                    continue
                if oname == "ma01" and axis == 1:
                    continue
                final = observe(cfg, rows, moving, c, True, axis, fn)
                prefix = [fmt_channel(*observe(cfg, rows[:k + 1], moving, c,
                                               True, axis, fn))
                          for k in range(len(rows))]
                case = "%s-ax%s-%s-%s" % (sname, str(axis).replace("-", "m"),
                                          cfg[0], oname)
                emit("  %s {seq %s axis %d dtype %s scheme %s opts {%s}" %
                     (case, sname, axis, sql_dtype(cfg[1]), cfg[4],
                      join_opts(oopts, cfg[7])))
                emit("    final %s" % fmt_channel(*final))
                emit("    prefix {%s}" % " ".join(prefix))
                if not moving:
                    for fname, lo, hi in (("w3", -2, 0), ("f12", 1, 2)):
                        vals = []
                        for k in range(len(rows)):
                            fr = frame_rows(rows, k, lo, hi)
                            vals.append(fmt_channel(*observe(
                                cfg, fr, False, c, True, axis, fn))
                                if fr else "{}")
                        emit("    %s {%s}" % (fname, " ".join(vals)))
                emit("  }")
emit("}")
emit("")

# One number per row, GROUP BY layer.
LONG = {
    "conv1": [0.25, -0.5, 1.75, 0.1, -0.05, 2.5],
    "conv2": [-3.0, -1.5, -0.2],
    "fc": [10.0, 0.001, 7.25, 3.3, 9.9, 0.5, 1.0, 4.0],
    "head": [0.0, 0.0],
}
emit("# Long table: layer {values {v ..} u8a {bits zp} i8s {bits zp}}")
emit("set ref_obs_long {")
for layer, vals in LONG.items():
    rows = [np.array([v], dtype=f32) for v in vals]
    out = []
    for cfg in CONFIGS:
        if cfg[0] in ("u8a", "i8s"):
            out.append("%s %s" % (cfg[0], fmt_tensor(*observe(
                cfg, rows, False, 0.01, False, 0, tensor_minmax))))
    emit("  %s {values {%s} %s}" % (layer, " ".join(repr(v) for v in vals),
                                    " ".join(out)))
emit("}")
emit("")

# --------------------------------------------------------------------------
# Metrics


def torch_metrics(a, b):
    ta = torch.from_numpy(a.astype(np.float64))
    tb = torch.from_numpy(b.astype(np.float64))
    mse = float(((ta - tb) ** 2).mean())
    maxe = float((ta - tb).abs().max())
    sqnr = float(compute_sqnr(ta, tb))
    cos = float(compute_cosine(ta, tb).reshape(-1)[0])
    # cross-check the definitions in plain float64 numpy
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    d = a64 - b64
    assert maxe == float(np.max(np.abs(d)))
    assert abs(mse - float(np.mean(d * d))) <= 1e-13 * mse
    if mse > 0:
        ref = 10 * np.log10(np.sum(a64 * a64) / np.sum(d * d))
        assert abs(sqnr - ref) <= 1e-12 * max(1.0, abs(ref))
    return mse, sqnr, maxe, cos


def g17(v):
    if v == float("inf"):
        return "Inf"
    return "%.17g" % v


metric_inputs = []
for n in (1, 5, 16, 17, 33, 100, 257, 1000):
    a = rng.normal(0.0, 1.0, size=n).astype(f32)
    metric_inputs.append(("noise%d" % n, a,
                          (a + rng.normal(0.0, 0.01, size=n)).astype(f32)))
for n in (7, 64, 300):
    a = (rng.standard_t(3.0, size=n) * 2.0).astype(f32)
    scale = f32(np.abs(a).max() / f32(127.5))
    inv = f32(1.0) / scale
    q = np.clip(np.rint((a * inv).astype(f32)), -128, 127)
    metric_inputs.append(("roundtrip%d" % n, a, (q.astype(f32) * scale).astype(f32)))
a = rng.uniform(-1, 1, size=50).astype(f32)
metric_inputs.append(("unrelated50", a, rng.uniform(-1, 1, size=50).astype(f32)))
a = (rng.normal(0, 1, size=40) * 1e4).astype(f32)
metric_inputs.append(("large40", a, (a * f32(1.001)).astype(f32)))
a = (rng.normal(0, 1, size=40) * 1e-4).astype(f32)
metric_inputs.append(("small40", a, -a))
# Norms below eps = 1e-8, where the eps clamp of cosine similarity matters
# (torch 1.13 clamps each norm: a.b / (max(|a|, eps) * max(|b|, eps))).
metric_inputs.append(("tinynorm3", np.array([1e-5, 2e-5, -1e-5], dtype=f32),
                      np.array([3e-5, -1e-5, 0.0], dtype=f32)))
metric_inputs.append(("tinyb2", np.array([3.0, 4.0], dtype=f32),
                      np.array([1e-9, 0.0], dtype=f32)))

emit("# Metrics: name {a hex b hex mse .. sqnr .. max_error .. cosine ..}")
emit("# (torch float64, %.17g)")
emit("set ref_metric_cases {")
for name, a, b in metric_inputs:
    mse, sqnr, maxe, cos = torch_metrics(a, b)
    emit("  %s {" % name)
    emit("    a %s" % hexs(a))
    emit("    b %s" % hexs(b))
    emit("    mse %s sqnr %s max_error %s cosine %s" %
         (g17(mse), g17(sqnr), g17(maxe), g17(cos)))
    emit("  }")
emit("}")
emit("")

rows_a, rows_b = [], []
for n in (3, 10, 1, 40, 17):
    a = rng.normal(0.0, 2.0, size=n).astype(f32)
    rows_a.append(a)
    rows_b.append((a + rng.normal(0.0, 0.05, size=n)).astype(f32))
mse, sqnr, _, _ = torch_metrics(np.concatenate(rows_a), np.concatenate(rows_b))
emit("# Metric aggregates: rows {{a_hex b_hex} ..}, expected over the")
emit("# concatenation (torch float64)")
emit("set ref_metric_rows {")
emit("  rows {")
for a, b in zip(rows_a, rows_b):
    emit("    {%s %s}" % (hexs(a), hexs(b)))
emit("  }")
emit("  mse %s sqnr %s" % (g17(mse), g17(sqnr)))
emit("}")
emit("")

# --------------------------------------------------------------------------
# Percentiles


def readme_percentile(x, p):
    """The documented definition (docs/reference/calibration.md), in double,
    rounded once to float32."""
    s = np.sort(x.astype(np.float64))
    n = len(s)
    pos = p / 100.0 * (n - 1)
    i = int(np.floor(pos))
    frac = pos - i
    if frac == 0.0 or i + 1 >= n:
        return f32(s[i])
    return f32(s[i] + frac * (s[i + 1] - s[i]))


def np_percentile(x, p):
    v = f32(np.percentile(x.astype(np.float64), p))
    r = readme_percentile(x, p)
    if f32bits(v) != f32bits(r):
        sys.exit("numpy and the documented percentile differ: %r %r" % (v, r))
    return v


PCONFIGS = [  # (label, dtype, qmin, qmax, scheme, unsigned, custom, options)
    ("u8a", "uint8", 0, 255, "affine", True, False, ""),
    ("i8a", "int8", -128, 127, "affine", False, False, ""),
    ("i8s", "int8", -128, 127, "symmetric", False, False, ""),
    ("u8s", "uint8", 0, 255, "symmetric", True, False, ""),
    ("i4s", "int4", -8, 7, "symmetric", False, False, ""),
]

pct_inputs = []
for n, kind in ((1, "normal"), (2, "normal"), (7, "normal"), (100, "heavy"),
                (1001, "normal"), (3000, "heavy"), (500, "skewed"),
                (64, "positive"), (64, "negative")):
    if kind == "normal":
        x = rng.normal(0.0, 1.0, size=n)
    elif kind == "heavy":
        x = rng.standard_t(2.0, size=n)
    elif kind == "skewed":
        x = rng.uniform(-1.0, 6.0, size=n)
    elif kind == "positive":
        x = rng.exponential(1.0, size=n) + 0.1
    else:
        x = -rng.exponential(1.0, size=n) - 0.1
    pct_inputs.append(("%s%d" % (kind, n), np.asarray(x, dtype=f32)))

emit("# Percentiles: name {x hex cases {{P lo_bits hi_bits amax_bits")
emit("#   {cfg scale_bits zp ..}} ..}}; cfg as in PCONFIGS of the generator:")
emit("#   u8a uint8 affine, i8a int8 affine, i8s int8 symmetric,")
emit("#   u8s uint8 symmetric, i4s int4 symmetric")
emit("set ref_percentile_cases {")
for name, x in pct_inputs:
    emit("  %s {" % name)
    emit("    x %s" % hexs(x))
    emit("    cases {")
    for p in (99.99, 99.9, 99.0, 90.0, 75.5, 50.0, 100.0):
        lo = np_percentile(x, 100.0 - p)
        hi = np_percentile(x, p)
        amax = np_percentile(np.abs(x), p)
        params = []
        for label, _, qmin, qmax, scheme, unsigned, custom, _ in PCONFIGS:
            if scheme == "affine":
                s, z = spec_qparams([lo], [hi], qmin, qmax, scheme, unsigned, custom)
            else:
                s, z = spec_qparams([-amax], [amax], qmin, qmax, scheme, unsigned,
                                    custom)
            params.append("%s %s %d" % (label, f32bits(s[0]), int(z[0])))
        emit("      {%r %s %s %s {%s}}" % (p, f32bits(lo), f32bits(hi),
                                           f32bits(amax), " ".join(params)))
    emit("    }")
    emit("  }")
emit("}")

with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", OUT, sum(len(l) + 1 for l in lines), "bytes")
