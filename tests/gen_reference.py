#!/usr/bin/python3
"""Reference test vectors for sqlite-quant from PyTorch 1.13 (and the ONNX
QuantizeLinear formula).

How to rerun (Debian 12):
    apt-get install python3-torch python3-numpy python3-onnx
    /usr/bin/python3 tests/gen_reference.py
It is deterministic (fixed seeds, no time or hash dependence): rerunning it on
the same packages rewrites the same bytes.  It writes
    tests/data/ref_per_tensor.tcl    per-tensor cases   (reference_per_tensor.test)
    tests/data/ref_per_channel.tcl   per-channel cases  (reference_per_channel.test)
Both are plain Tcl source, committed, so `make test` needs neither torch nor numpy.

Where each expected value comes from (the `src` field of every case):
  torch     PyTorch 1.13: MinMaxObserver / PerChannelMinMaxObserver +
            calculate_qparams() for scale and zero point (scale as float32 bits),
            torch.quantize_per_tensor / quantize_per_channel(...).int_repr() for
            codes, .dequantize() for floats.  uint4 codes are the packed bytes of
            torch.quint4x2's int_repr (low nibble first, checked).  Custom
            ranges (quant_min/quant_max, int4) use torch's 8-bit codes clamped
            to the range, which is exactly what clamping after rounding means;
            their floats are cross-checked against
            torch.fake_quantize_per_tensor_affine / _per_channel_affine.
  onnx      ONNX QuantizeLinear (opset 13).  The installed onnx (1.12) has no
            onnx.reference evaluator, so this is the numpy float32 version of
            the ONNX reference op:  saturate(np.rint(x / np.float32(scale)) + zp)
            (x / scale divided in float32, ties to even), plus the vectors of
            ONNX's own backend tests test_quantizelinear(_axis) (transcribed
            from onnx/backend/test/case/node/quantizelinear.py, onnx 1.12).
  spec      docs/NUMERICS.md computed in numpy where PyTorch 1.13 is known to be
            wrong or deliberately differs (listed below); only a few cases.

Every torch-derived value is ALSO recomputed with an independent numpy float32
implementation of docs/NUMERICS.md and the generator aborts on any difference,
so the data is both "what torch does" and "what docs/NUMERICS.md says".

PyTorch 1.13 quirks found while writing this (not generated from torch):
  * +inf, NaN and finite x with |x/scale| >= 2^63 quantize to qmin for
    quint8, qint8, qint32 and quint4x2 alike (the float -> int64 conversion
    overflows; quint4x2 even gives 15 for some such values); the contract: +inf ->
    qmax, -inf -> qmin, NaN is an error.  The "spec" cases cover these.
  * qint32: torch adds the zero point in float32 (zp + round(x*inv)), so codes
    with |code| > 2^24 and zp != 0 are off by a few units; the contract adds in double.
  * MinMaxObserver refuses symmetric quint8 with reduce_range
    (NotImplementedError); with a custom range quint8 symmetric uses
    (qmin+qmax)//2, so quant_min=0 quant_max=255 gives zp 127 while the default
    range gives 128.  The contract says 128 for the default range; the explicit
    0..255 case is left out (ambiguous).
  * Custom ranges must include 0 in torch (assertion); with reduce_range a
    custom range is halved.  Neither is generated.
  * In this torch build (1.13.1 Debian, engines qnnpack/onednn, no fbgemm)
    custom ranges are kept as given (qint8 -127..127 stays -127..127, no
    remapping to -128..126); the generator asserts observer.quant_min/quant_max
    equal the requested range anyway.
  * torch.quint4x2 int_repr() returns the packed bytes (ceil(n/2) of them),
    element 2i in the low nibble, odd count padded with 0: exactly docs/NUMERICS.md#codes.
  * There is no qint4 in torch 1.13: int4 codes are torch qint8 codes clamped
    to -8..7 (a uint4/int4 observer is the 8-bit observer with quant_min/max
    0..15 / -8..7, whose symmetric uint4 zero point is (0+15)//2 = 7).
  * An observer over a range wider than FLT_MAX (e.g. -3e38..3e38) returns
    scale=inf; not generated.
"""

import os
import struct
import sys
import warnings
import zlib

import numpy as np
import torch
from torch.ao.quantization import MinMaxObserver, PerChannelMinMaxObserver

warnings.filterwarnings("ignore")
torch.manual_seed(0)
torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
f32 = np.float32
EPS = f32(2.0 ** -23)

# Expected blobs larger than this many bytes are stored as "crc32:LEN:CRC"
# (zlib crc32 of the bytes, checked with Tcl's `zlib crc32`) to keep the
# committed data small; inputs are always stored in full.
FULL_LIMIT = 8192

DTYPES = {
    # name: (qmin, qmax, torch dtype used for codes)
    "int8": (-128, 127, torch.qint8),
    "uint8": (0, 255, torch.quint8),
    "int32": (-2 ** 31, 2 ** 31 - 1, torch.qint32),
    "int4": (-8, 7, torch.qint8),        # torch qint8 codes clamped to -8..7
    "uint4": (0, 15, torch.quint4x2),
}
ALIASES = {"qint8": "int8", "quint8": "uint8", "qint32": "int32",
           "quint4x2": "uint4"}


def canon(dtype):
    return ALIASES.get(dtype.lower(), dtype.lower())


# --------------------------------------------------------------------------
# docs/NUMERICS.md in numpy float32 (independent of torch)

def spec_qparams(x, dtype, scheme, qmin, qmax):
    x = np.asarray(x, dtype=f32)
    min_neg = min(f32(x.min()), f32(0))
    max_pos = max(f32(x.max()), f32(0))
    if scheme == "affine":
        scale = f32(max_pos - min_neg) / f32(qmax - qmin)
        scale = max(f32(scale), EPS)
        zp = qmin - int(np.rint(f32(min_neg / scale)))
        zp = min(max(zp, qmin), qmax)
    else:
        amax = max(f32(-min_neg), max_pos)
        scale = max(f32(amax / f32((qmax - qmin) / 2)), EPS)
        if qmin < 0:
            zp = 0
        elif canon(dtype) == "uint8" and (qmin, qmax) == (0, 255):
            zp = 128
        else:
            zp = (qmin + qmax) // 2
    assert isinstance(scale, np.float32)
    return scale, zp


