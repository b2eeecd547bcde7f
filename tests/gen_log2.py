#!/usr/bin/python3
"""Reference vectors for the log2 scheme (docs/NUMERICS.md#logarithmic-log2).

How to rerun:  /usr/bin/python3 tests/gen_log2.py
Deterministic (fixed seeds); writes tests/data/log2.tcl, which
tests/log2.test replays, so `make test` needs no numpy.

The semantics are implemented here independently of the C code: no bit
tricks on the float32 encoding, no fraction-bit constant.  For v > 0,
np.frexp gives v = f * 2^e with 0.5 <= f < 1 (subnormals included, exactly),
so m = 2f and E = e - 1; m >= sqrt(2) is decided as m*m >= 2 in float64,
which is exact because m has at most 24 significant bits.  Powers of two are
np.ldexp(1.0, n) in float64 (exact), converted to float32 by numpy's
round-to-nearest-even (so 2^-150 and below become zero).
"""
import os
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "log2.tcl")
KMAX = {"int8": 127, "int4": 7}


def rlog2(v):
    """v: a positive finite float32 (as a Python float, exact)."""
    f, e = np.frexp(np.float64(v))
    m = 2.0 * float(f)
    return int(e) - 1 + (1 if m * m >= 2.0 else 0)


def emax_of(values):
    a = max((abs(float(v)) for v in values), default=0.0)
    if a == 0.0:
        return 0
    return min(127, max(-126, rlog2(a)))


def pow2_f32(n):
    return np.float32(np.ldexp(np.float64(1.0), n))


def code(x, emax, kmax):
    x = np.float32(x)
    if np.isnan(x):
        raise ValueError("NaN")
    if x == 0:
        return 0
    neg = bool(np.signbit(x))
    if np.isinf(x):
        k = 1
    else:
        k = emax + 1 - rlog2(abs(float(x)))
        if k < 1:
            k = 1
        if k > kmax:
            k = 0
    return -k if neg else k


def value(q, emax):
    if q == 0:
        return np.float32(0.0)
    v = pow2_f32(emax + 1 - abs(q))
    return np.float32(-v) if q < 0 else v


def f32hex(a):
    return np.asarray(a, dtype="<f4").tobytes().hex().upper()


def codes_hex(codes, dtype):
    c = np.asarray(codes, dtype=np.int64)
    if dtype == "int8":
        return (c & 0xFF).astype(np.uint8).tobytes().hex().upper()
    nib = (c & 0xF).astype(np.uint8)
    if len(nib) % 2:
        nib = np.append(nib, np.uint8(0))
    return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).tobytes().hex().upper()


