#!/usr/bin/python3
"""Reference vectors for the tutorial's formula (docs/NUMERICS.md#the-tutorials-formula).

How to rerun (Debian 12, numpy only):
    /usr/bin/python3 tests/gen_tutorial.py
Deterministic (fixed seed): rerunning rewrites the same bytes of
    tests/data/ref_tutorial.tcl      replayed by tests/tutorial.test
which is plain Tcl source, committed, so `make test` needs no numpy.

The formula, implemented literally here (not from the extension's code):
    min, max  = the float32 data's own min and max, as doubles (include_zero=0),
                or widened to hold 0 (include_zero=1); a zero-width range is
                widened to hold 0 either way (the tutorial would divide by 0),
                and [0, 0] gets scale 2^-23 and zero point qmin
    scale     = (max - min) / (qmax - qmin)                 double
    zp        = clip(round_half_even(qmin - min / scale), qmin, qmax)  double
    scale32   = float32(scale)
    codes     = clip(rint(float32(float32(x / scale32) + float32(zp))), qmin, qmax)
    fake      = float32(scale32 * float32(code - zp))
Symmetric under params=double (our extension of it, no tutorial behind it):
    scale = max(|min|, |max|) / ((qmax - qmin) / 2) in double, zp as the
    float32 rules (0 for signed dtypes, 128 for uint8, else (qmin+qmax)//2).
params=float32 include_zero=0 (PyTorch's float32 arithmetic on the data's own
range) is also generated for one case, with rounding=torch codes.

Cases: the issue's worked example; seeded uniform tensors for int8, uint8,
int16, uint16, int4 and uint4 over ranges that straddle 0, lie above it and lie
below it; tie cases whose x / scale is exactly k + 1/2 (and one float32 step
either side) with odd and even zero points, where round(x/scale + zp) and
round(x/scale) + zp differ; a zero-width range; per-channel tensors on axis 0
(runs) and on the last axis (the interleaved kernels).
"""
import os
import numpy as np

f32 = np.float32
DTYPES = {  # name: (qmin, qmax, numpy code type or None for 4-bit)
    "int8": (-128, 127, np.int8), "uint8": (0, 255, np.uint8),
    "int16": (-32768, 32767, np.dtype("<i2")),
    "uint16": (0, 65535, np.dtype("<u2")),
    "int4": (-8, 7, None), "uint4": (0, 15, None),
}


def hexs(b):
    return b.hex().upper()


def f32_hex(a):
    return hexs(np.asarray(a, dtype="<f4").tobytes())


def f32_bits(v):
    return "0x%08X" % int(np.array([v], dtype="<f4").view("<u4")[0])


def codes_hex(q, dtype):
    qmin, qmax, t = DTYPES[dtype]
    q = np.asarray(q, dtype=np.int64)
    if t is not None:
        return hexs(q.astype(t).tobytes())
    nib = (q & 0xF).astype(np.uint8)
    if len(nib) % 2:
        nib = np.append(nib, np.uint8(0))
    return hexs((nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).tobytes())