def spec_quantize(x, scale, zp, qmin, qmax, rounding="torch"):
    x = np.asarray(x, dtype=f32)
    scale = f32(scale)
    with np.errstate(over="ignore", invalid="ignore"):
        if rounding == "torch":
            y = (x * (f32(1.0) / scale)).astype(f32)
        else:
            y = (x / scale).astype(f32)
    assert not np.isnan(y).any()
    r = np.rint(y).astype(np.float64) + float(zp)   # round, then add zp (double)
    return np.clip(r, qmin, qmax).astype(np.int64)


def spec_dequantize(q, scale, zp):
    d = (np.asarray(q, dtype=np.int64) - zp).astype(f32)
    return (d * f32(scale)).astype(f32)


def code_bytes(q, dtype):
    dtype = canon(dtype)
    q = np.asarray(q, dtype=np.int64)
    if dtype in ("int4", "uint4"):
        nib = (q & 0xF).astype(np.uint8)
        if len(nib) % 2:
            nib = np.append(nib, np.uint8(0))
        return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).tobytes()
    fmt = {"int8": "<i1", "uint8": "<u1", "int32": "<i4"}[dtype]
    return q.astype(fmt).tobytes()


def f32bits(v):
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", float(v)))[0]


def hexs(b):
    return b.hex().upper()


def expected_blob(b):
    if len(b) > FULL_LIMIT:
        return "crc32:%d:%d" % (len(b), zlib.crc32(b) & 0xFFFFFFFF)
    return hexs(b)


# --------------------------------------------------------------------------
# PyTorch side

def torch_observer(x, dtype, scheme, reduce_range, qrange, per_channel=False,
                   axis=0):
    qmin, qmax, _ = DTYPES[canon(dtype)]
    tdt = torch.qint8 if qmin < 0 else torch.quint8
    kw = dict(dtype=tdt, reduce_range=reduce_range)
    if qrange is not None:
        kw["quant_min"], kw["quant_max"] = qrange
    if per_channel:
        kw["qscheme"] = {"affine": torch.per_channel_affine,
                         "symmetric": torch.per_channel_symmetric}[scheme]
        obs = PerChannelMinMaxObserver(ch_axis=axis, **kw)
    else:
        kw["qscheme"] = {"affine": torch.per_tensor_affine,
                         "symmetric": torch.per_tensor_symmetric}[scheme]
        obs = MinMaxObserver(**kw)
    obs(torch.from_numpy(np.array(x, dtype=f32)))
    scale, zp = obs.calculate_qparams()
    assert scale.dtype == torch.float32
    return scale.numpy().astype(f32), zp.numpy().astype(np.int64), \
        (obs.quant_min, obs.quant_max)


def effective_range(dtype, reduce_range, qrange):
    qmin, qmax, _ = DTYPES[canon(dtype)]
    if qrange is not None:
        return qrange
    if reduce_range:
        assert canon(dtype) in ("int8", "uint8")
        return (-64, 63) if qmin < 0 else (0, 127)
    return qmin, qmax


def torch_quantize(x, scale, zp, dtype, qmin, qmax):
    """Codes and floats from torch.quantize_per_tensor for the given range."""
    dtype = canon(dtype)
    xt = torch.from_numpy(np.array(x, dtype=f32))
    tdt = DTYPES[dtype][2]
    q = torch.quantize_per_tensor(xt, float(scale), int(zp), tdt)
    if dtype == "uint4":
        packed = q.int_repr().numpy().astype(np.uint8).tobytes()
        lo = np.frombuffer(packed, np.uint8) & 0xF
        hi = np.frombuffer(packed, np.uint8) >> 4
        codes = np.stack([lo, hi], 1).reshape(-1)[:len(x)].astype(np.int64)
        assert packed == code_bytes(codes, "uint4")
        deq = q.dequantize().numpy().astype(f32)
    else:
        codes = q.int_repr().numpy().astype(np.int64).reshape(-1)
        deq = q.dequantize().numpy().astype(f32).reshape(-1)
    natural = {torch.qint8: (-128, 127), torch.quint8: (0, 255),
               torch.quint4x2: (0, 15), torch.qint32: (-2 ** 31, 2 ** 31 - 1)}
    if (qmin, qmax) != natural[tdt]:
        # narrower range: clamp torch's rounded codes, floats from the clamped
        # codes, cross-checked with torch.fake_quantize_per_tensor_affine
        codes = np.clip(codes, qmin, qmax)
        deq = spec_dequantize(codes, scale, zp)
    if dtype != "int32":
        fq = torch.fake_quantize_per_tensor_affine(
            xt, float(scale), int(zp), int(qmin), int(qmax)).numpy()
        assert fq.astype(f32).tobytes() == deq.tobytes(), "fake_quantize differs"
    return codes, deq


def check_against_spec(x, scale, zp, dtype, qmin, qmax, codes, deq,
                       rounding="torch", what=""):
    sc = spec_quantize(x, scale, zp, qmin, qmax, rounding)
    if not np.array_equal(sc, codes):
        i = int(np.nonzero(sc != codes)[0][0])
        sys.exit("%s: codes differ from the contract at %d: x=%r scale=%r zp=%d "
                 "ref=%d spec=%d" % (what, i, x[i], scale, zp, codes[i], sc[i]))
    sd = spec_dequantize(codes, scale, zp)
    if sd.tobytes() != np.asarray(deq, f32).tobytes():
        sys.exit("%s: dequantized floats differ from the contract" % what)


# --------------------------------------------------------------------------
# Tcl output