def groups_of(shape, axis, block):
    """Group index of every element (row-major) and the group count."""
    if axis is None:
        return np.zeros(int(np.prod(shape)), dtype=np.int64), 1
    idx = np.indices(shape)
    along = idx[axis]
    if block is None:
        return along.reshape(-1), shape[axis]
    nb = -(-shape[axis] // block)
    outer = int(np.prod(shape[:axis]))
    inner = int(np.prod(shape[axis + 1:]))
    o = np.ravel_multi_index(idx[:axis], shape[:axis]) if axis else np.zeros(shape, dtype=np.int64)
    i = np.ravel_multi_index(idx[axis + 1:], shape[axis + 1:]) if axis + 1 < len(shape) else np.zeros(shape, dtype=np.int64)
    g = o * (nb * inner) + (along // block) * inner + i
    return g.reshape(-1), outer * nb * inner


def tcl_val(v):
    return "{%s}" % v


cases = []


def add_case(name, x, dtype, shape=None, axis=None, block=None, emaxes=None,
             params=True):
    """emaxes: given exponents per group (None: from the data's min/max)."""
    x = np.asarray(x, dtype=np.float32).reshape(-1)
    shape = list(shape) if shape is not None else [len(x)]
    g, ng = groups_of(shape, axis, block)
    if emaxes is None:
        emaxes = [emax_of(x[g == j]) for j in range(ng)]
    kmax = KMAX[dtype]
    q = [code(x[i], emaxes[g[i]], kmax) for i in range(len(x))]
    y = [value(q[i], emaxes[g[i]]) for i in range(len(x))]
    gran = "tensor" if axis is None else ("channel" if block is None else "block")
    c = {"name": name, "x": f32hex(x), "dtype": dtype, "gran": gran,
         "codes": codes_hex(q, dtype), "deq": f32hex(y),
         "params": 1 if params else 0}
    if gran == "tensor":
        c["scale"] = "0x%08X" % np.float32(pow2_f32(emaxes[0])).view(np.uint32)
    else:
        c["scales"] = f32hex([pow2_f32(e) for e in emaxes])
        layout = "'%s', %d" % (str(shape).replace(" ", ""), axis)
        if block is not None:
            layout += ", %d" % block
        c["layout"] = layout
    cases.append(c)


rng = np.random.default_rng(20261130)
for dtype in ("int8", "int4"):
    # Ordinary weights with zeros and a negative zero.
    w = (rng.standard_normal(40) * 0.7).astype(np.float32)
    w[[3, 17, 30]] = 0.0
    w[25] = -0.0
    add_case("normal-%s" % dtype, w, dtype)
    # A wide dynamic range: from subnormals to 1e38.
    mags = 10.0 ** rng.uniform(-44, 38, 48)
    signs = rng.choice([-1.0, 1.0], 48)
    add_case("wide-%s" % dtype, (mags * signs).astype(np.float32), dtype)
    # Every magnitude between 2^-8 and 2^8 at the sqrt(2) boundary: the
    # float32 just below and just above sqrt(2) * 2^E.
    b = []
    for E in range(-8, 8):
        lo = np.float32(np.ldexp(np.float64(1 + 0x3504F3 / 2**23), E))
        hi = np.float32(np.ldexp(np.float64(1 + 0x3504F4 / 2**23), E))
        b += [lo, -hi, hi, -lo]
    add_case("sqrt2-%s" % dtype, b, dtype)
    # Subnormals, including both sides of sqrt(2) after normalising.
    sub = np.array([1, 2, 3, 5, 6, 7, 11, 12, 0x5A827, 0x5A828, 0x7FFFFF,
                    0x6A09E, 0x6A09F, 0x400000], dtype=np.uint32).view(np.float32)
    add_case("subnormal-%s" % dtype, np.concatenate([sub, -sub]), dtype)
    # The largest float32s: emax clamps to 127, FLT_MAX saturates.
    big = np.array([3.4028235e38, -3.0e38, 2.0e38, 1.7e38, 1.0e38, 1.0], dtype=np.float32)
    add_case("huge-%s" % dtype, big, dtype)
    # Saturation and underflow with a given scale (no parameter check).
    s = np.array([1000.0, -64.0, 16.0, 15.9, 11.4, 11.3, 1.0, 0.25, 1e-3,
                  -1e-6, 1e-20, -1e-37, 3e-39, 1e-45, np.inf, -np.inf, 0.0,
                  -0.0], dtype=np.float32)
    for e in (4, -20, -126, 127):
        add_case("given-%d-%s" % (e, dtype), s, dtype, emaxes=[e], params=False)
    # All zeros: scale 1.
    add_case("zeros-%s" % dtype, np.zeros(5, np.float32), dtype)
    # Per channel and per block.
    m = (rng.standard_normal(15) * np.array([1, 1, 1, 1, 1, 100, 100, 100, 100, 100,
                                             1e-3, 1e-3, 1e-3, 1e-3, 1e-3])).astype(np.float32)
    add_case("ch0-%s" % dtype, m, dtype, shape=[3, 5], axis=0)
    add_case("ch1-%s" % dtype, m, dtype, shape=[3, 5], axis=1)
    t = (rng.standard_normal(24) * 3).astype(np.float32)
    t[5] = 0.0
    add_case("ch3d-%s" % dtype, t, dtype, shape=[2, 3, 4], axis=1)
    add_case("ch3d-last-%s" % dtype, t, dtype, shape=[2, 3, 4], axis=-1 + 3)
    add_case("blk-%s" % dtype, t, dtype, shape=[2, 12], axis=1, block=5)
    add_case("blk0-%s" % dtype, t, dtype, shape=[6, 4], axis=0, block=4)
    # Per channel with given scales: saturation and underflow per channel.
    add_case("chgiven-%s" % dtype, m, dtype, shape=[3, 5], axis=0,
             emaxes=[-3, 0, 10], params=False)

# Every int8 byte, dequantized at a few exponents (codes the quantizer never
# writes, -128, included): subnormal results and underflow to a signed zero.
deq_cases = []
all_codes = list(range(-128, 128))
for e in (-126, -100, -20, 0, 127):
    deq_cases.append({"name": "all-int8-e%d" % e, "dtype": "int8",
                      "q": codes_hex(all_codes, "int8"),
                      "scale": "0x%08X" % pow2_f32(e).view(np.uint32),
                      "deq": f32hex([value(q, e) for q in all_codes])})
nib = list(range(-8, 8))
for e in (-126, 5):
    deq_cases.append({"name": "all-int4-e%d" % e, "dtype": "int4",
                      "q": codes_hex(nib, "int4"),
                      "scale": "0x%08X" % pow2_f32(e).view(np.uint32),
                      "deq": f32hex([value(q, e) for q in nib])})


def tcl_dict(c):
    return "  {" + " ".join("%s %s" % (k, tcl_val(v)) for k, v in c.items()) + "}"


with open(OUT, "w") as f:
    f.write("# Generated by tests/gen_log2.py -- do not edit by hand.\n")
    f.write("# log2_cases: x (float32 LE hex), dtype, gran (tensor, channel, block),\n")
    f.write("# layout (the SQL layout arguments), scale (float32 bits) or scales\n")
    f.write("# (float32 LE hex), codes and deq (hex), params (1: the scales are\n")
    f.write("# also what the parameter functions choose).  log2_deq_cases: codes q\n")
    f.write("# dequantized with one scale.\n")
    f.write("set log2_cases {\n" + "\n".join(tcl_dict(c) for c in cases) + "\n}\n")
    f.write("set log2_deq_cases {\n" + "\n".join(tcl_dict(c) for c in deq_cases) + "\n}\n")
print("wrote", OUT, len(cases), "cases,", len(deq_cases), "dequantize cases")