def params(x, dtype, symmetric, include_zero, params_double):
    qmin, qmax, _ = DTYPES[dtype]
    mn, mx = float(x.min()), float(x.max())
    if include_zero or not mn < mx:
        mn, mx = min(mn, 0.0), max(mx, 0.0)
    if symmetric:
        zp = 0 if dtype.startswith("int") else (128 if dtype == "uint8" else (qmin + qmax) // 2)
        if params_double:
            s = max(-mn, mx) / ((qmax - qmin) / 2.0)
            return (f32(s) if s > 0 else f32(2.0 ** -23)), zp
        s = f32(max(-f32(mn), f32(mx))) / (f32(qmax - qmin) / f32(2))
        return max(f32(s), f32(2.0 ** -23)), zp
    if params_double:
        if mx == mn:
            return f32(2.0 ** -23), qmin
        s = (mx - mn) / float(qmax - qmin)
        zp = int(np.clip(np.round(qmin - mn / s), qmin, qmax))
        return f32(s), zp
    s = max(f32(f32(mx) - f32(mn)) / f32(qmax - qmin), f32(2.0 ** -23))
    zp = int(np.clip(qmin - np.round(f32(f32(mn) / s)), qmin, qmax))
    return s, zp


def codes(x, s, zp, dtype, tutorial):
    qmin, qmax, _ = DTYPES[dtype]
    with np.errstate(over="ignore"):
        t = (x / s).astype(f32)
        if tutorial:
            t = (t + f32(zp)).astype(f32)
            q = np.clip(np.rint(t), qmin, qmax)
        else:
            q = np.clip(np.rint(t) + zp, qmin, qmax)
    return q.astype(np.int64)


def fake(q, s, zp):
    return (f32(s) * (q - zp).astype(f32)).astype(f32)


def tcl_case(**kv):
    return "{" + " ".join("%s {%s}" % (k, v) for k, v in kv.items()) + "}"


cases = []


def add(name, x, dtype, scheme, opts, tutorial=True):
    x = np.asarray(x, dtype=f32)
    symmetric = scheme == "symmetric"
    s, zp = params(x, dtype, symmetric, "include_zero=0" not in opts,
                   "params=double" in opts)
    q = codes(x, s, zp, dtype, tutorial)
    qopts = "rounding=tutorial" if tutorial else ""
    cases.append(tcl_case(name=name, x=f32_hex(x), dtype=dtype, scheme=scheme,
                          popts=opts, qopts=qopts, scale=f32_bits(s), zp=zp,
                          codes=codes_hex(q, dtype), fake=f32_hex(fake(q, s, zp))))


TUT = "include_zero=0 params=double"
rng = np.random.default_rng(13)

add("example", [191.6, -13.5, 728.6, 92.14, 295.5, -184, 0, 684.6, 245.5],
    "int8", "affine", TUT)
for dtype in DTYPES:
    for kind, lo, hi in (("mixed", -3.0, 5.0), ("positive", 100.0, 200.0),
                         ("negative", -50.0, -10.0)):
        add("%s-%s" % (dtype, kind), rng.uniform(lo, hi, 101), dtype, "affine", TUT)
# include_zero=1 with double arithmetic: [100, 200] widened to [0, 200].
add("uint8-positive-widened", rng.uniform(100, 200, 37), "uint8", "affine",
    "params=double")
# PyTorch's float32 arithmetic on the data's own range, PyTorch's rounding.
add("uint8-positive-float32", rng.uniform(100, 200, 37), "uint8", "affine",
    "include_zero=0", tutorial=False)
add("int8-positive-float32-tutorial", rng.uniform(100, 200, 37), "int8", "affine",
    "include_zero=0")
# Symmetric under params=double: include_zero=0 changes nothing there.
add("int8-symmetric-double", rng.uniform(-2, 7, 45), "int8", "symmetric", TUT)
add("uint8-symmetric-double", rng.uniform(-2, 7, 45), "uint8", "symmetric", TUT)
# Zero-width ranges: [5, 5] is widened to [0, 5]; [0, 0] gets 2^-23.
add("constant", [5.0] * 9, "uint8", "affine", TUT)
add("constant-negative", [-5.0] * 9, "int8", "affine", TUT)
add("zeros", [0.0] * 5, "int8", "affine", TUT)


def ties(qmin_k, qmax_k, step):
    """A range [qmin_k*step, qmax_k*step] (scale = step exactly when the span
    is qmax - qmin steps) and values on, and one float32 step either side of,
    every half-way point k + 1/2."""
    ks = np.arange(qmin_k, qmax_k)
    if len(ks) > 512:                   # 16-bit: a spread sample of the ties
        ks = ks[::len(ks) // 256]
    t = ((ks + 0.5) * step).astype(f32)
    v = np.concatenate([[qmin_k * step, qmax_k * step], t,
                        np.nextafter(t, f32(np.inf)), np.nextafter(t, f32(-np.inf))])
    return v.astype(f32)


# int8, scale 0.25: the range [-31.75, 32] gives zp -1 (odd), [-32, 31.75] gives 0.
add("ties-int8-odd-zp", ties(-127, 128, 0.25), "int8", "affine", TUT)
add("ties-int8-even-zp", ties(-128, 127, 0.25), "int8", "affine", TUT)
add("ties-uint8-odd-zp", ties(-3, 252, 0.5), "uint8", "affine", TUT)
add("ties-int4-odd-zp", ties(-5, 10, 0.125), "int4", "affine", TUT)
add("ties-uint16-odd-zp", ties(-1001, 64534, 1.0), "uint16", "affine", TUT)

# Per channel: each channel's own range, the tutorial's parameters per channel.
ch_cases = []


def add_channel(name, x, axis, dtype, opts):
    x = np.asarray(x, dtype=f32)
    xm = np.moveaxis(x, axis, 0)
    sc, zs = [], []
    q = np.zeros(x.shape, dtype=np.int64)
    qm = np.moveaxis(q, axis, 0)
    for c in range(x.shape[axis]):
        s, zp = params(xm[c], dtype, False, "include_zero=0" not in opts,
                       "params=double" in opts)
        sc.append(s)
        zs.append(zp)
        qm[c] = codes(xm[c], s, zp, dtype, True)
    sc = np.array(sc, dtype=f32)
    zs = np.array(zs, dtype=np.int64)
    zb = np.moveaxis(np.broadcast_to(zs.reshape((-1,) + (1,) * (x.ndim - 1)),
                                     xm.shape), 0, axis)
    sb = np.moveaxis(np.broadcast_to(sc.reshape((-1,) + (1,) * (x.ndim - 1)),
                                     xm.shape), 0, axis)
    fk = (sb * (q - zb).astype(f32)).astype(f32)
    ch_cases.append(tcl_case(
        name=name, x=f32_hex(x.ravel()), shape="[%s]" % ",".join(map(str, x.shape)),
        axis=axis, dtype=dtype, popts=opts, scales=f32_hex(sc),
        zps=hexs(zs.astype("<i4").tobytes()), codes=codes_hex(q.ravel(), dtype),
        fake=f32_hex(fk.ravel())))


def channel_tensor(rows, cols, axis):
    """Channels along `axis` with ranges of every kind: mixed, above 0, below 0."""
    n = (rows, cols)[axis]
    lo = np.array([(-3.0, 100.0, -50.0)[c % 3] for c in range(n)])
    hi = np.array([(5.0, 200.0, -10.0)[c % 3] for c in range(n)])
    u = rng.uniform(0, 1, (rows, cols))
    if axis == 1:
        return lo + u * (hi - lo)
    return lo[:, None] + u * (hi - lo)[:, None]


add_channel("channel-last-int8", channel_tensor(13, 37, 1), 1, "int8", TUT)
add_channel("channel-last-uint8-7", channel_tensor(19, 7, 1), 1, "uint8", TUT)
add_channel("channel-last-int16", channel_tensor(5, 24, 1), 1, "int16", TUT)
add_channel("channel-first-uint8", channel_tensor(6, 70, 0), 0, "uint8", TUT)


def wrap(s):
    return "\n".join(s[i:i + 76] for i in range(0, len(s), 76))


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ref_tutorial.tcl")
with open(out, "w") as f:
    f.write("# Generated by tests/gen_tutorial.py: do not edit.\n")
    f.write("set tut_cases {\n%s\n}\n" % "\n".join(cases))
    f.write("set tut_channel_cases {\n%s\n}\n" % "\n".join(ch_cases))
print("wrote %s: %d per-tensor and %d per-channel cases" % (out, len(cases), len(ch_cases)))