def tcl_word(s):
    s = str(s)
    if s == "":
        return "{}"
    if any(c in s for c in " {}\\\"$[];\n'") or len(s) > 100:
        assert "{" not in s and "}" not in s and "\\" not in s
        if len(s) > 100 and all(c in "0123456789ABCDEF" for c in s):
            # long hex: wrap, the test strips the white space
            lines = [s[i:i + 96] for i in range(0, len(s), 96)]
            return "{\n    " + "\n    ".join(lines) + "\n  }"
        return "{" + s + "}"
    return s


def tcl_dict(d):
    return "{" + " ".join("%s %s" % (k, tcl_word(v)) for k, v in d.items()) + "}"


class Writer:
    def __init__(self):
        self.xs = {}          # hex -> id
        self.xorder = []
        self.cases = []

    def x_id(self, x):
        h = hexs(np.asarray(x, dtype="<f4").tobytes())
        if h not in self.xs:
            self.xs[h] = "x%d" % len(self.xorder)
            self.xorder.append(h)
        return self.xs[h]

    def write(self, path, header, xvar, casevar):
        with open(path, "w", newline="\n") as f:
            f.write("# Generated by tests/gen_reference.py -- do not edit by hand.\n")
            for line in header.strip().splitlines():
                f.write("# " + line + "\n")
            f.write("set %s {\n" % xvar)
            for h in self.xorder:
                f.write("  %s %s\n" % (self.xs[h], tcl_word(h)))
            f.write("}\n")
            f.write("set %s {\n" % casevar)
            for c in self.cases:
                f.write("  " + tcl_dict(c) + "\n")
            f.write("}\n")


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def sql_args(*args):
    """', a, b' for the optional trailing SQL arguments (None stops)."""
    out = ""
    for a in args:
        if a is None:
            break
        out += ", " + (sql_str(a) if isinstance(a, str) else str(a))
    return out


def opts_text(reduce_range, qrange, extra=""):
    parts = []
    if qrange is not None:
        parts.append("quant_min=%d quant_max=%d" % qrange)
    if reduce_range:
        parts.append("reduce_range=1")
    if extra:
        parts.append(extra)
    return " ".join(parts)


# --------------------------------------------------------------------------
# Per-tensor inputs

rng = np.random.default_rng(20240613)


def reseed(section):
    """A fresh generator per section: editing one section leaves the data of
    the others unchanged."""
    global rng
    rng = np.random.default_rng(20240613 + 1000 * section)


def dist(kind, n):
    r = rng
    if kind == "normal":
        return r.standard_normal(n) * r.choice([0.01, 1.0, 3.0, 50.0]) + r.choice([0, 0, 0.3, -1.5])
    if kind == "uniform":
        a = r.uniform(-5, 0)
        return r.uniform(a, r.uniform(0, 5), n)
    if kind == "student_t":
        return r.standard_t(2, n)
    if kind == "lognormal":
        return r.lognormal(0, 2, n) * r.choice([-1.0, 1.0], n)
    if kind == "sparse":
        v = r.standard_normal(n) * 2
        v[r.random(n) < 0.85] = 0.0
        v[r.random(n) < 0.05] = -0.0
        return v
    if kind == "positive":
        return r.uniform(0.01, 7.0, n)
    if kind == "negative":
        return -r.uniform(0.5, 3.0, n)
    if kind == "constant":
        return np.full(n, r.choice([3.7, 0.1, 1e4, 250.0]))
    if kind == "neg_constant":
        return np.full(n, r.choice([-3.0, -0.02]))
    if kind == "zeros":
        return np.zeros(n)
    if kind == "tiny":
        return r.standard_normal(n) * 1e-30
    if kind == "subnormal":
        return r.standard_normal(n) * 1e-40
    if kind == "huge":
        return r.standard_normal(n) * 1e30
    if kind == "near_max":
        return r.uniform(0, 3.0e38, n)
    if kind == "grid":
        return r.integers(-40, 41, n) * 0.125
    if kind == "outliers":
        v = r.standard_normal(n)
        v[r.integers(0, n, max(1, n // 50))] *= 1e4
        return v
    if kind == "small_ints":
        return r.integers(-3, 4, n).astype(np.float64)
    raise ValueError(kind)


# (label, dtype as passed to SQL, scheme, reduce_range, custom range)
OBS_CONFIGS = [
    ("uint8", "uint8", "affine", False, None),
    ("int8", "int8", "affine", False, None),
    ("int8", "int8", "symmetric", False, None),
    ("uint8", "uint8", "symmetric", False, None),
    ("uint8", "uint8", "affine", True, None),
    ("int8", "int8", "affine", True, None),
    ("int8", "int8", "symmetric", True, None),
    ("int8", "int8", "symmetric", False, (-127, 127)),
    ("uint4", "uint4", "affine", False, None),
    ("int4", "int4", "affine", False, None),
    ("uint8", "uint8", "affine", False, (0, 127)),
    ("int8", "int8", "affine", False, (-64, 63)),
    ("uint4", "uint4", "symmetric", False, None),
    ("int4", "int4", "symmetric", False, None),
    ("uint8", "uint8", "symmetric", False, (0, 127)),
    ("int8", "int8", "affine", False, (-127, 127)),
    ("uint8", "uint8", "affine", False, (0, 15)),
    ("int8", "qint8", "affine", False, None),     # alias spelling
    ("uint8", "QUINT8", "affine", False, None),   # alias, upper case
]


def per_tensor():
    w = Writer()
    counts = {}

    def add_obs_case(tag, x, cfg, src_note=""):
        label, dt_sql, scheme, rr, qrange = cfg
        dtype = canon(dt_sql)
        x = np.asarray(x, dtype=f32)
        n = len(x)
        # parameters
        tqmin, tqmax = effective_range(dtype, rr, qrange)
        if dtype in ("int4", "uint4") and qrange is None:
            t_range = (tqmin, tqmax)     # torch: 8-bit observer, 4-bit range
        else:
            t_range = qrange
        ts, tz, obs_range = torch_observer(x, dtype, scheme, rr, t_range)
        assert obs_range == (tqmin, tqmax), (obs_range, tqmin, tqmax)
        scale, zp = ts[0], int(tz[0])
        ss, sz = spec_qparams(x, dtype, scheme, tqmin, tqmax)
        assert f32bits(ss) == f32bits(scale) and sz == zp, \
            ("qparams differ from the contract", tag, x[:5], scale, zp, ss, sz)
        codes, deq = torch_quantize(x, scale, zp, dtype, tqmin, tqmax)
        check_against_spec(x, scale, zp, dtype, tqmin, tqmax, codes, deq,
                           what=tag)
        opts = opts_text(rr, qrange)
        i = len(w.cases)
        # how the SQL calls spell the optional arguments
        if dt_sql == "int8" and scheme == "affine" and not opts and i % 2 == 0:
            pargs = ""                       # defaults: int8, affine
        elif scheme == "affine" and not opts and i % 3 == 0:
            pargs = sql_args(dt_sql)         # scheme defaults to affine
        else:
            pargs = sql_args(dt_sql, scheme, opts or None)
        qargs = "" if (dt_sql == "int8" and not opts and i % 2 == 0) \
            else sql_args(dt_sql, opts or None)
        dargs = sql_args(dt_sql)
        if dtype in ("int4", "uint4") and (n % 2 or i % 2):
            dargs = sql_args(dt_sql, n)
        name = "ref-tensor-%s-%s-%d" % (label, scheme, i)
        if rr:
            name = "ref-tensor-%s-%s-rr-%d" % (label, scheme, i)
        elif qrange is not None:
            name = "ref-tensor-%s-%s-range-%d" % (label, scheme, i)
        if tag.startswith("spec33"):
            name = "ref-tensor-spec33-%s-%s-%s%d" % (label, scheme,
                                                     "rr-" if rr else "", i)
        w.cases.append(dict(
            name=name, src="torch", input=tag, x=w.x_id(x), n=n,
            pargs=pargs, qargs=qargs, dargs=dargs,
            scale=f32bits(scale), zp=zp,
            codes=expected_blob(code_bytes(codes, dtype)),
            deq=expected_blob(deq.astype("<f4").tobytes())))
        counts["observer"] = counts.get("observer", 0) + 1

    def add_q_case(kind, x, scale, zp, dt_sql, src, rounding="torch",
                   qrange=None, reduce_range=False, expect_codes=None):
        """Quantize/dequantize with explicit parameters (no observer)."""
        dtype = canon(dt_sql)
        x = np.asarray(x, dtype=f32)
        scale = f32(scale)
        qmin, qmax = effective_range(dtype, reduce_range, qrange)
        if src == "torch":
            codes, deq = torch_quantize(x, scale, zp, dtype, qmin, qmax)
            check_against_spec(x, scale, zp, dtype, qmin, qmax, codes, deq,
                               what=kind)
        elif src == "onnx":
            assert dtype in ("int8", "uint8") and qrange is None
            codes = onnx_quantize_linear(x, scale, zp, dtype)
            deq = onnx_dequantize_linear(codes, scale, zp)
            check_against_spec(x, scale, zp, dtype, qmin, qmax, codes, deq,
                               rounding="onnx", what=kind)
        else:
            codes = spec_quantize(x, scale, zp, qmin, qmax, rounding)
            deq = spec_dequantize(codes, scale, zp)
        if expect_codes is not None:
            assert list(codes) == list(expect_codes), (kind, codes)
        extra = "rounding=onnx" if rounding == "onnx" else ""
        if rounding == "torch" and len(w.cases) % 4 == 1:
            extra = "rounding=torch"          # the explicit default
        opts = opts_text(reduce_range, qrange, extra)
        i = len(w.cases)
        n = len(x)
        dargs = sql_args(dt_sql)
        if dtype in ("int4", "uint4") and (n % 2 or i % 2):
            dargs = sql_args(dt_sql, n)
        w.cases.append(dict(
            name="ref-tensor-%s-%s-%d" % (canon(dt_sql), kind, i), src=src,
            input=kind, x=w.x_id(x), n=n,
            qargs=sql_args(dt_sql, opts or None), dargs=dargs,
            scale=f32bits(scale), zp=int(zp),
            codes=expected_blob(code_bytes(codes, dtype)),
            deq=expected_blob(deq.astype("<f4").tobytes())))
        counts[kind] = counts.get(kind, 0) + 1
        return codes

    # --- docs/NUMERICS.md#choosing-parameters worked examples
    ex = [-1, 0.5, 2, 3]
    add_obs_case("spec33", ex, OBS_CONFIGS[0])
    add_obs_case("spec33", ex, ("int8", "int8", "symmetric", False, None))
    add_obs_case("spec33", ex, ("uint8", "uint8", "affine", True, None))
    add_obs_case("spec33", [0, 0, 0], OBS_CONFIGS[0])
    add_obs_case("spec33", [3, 3, 3], OBS_CONFIGS[0])
    add_obs_case("spec33", [-3, -3], OBS_CONFIGS[0])
    want = [("0x3C808081", 64), ("0x3CC0C0C1", 0), ("0x3D010204", 32),
            (f32bits(1.1920929e-07), 0), (f32bits(0.011764706), 0),
            (f32bits(0.011764706), 255)]
    for c, (s, z) in zip(w.cases, want):
        assert (c["scale"], c["zp"]) == (s, z), (c, s, z)

    # --- observer cases over many inputs
    reseed(1)
    kinds = ["normal", "uniform", "student_t", "lognormal", "sparse",
             "positive", "negative", "constant", "neg_constant", "zeros",
             "tiny", "subnormal", "huge", "near_max", "grid", "outliers",
             "small_ints"]
    sizes = [1, 2, 3, 7, 16, 33, 100]
    ci = 0
    for rep in range(4):
        for k, kind in enumerate(kinds):
            n = sizes[(k + 3 * rep) % len(sizes)]
            x = dist(kind, n).astype(f32)
            for j in range(4):
                add_obs_case(kind, x, OBS_CONFIGS[ci % len(OBS_CONFIGS)])
                ci += 1
    # zero point on an exact tie: power-of-two scale, min/scale == -(k+0.5),
    # so zp = qmin - round(min/scale) shows round-half-to-even (10.5 -> 10)
    for j, (k, e, cfg) in enumerate([
            (10, 4, OBS_CONFIGS[0]), (11, 4, OBS_CONFIGS[0]),
            (3, 7, OBS_CONFIGS[1]), (100, 2, OBS_CONFIGS[1]),
            (20, 3, OBS_CONFIGS[4]), (21, 5, OBS_CONFIGS[5]),
            (0, 6, OBS_CONFIGS[8]), (5, 1, OBS_CONFIGS[9]),
            (40, 8, OBS_CONFIGS[10]), (41, 8, OBS_CONFIGS[15])]):
        label, dt_sql, scheme, rr, qrange = cfg
        qmin, qmax = effective_range(canon(dt_sql), rr, qrange)
        step = 2.0 ** -e
        lo = -(k + 0.5) * step
        hi = lo + (qmax - qmin) * step
        x = np.concatenate([[lo, hi], rng.uniform(lo, hi, 5 + j)]).astype(f32)
        rng.shuffle(x)
        add_obs_case("zp-tie", x, cfg)
        assert float(f32(lo) / f32(2.0 ** -e)) == -(k + 0.5)
    # a few singles and large tensors
    for v in [5.0, -2.5, 0.0, 1e-45, -7e-39, 1e30]:
        for j in range(2):
            add_obs_case("single", [v], OBS_CONFIGS[ci % len(OBS_CONFIGS)])
            ci += 1
    for n, kind in [(1000, "normal"), (1000, "lognormal"), (1000, "sparse"),
                    (4099, "student_t"), (4099, "uniform")]:
        x = dist(kind, n).astype(f32)
        for cfg in (OBS_CONFIGS[ci % 8], OBS_CONFIGS[(ci + 3) % 8],
                    OBS_CONFIGS[8 + ci % 6]):
            add_obs_case(kind, x, cfg)
        ci += 1

    # --- exact ties: x*inv == k+0.5 exactly in float32 (round half to even,
    #     and the zero point is added after rounding)
    reseed(2)
    def tie_values(scale, count, zp_span):
        inv = f32(1) / f32(scale)
        out = []
        tries = 0
        while len(out) < count and tries < 100000:
            tries += 1
            k = int(rng.integers(-zp_span, zp_span))
            x = f32(f32(k + 0.5) * f32(scale))
            if f32(x * inv) == f32(k + 0.5):
                out.append(x)
        assert len(out) == count, (scale, len(out))
        return np.array(out, dtype=f32)

    for dt, scale, zp in [("uint8", 0.5, 1), ("uint8", 0.25, 128),
                          ("int8", 1.0, 0), ("int8", 0.125, -3),
                          ("uint8", 0.0078125, 77), ("int8", 2.0, 5)]:
        x = np.array([(k + 0.5) * scale for k in range(-6, 6)], dtype=f32)
        add_q_case("tie", x, scale, zp, dt, "torch")
    for dt in ["uint8", "int8", "uint8", "int8", "uint4", "int4", "int32",
               "int32"]:
        scale = f32(rng.uniform(0.001, 0.2))
        lo, hi = DTYPES[dt][:2]
        span = 12 if dt in ("uint4", "int4") else 120
        zp = int(rng.integers(max(lo, -1000), min(hi, 1000) + 1))
        x = tie_values(scale, 17 if dt.endswith("4") else 24, span)
        add_q_case("tie", x, scale, zp, dt, "torch")
    # tie cases also checked against ONNX rounding where x/scale is the tie too
    x = np.array([(k + 0.5) * 0.25 for k in range(-9, 9)], dtype=f32)
    add_q_case("onnx-tie", x, 0.25, 3, "uint8", "onnx", rounding="onnx")
    add_q_case("onnx-tie", x, 0.25, -2, "int8", "onnx", rounding="onnx")

    # --- explicit-parameter torch cases, every dtype incl. int32
    reseed(3)
    for dt in ["uint8", "int8", "uint4", "int4"]:
        for n in [1, 3, 7, 16, 33, 100]:
            x = dist(["normal", "uniform", "outliers", "lognormal"][n % 4], n).astype(f32)
            lo, hi = DTYPES[dt][:2]
            amax = float(np.abs(x).max()) or 1.0
            scale = f32(amax / rng.uniform(0.3 * (hi - lo), 0.8 * (hi - lo)))
            zp = int(rng.integers(lo, hi + 1))
            add_q_case("explicit", x, scale, zp, dt, "torch")
    # int32: large codes (zp 0), modest codes with zp, saturation
    for n, mag, scale, zp, dt in [
            (16, 1000.0, 1e-6, 0, "int32"), (33, 1.0, 1e-9, 0, "qint32"),
            (7, 50.0, 3.3e-7, 0, "int32"), (100, 10.0, 0.01, 12345, "int32"),
            (16, 1.0, 1e-3, -777, "int32"), (7, 5.0, 2.5e-6, 0, "int32")]:
        x = (rng.standard_normal(n) * mag).astype(f32)
        add_q_case("explicit", x, scale, zp, dt, "torch")
    sat = np.array([3e9, -3e9, 2147483647.0, -2147483648.0, 2147483520.0,
                    -2147483520.0, 1e18, -1e18, 0.0, 1.0, -1.0], dtype=f32)
    add_q_case("saturate", sat, 1.0, 0, "int32", "torch")
    add_q_case("saturate", sat * f32(0.5), 0.5, 0, "int32", "torch")
    # 8/4-bit saturation with finite values (|x*inv| < 2^63)
    sat8 = np.array([1e6, -1e6, 127.5, 128.5, -128.5, -129.5, 255.5, 256.5,
                     -0.5, 0.5, 3e17, -3e17], dtype=f32)
    for dt, zp in [("uint8", 0), ("uint8", 255), ("int8", -128), ("int8", 127),
                   ("uint4", 15), ("int4", -8)]:
        add_q_case("saturate", sat8, 1.0, zp, dt, "torch")
    # narrowed ranges in quantize_blob (options)
    for dt, rr, qr in [("uint8", True, None), ("int8", True, None),
                       ("int8", False, (-127, 127)), ("uint8", False, (0, 15)),
                       ("int8", False, (-8, 7)), ("uint8", False, (0, 127))]:
        x = (rng.standard_normal(33) * 3).astype(f32)
        zp = 0 if DTYPES[dt][0] < 0 else 5
        add_q_case("narrow", x, 0.02, zp, dt, "torch", qrange=qr,
                   reduce_range=rr)

    # --- ONNX QuantizeLinear (rounding=onnx)
    reseed(4)
    add_q_case("onnx", [0, 2, 3, 1000, -254, -1000], 2.0, 128, "uint8",
               "onnx", rounding="onnx",
               expect_codes=[128, 129, 130, 255, 1, 0])   # ONNX test_quantizelinear
    for i in range(14):
        dt = ["uint8", "int8"][i % 2]
        n = [1, 3, 7, 16, 33, 100, 1000][i % 7]
        x = dist(["normal", "uniform", "lognormal", "grid"][i % 4], n).astype(f32)
        lo, hi = DTYPES[dt][:2]
        scale = f32(max(float(np.abs(x).max()), 1e-3) / rng.uniform(60, 127))
        zp = int(rng.integers(lo // 2, hi // 2 + 1))
        add_q_case("onnx", x, scale, zp, dt, "onnx", rounding="onnx")

    # --- inputs where torch (x * (1/scale)) and ONNX (x / scale) round
    #     differently: each goes in twice, rounding=torch and rounding=onnx
    reseed(5)
    def disagreements(scale, count):
        inv = f32(1) / f32(scale)
        out = []
        tries = 0
        while len(out) < count and tries < 2000:
            tries += 1
            k = int(rng.integers(-40, 40))
            base = f32(f32(k + 0.5) * f32(scale))
            for d in range(-3, 4):
                xv = f32(base + f32(d) * np.spacing(base)) if base != 0 else base
                a = np.rint(f32(xv * inv))
                b = np.rint(f32(xv / f32(scale)))
                if a != b:
                    out.append(xv)
                    break
        return np.array(out, dtype=f32)

    ndis = 0
    for i in range(10):
        dt = ["uint8", "int8"][i % 2]
        d = []
        while len(d) == 0:      # some scales have no such inputs near k+0.5
            scale = f32(rng.uniform(0.001, 0.05))
            d = disagreements(scale, 1 + i % 5)
        filler = (rng.standard_normal(6) * 100 * scale).astype(f32)
        x = np.concatenate([d, filler])
        rng.shuffle(x)
        zp = int(rng.integers(60, 190)) if dt == "uint8" else \
            int(rng.integers(-60, 60))
        ct = add_q_case("torchvsonnx", x, scale, zp, dt, "torch")
        co = add_q_case("onnxvstorch", x, scale, zp, dt, "onnx",
                        rounding="onnx")
        assert not np.array_equal(ct, co)
        ndis += int(np.sum(ct != co))
    counts["torch/onnx differing elements"] = ndis

    # --- from the contract where torch 1.13 is wrong (see the header)
    reseed(6)
    inf = np.float32(np.inf)
    spec_x = np.array([inf, -inf, 1e30, -1e30, 3.4e38, -3.4e38, 0.0, 2.5],
                      dtype=f32)
    for dt, zp in [("uint8", 10), ("int8", -5), ("uint4", 3), ("int4", 0),
                   ("int32", 0), ("int32", 1000)]:
        add_q_case("spec", spec_x, 0.01, zp, dt, "spec")
    big = np.array([16777217.0, 16777219.0, -16777219.0, 1e9, -1e9, 123456789.0],
                   dtype=f32)
    add_q_case("spec", big, 1.0, 5, "int32", "spec")
    add_q_case("spec", big, 1.0, -1000001, "int32", "spec")
    # zero point at the ends of the int32 range (torch's float add rounds)
    ends = np.array([-1.0, 0.0, 1.0, 2.6, -2.6], dtype=f32)
    add_q_case("spec", ends, 1.0, 2 ** 31 - 1, "int32", "spec")
    add_q_case("spec", ends, 1.0, -2 ** 31, "int32", "spec")
    return w, counts


def onnx_quantize_linear(x, scale, zp, dtype):
    """numpy version of the ONNX reference QuantizeLinear (opset 13)."""
    lo, hi = {"uint8": (0, 255), "int8": (-128, 127)}[dtype]
    y = np.rint((np.asarray(x, f32) / f32(scale)).astype(f32)).astype(np.int64)
    return np.clip(y + zp, lo, hi)


def onnx_dequantize_linear(q, scale, zp):
    return ((np.asarray(q).astype(f32) - f32(zp)) * f32(scale)).astype(f32)


# --------------------------------------------------------------------------
# Per-channel

def per_channel():
    w = Writer()
    counts = {}
    prng = np.random.default_rng(777)

    def channel_tensor(shape, axis, special=True):
        x = prng.standard_normal(shape).astype(np.float64)
        C = shape[axis]
        xm = np.moveaxis(x, axis, 0)          # view: channel first
        for c in range(C):
            kind = prng.integers(0, 10) if special else 9
            if kind == 0:
                xm[c] = 0.0                    # all-zero channel
            elif kind == 1:
                xm[c] = np.abs(xm[c]) + 0.01   # all positive
            elif kind == 2:
                xm[c] = -np.abs(xm[c]) - 0.5   # all negative
            elif kind == 3:
                xm[c] = prng.choice([1.5, -0.25, 42.0])   # constant
            elif kind == 4:
                xm[c] *= 1e-3
            elif kind == 5:
                xm[c] *= 1e3
            elif kind == 6:
                xm[c][prng.random(xm[c].shape) < 0.6] = 0.0
            else:
                xm[c] *= 10.0 ** prng.uniform(-2, 2)
        return x.astype(f32)

    def add_case(x, shape, axis, dt_sql, scheme, rr=False, qrange=None,
                 neg_axis=False, tag="", params=None):
        dtype = canon(dt_sql)
        ndim = len(shape)
        qmin, qmax = effective_range(dtype, rr, qrange)
        if params is None:
            scales, zps, rng_ = torch_observer(x, dtype, scheme, rr, qrange,
                                               per_channel=True, axis=axis)
            assert rng_ == (qmin, qmax)
            xm = np.moveaxis(x, axis, 0).reshape(shape[axis], -1)
            for c in range(shape[axis]):
                ss, sz = spec_qparams(xm[c], dtype, scheme, qmin, qmax)
                assert f32bits(ss) == f32bits(scales[c]) and sz == zps[c], \
                    ("per-channel qparams differ", c)
            check_params = True
        else:
            scales, zps = params
            check_params = False
        xt = torch.from_numpy(x)
        q = torch.quantize_per_channel(
            xt, torch.from_numpy(scales.astype(np.float64)),
            torch.from_numpy(zps.astype(np.int64)), axis,
            torch.qint8 if qmin < 0 else torch.quint8)
        codes = q.int_repr().numpy().astype(np.int64)
        deq = q.dequantize().numpy().astype(f32)
        if (qmin, qmax) != DTYPES[dtype][:2]:
            codes = np.clip(codes, qmin, qmax)
            bshape = [1] * ndim
            bshape[axis] = shape[axis]
            deq = ((codes - zps.reshape(bshape)).astype(f32)
                   * scales.reshape(bshape)).astype(f32)
        fq = torch.fake_quantize_per_channel_affine(
            xt, torch.from_numpy(scales.astype(f32)),
            torch.from_numpy(zps.astype(np.int32)), axis, qmin, qmax).numpy()
        assert fq.astype(f32).tobytes() == deq.tobytes(), "per-channel fake"
        # the contract per channel (docs/NUMERICS.md#per-channel)
        xm = np.moveaxis(x, axis, 0)
        cm = np.moveaxis(codes, axis, 0)
        dm = np.moveaxis(deq, axis, 0)
        for c in range(shape[axis]):
            check_against_spec(xm[c].reshape(-1), scales[c], int(zps[c]), dtype,
                               qmin, qmax, cm[c].reshape(-1),
                               dm[c].reshape(-1), what="per-channel")
        i = len(w.cases)
        sql_axis = axis - ndim if neg_axis else axis
        opts = opts_text(rr, qrange)
        if dt_sql == "int8" and scheme == "affine" and not opts and i % 2 == 0:
            pargs = ""
        else:
            pargs = sql_args(dt_sql, scheme, opts or None)
        qargs = "" if (dt_sql == "int8" and not opts and i % 2 == 1) \
            else sql_args(dt_sql, opts or None)
        name = "ref-channel-%s-%s-%s%d" % (dtype, scheme, tag, i)
        c = dict(name=name, src="torch", x=w.x_id(x.reshape(-1)),
                 shape="[" + ",".join(str(s) for s in shape) + "]",
                 axis=sql_axis, pargs=pargs if check_params else "-",
                 qargs=qargs, dargs=sql_args(dt_sql),
                 fargs=qargs,
                 scales=hexs(scales.astype("<f4").tobytes()),
                 zps=hexs(zps.astype("<i4").tobytes()),
                 codes=expected_blob(code_bytes(codes.reshape(-1), dtype)),
                 deq=expected_blob(deq.reshape(-1).astype("<f4").tobytes()))
        w.cases.append(c)
        key = "params+codes" if check_params else "codes only"
        counts[key] = counts.get(key, 0) + 1

    configs = [("int8", "affine"), ("uint8", "affine"), ("int8", "symmetric"),
               ("uint8", "symmetric")]
    # random shapes, 2-4 dims, every axis
    k = 0
    for t in range(84):
        ndim = 2 + t % 3
        shape = [int(prng.integers(1, 10)) for _ in range(ndim)]
        axis = t % ndim if t % 7 else int(prng.integers(0, ndim))
        x = channel_tensor(shape, axis)
        dt, sch = configs[k % 4]
        k += 1
        add_case(x, shape, axis, dt, sch, neg_axis=(t % 3 == 1))
    # reduce_range and custom ranges
    for t, (dt, sch, rr, qr) in enumerate([
            ("int8", "affine", True, None), ("uint8", "affine", True, None),
            ("int8", "symmetric", True, None),
            ("int8", "symmetric", False, (-127, 127)),
            ("uint8", "affine", False, (0, 127)),
            ("int8", "affine", False, (-64, 63)),
            ("uint8", "symmetric", False, (0, 127)),
            ("int8", "symmetric", False, (-127, 127))]):
        shape = [int(prng.integers(2, 7)) for _ in range(3)]
        axis = t % 3
        x = channel_tensor(shape, axis)
        add_case(x, shape, axis, dt, sch, rr=rr, qrange=qr, neg_axis=t % 2 == 1,
                 tag="rr-" if rr else "range-")
    # zero points on exact ties (see per_tensor), one per channel
    x = np.zeros((6, 9), dtype=f32)
    for c in range(6):
        k, e = int(prng.integers(0, 60)), int(prng.integers(1, 9))
        lo = -(k + 0.5) * 2.0 ** -e
        x[c] = np.concatenate([[lo, lo + 255 * 2.0 ** -e],
                               prng.uniform(lo, lo + 255 * 2.0 ** -e, 7)])
    add_case(x, [6, 9], 0, "uint8", "affine", tag="zp-tie-")
    add_case(np.ascontiguousarray(x.T), [9, 6], 1, "uint8", "affine",
             neg_axis=True, tag="zp-tie-")
    # larger tensors
    x = channel_tensor([64, 3, 3, 3], 0, special=False)
    add_case(x, [64, 3, 3, 3], 0, "int8", "symmetric", tag="conv-")
    add_case(x, [64, 3, 3, 3], 0, "uint8", "affine", tag="conv-")
    add_case(x, [64, 3, 3, 3], 1, "int8", "affine", neg_axis=True, tag="conv-")
    x = channel_tensor([3, 4, 5, 6], 2)
    for axis in range(4):
        add_case(x, [3, 4, 5, 6], axis, ["int8", "uint8"][axis % 2],
                 ["affine", "symmetric"][axis // 2], neg_axis=axis == 3,
                 tag="3456-")
    x = channel_tensor([128, 256], 0, special=False)
    add_case(x, [128, 256], 0, "int8", "symmetric", tag="linear-")
    add_case(x, [128, 256], -1 + 2, "uint8", "affine", neg_axis=True,
             tag="linear-")
    # explicit parameters: exact ties per channel (power-of-two scales)
    for t in range(4):
        shape = [3, 8] if t % 2 == 0 else [2, 4, 3]
        axis = 0 if t < 2 else len(shape) - 1
        C = shape[axis]
        scales = np.array([2.0 ** -int(prng.integers(0, 8)) for _ in range(C)],
                          dtype=f32)
        dt = ["uint8", "int8"][t % 2]
        lo, hi = DTYPES[dt][:2]
        zps = prng.integers(lo // 8, hi // 8 + 1, C).astype(np.int64)
        kk = prng.integers(-20, 20, shape).astype(np.float64) + 0.5
        bshape = [1] * len(shape)
        bshape[axis] = C
        x = (kk * scales.reshape(bshape)).astype(f32)
        add_case(x, shape, axis, dt, "affine", params=(scales, zps), tag="tie-",
                 neg_axis=t == 3)
    # ONNX backend test test_quantizelinear_axis (axis 1, uint8)
    return w, counts


def onnx_axis_case():
    x = np.array([[[[-162, 10], [-100, 232], [-20, -50]],
                   [[-76, 0], [0, 252], [32, -44]],
                   [[245, -485], [-960, -270], [-375, -470]]]], dtype=f32)
    scales = np.array([2, 4, 5], dtype=f32)
    zps = np.array([84, 24, 196], dtype=np.int64)
    y = (x / scales.reshape(1, 3, 1, 1) + zps.reshape(1, 3, 1, 1)).astype(np.uint8)
    # the same with rint + saturation (what QuantizeLinear specifies)
    q = np.clip(np.rint(x / scales.reshape(1, 3, 1, 1)).astype(np.int64)
                + zps.reshape(1, 3, 1, 1), 0, 255)
    assert np.array_equal(q, y.astype(np.int64))
    deq = ((q - zps.reshape(1, 3, 1, 1)).astype(f32)
           * scales.reshape(1, 3, 1, 1)).astype(f32)
    return x, scales, zps, q, deq


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    os.makedirs(DATA, exist_ok=True)
    w, counts = per_tensor()
    w.write(os.path.join(DATA, "ref_per_tensor.tcl"), """
Per-tensor reference cases.  ref_tensor_x: input id -> float32 LE hex.
ref_tensor_cases: one dict per case.  name: test name prefix; src: torch, onnx
or spec (see gen_reference.py); x, n: input and element count; pargs: the
optional SQL arguments of q_scale/q_zero_point (absent: no parameter check);
qargs: of quantize_blob and q_fake_quantize; dargs: of dequantize_blob;
scale: float32 bits; zp; codes: quantize_blob hex; deq: dequantized float32
hex (also the expected q_fake_quantize).  "crc32:LEN:CRC" means the blob is
too big to store: its length and zlib crc32.
""", "ref_tensor_x", "ref_tensor_cases")
    print("per-tensor:", len(w.cases), "cases", counts)

    w2, counts2 = per_channel()
    x, scales, zps, q, deq = onnx_axis_case()
    w2.cases.append(dict(
        name="ref-channel-uint8-onnx-axis-%d" % len(w2.cases), src="onnx",
        x=w2.x_id(x.reshape(-1)), shape="[1,3,3,2]", axis=1, pargs="-",
        qargs=sql_args("uint8", "rounding=onnx"), dargs=sql_args("uint8"),
        fargs=sql_args("uint8", "rounding=onnx"),
        scales=hexs(scales.astype("<f4").tobytes()),
        zps=hexs(zps.astype("<i4").tobytes()),
        codes=hexs(code_bytes(q.reshape(-1), "uint8")),
        deq=hexs(deq.reshape(-1).astype("<f4").tobytes())))
    w2.write(os.path.join(DATA, "ref_per_channel.tcl"), """
Per-channel reference cases.  ref_channel_x: input id -> float32 LE hex.
ref_channel_cases: one dict per case.  shape: JSON; axis: as passed to SQL
(may be negative); pargs: optional arguments of q_per_channel_scales /
_zero_points ("-": explicit parameters, no parameter check); qargs: of
quantize_per_channel_blob; fargs: of q_fake_quantize_per_channel; dargs: of
dequantize_per_channel_blob; scales: float32 LE hex; zps: int32 LE hex;
codes, deq: expected hex or "crc32:LEN:CRC".
""", "ref_channel_x", "ref_channel_cases")
    print("per-channel:", len(w2.cases), "cases", counts2)
    for f in ("ref_per_tensor.tcl", "ref_per_channel.tcl"):
        print(f, os.path.getsize(os.path.join(DATA, f)), "bytes")


if __name__ == "__main__":
    main()
