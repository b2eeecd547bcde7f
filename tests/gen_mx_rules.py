#!/usr/bin/python3
"""Expected mxfp4 blocks under each producer's shared-exponent rule
(docs/NUMERICS.md#mx-shared-exponent-rules), for tests/mx_rules.test.

How to rerun (Debian 12, numpy 1.24):
    make ggml-lib        # build/ggml/libggml-base.so, for the ggml rule
    /usr/bin/python3 tests/gen_mx_rules.py [LIB] [OUT]
OUT defaults to tests/data/mx_rules.txt.  Deterministic (fixed seed).

Each rule is computed here independently of the extension's C code, in
numpy, from each producer's own definition:
  ggml           ggml's quantize_row_mxfp4_ref itself (LIB, through ctypes)
  ocp            OCP MX v1.0 section 6.3: X = 2^(floor(log2 amax) - 2), the
                 floor exact (frexp), clamped to E8M0's -127..127, amax 0 ->
                 byte 0; elements x / X to FP4 E2M1, round to nearest even,
                 saturating (torchao's converter below)
  torchao-*      torchao's to_mx (torchao/prototype/mx_formats/mx_tensor.py)
                 with elem_dtype float4_e2m1fn_x2 and scaling_mode FLOOR /
                 CEIL / EVEN / RCEIL, ported operation for operation on the
                 float32 bits: the scale byte, the reciprocal scale
                 (_e8m0_scale_to_reciprocal_fp32), data * reciprocal, then
                 _f32_to_floatx_unpacked(ebits 2, mbits 1)
  mlx            MLX's mx.quantize(mode="mxfp4") (mlx/ops.cpp fallback):
                 scale = amax / 6, exponent rint(log2 scale) (0 for a zero
                 scale; log2 in float32, here float64 rounded to float32),
                 byte (n + 127) mod 256, elements the argmin over the 16 E2M1
                 values of |x / 2^n - value| (the first one on ties)
All in ggml's block_mxfp4 layout: the E8M0 byte, then byte j = code j |
code j+16 << 4.  torchao's FLOOR writes the same bytes as ocp (checked
here on every case), so it has no name of its own.

Format: "cases N", then per case
    case NAME RULE N      x HEX (N float32)      q HEX      end
"""
import ctypes
import os
import sys

import numpy as np

LIB = sys.argv[1] if len(sys.argv) > 1 else "build/ggml/libggml-base.so"
OUT = sys.argv[2] if len(sys.argv) > 2 else "tests/data/mx_rules.txt"
SEED = 20261203
RULES = ["ggml", "ocp", "torchao-rceil", "torchao-ceil", "torchao-even", "mlx"]

lib = ctypes.CDLL(os.path.abspath(LIB))
fptr = ctypes.POINTER(ctypes.c_float)
lib.quantize_row_mxfp4_ref.restype = None
lib.quantize_row_mxfp4_ref.argtypes = [fptr, ctypes.c_void_p, ctypes.c_int64]

F32 = np.float32
I32 = np.int32


def bits(a):
    return np.asarray(a, dtype="<f4").view("<i4").astype(np.int64)


def from_bits(b):
    return np.asarray(np.asarray(b, dtype=np.int64) & 0xFFFFFFFF,
                      dtype="<u4").view("<f4")


def pack(e, codes):
    codes = np.asarray(codes, dtype=np.uint8)
    return bytes([int(e)]) + bytes((codes[:16] | (codes[16:] << 4)).tolist())


# ---- torchao's FP4 converter (_f32_to_floatx_unpacked, ebits 2, mbits 1) --
def torchao_f4(x):
    x = np.asarray(x, dtype="<f4")
    xi = bits(x)
    sign = xi & 0x80000000
    xi = xi ^ sign
    xa = from_bits(xi)
    with np.errstate(invalid="ignore"):
        sat = xa >= F32(6.0)
        den = ~sat & (xa < F32(1.0))
    norm = ~(sat | den)
    denorm_int = 149 << 23
    with np.errstate(over="ignore"):
        dx = bits(from_bits(xi) + from_bits(denorm_int)) - denorm_int
    dx = dx & 0xFF
    nx = xi.copy()
    mant_odd = (nx >> 22) & 1
    nx = nx + (((1 - 127) << 23) + ((1 << 21) - 1)) + mant_odd
    nx = ((nx & 0xFFFFFFFF).astype(np.uint32).view(np.int32).astype(np.int64) >> 22) & 0xFF
    out = np.full(x.shape, 7, dtype=np.int64)
    out = np.where(den, dx, out)
    out = np.where(norm, nx, out)
    sign_lp = (sign >> 28) & 8
    return (out | sign_lp).astype(np.uint8)


def torchao_block(x, mode):
    amax = F32(np.max(np.abs(x)))
    b = int(bits(amax))
    if mode == "rceil":
        descale = F32(amax * F32(1.0 / 6.0))
        db = int(bits(descale))
        field, mant = (db >> 23) & 0xFF, db & 0x7FFFFF
        up = (mant > 0x400000) if field == 0 else (mant != 0)
        e = field + int(up) if np.isfinite(descale) else 255
    else:
        if mode == "even":
            b = (b + (1 << 21)) & 0xFF800000
            amax = from_bits(b)[()]
        pow2 = ((b >> 23) & 0xFF) - 127
        if mode == "ceil":
            pow2 += int((b & 0x7FFFFF) > 0)
        e = min(max(pow2 - 2, -127), 128) + 127
        if not np.isfinite(amax):
            e = 255
    recip = (254 - e) & 0xFF
    rb = recip << 23
    if recip == 0:
        rb = 0x00400000
    if recip == 255:
        rb = 0x7F800001
    inv = from_bits(rb)[()]
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        y = (x * inv).astype("<f4")
    return pack(e, torchao_f4(y))


def ocp_block(x):
    amax = float(np.max(np.abs(x)))
    if amax == 0.0:
        e = 0
    else:
        _, ex = np.frexp(amax)          # amax = m * 2^ex, m in [0.5, 1)
        e = min(max(int(ex) - 1 - 2, -127), 127) + 127
    inv = F32(np.ldexp(1.0, 127 - e))
    with np.errstate(under="ignore", over="ignore"):
        y = (x * inv).astype("<f4")
    return pack(e, torchao_f4(y))


# E2M1 values (exponent bits 2-1, bias 1; mantissa bit 0), in code order.
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                 -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], dtype="<f4")


def mlx_block(x):
    amax = F32(np.max(np.abs(x)))
    s = F32(amax / F32(6.0))
    if s == 0:
        n = 0
    else:
        n = int(np.rint(F32(np.log2(np.float64(s)))))
    scale = F32(np.ldexp(np.float64(1.0), n))
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        wq = (x / scale).astype("<f4")
        err = np.abs(wq[:, None] - E2M1[None, :]).astype("<f4")
    codes = np.argmin(err, axis=1)
    return pack((n + 127) & 0xFF, codes)


def ggml_row(x):
    x = np.ascontiguousarray(x, dtype="<f4")
    out = ctypes.create_string_buffer(len(x) // 32 * 17)
    lib.quantize_row_mxfp4_ref(x.ctypes.data_as(fptr), out, len(x))
    return out.raw


def rule_row(rule, x):
    if rule == "ggml":
        return ggml_row(x)
    out = b""
    for b in range(0, len(x), 32):
        blk = x[b:b + 32]
        if rule == "ocp":
            q = ocp_block(blk)
            assert q == torchao_block(blk, "floor"), "torchao FLOOR != ocp"
        elif rule == "mlx":
            q = mlx_block(blk)
        else:
            q = torchao_block(blk, rule.split("-")[1])
        out += q
    return out


rng = np.random.default_rng(SEED)


def f32(a):
    with np.errstate(over="ignore", under="ignore"):
        return np.asarray(a, dtype=np.float64).astype("<f4")


def fam_random(n):
    return f32(rng.normal(0, 10.0 ** rng.uniform(-3, 3), n))


def fam_ties(n):
    # Values on E2M1 midpoints times a power of two (ties of the element
    # rounding) and on the grid itself.
    mids = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 0.5, 1.0, 3.0, 6.0])
    v = np.zeros(n)
    for b in range(0, n, 32):
        k = int(rng.integers(-10, 10))
        v[b:b + 32] = rng.choice(mids, 32) * rng.choice([-1, 1], 32) * 2.0 ** k
    return f32(v)


def fam_nearpow2(n):
    # Block extremes at or a few steps below a power of two, or near
    # 6 * 2^k and sqrt(2) * 6 * 2^k (where RCEIL and MLX's rounding turn).
    v = np.zeros(n, dtype="<f4")
    for b in range(0, n, 32):
        k = int(rng.integers(-120, 120))
        base = rng.choice([1.0, 6.0, 6.0 * np.sqrt(2.0), 1.75, 1.5])
        a = f32(base * 2.0 ** k)
        a = from_bits(bits(a) - int(rng.integers(-3, 4)))[()]
        blk = f32(rng.uniform(-1, 1, 32) * float(a))
        blk[rng.integers(32)] = a * rng.choice([-1, 1])
        v[b:b + 32] = blk
    return v


def fam_zero(n):
    v = np.zeros(n)
    v[rng.random(n) < 0.5] = -0.0
    v[: n // 2] = f32(rng.normal(0, 1e-3, n // 2))   # small: codes +-0
    v[0] = 1.0
    return f32(v)


def fam_tiny(n):
    return f32(rng.normal(0, 10.0 ** rng.choice([-36, -39, -42, -44]), n))


def fam_huge(n):
    # FLT_MAX's range: torchao-even's rounded amax overflows above
    # 1.75 * 2^127.
    fmax = float(np.finfo(np.float32).max)
    v = rng.uniform(-1, 1, n) * fmax
    for b in range(0, n, 32):
        v[b] = rng.choice([fmax, 1.8 * 2.0 ** 127, 1.7 * 2.0 ** 127, 2.0 ** 127])
    return f32(v)


FAMILIES = [("random", fam_random), ("ties", fam_ties),
            ("nearpow2", fam_nearpow2), ("zero", fam_zero), ("tiny", fam_tiny),
            ("huge", fam_huge)]

cases = []
for fname, fam in FAMILIES:
    for k in range(2):
        n = 32 * int(rng.choice([1, 4, 8]))
        x = fam(n)
        for rule in RULES:
            cases.append((f"{fname}{k}-{rule}", rule, x, rule_row(rule, x)))

with open(OUT, "w", newline="\n") as f:
    f.write("# Generated by tests/gen_mx_rules.py -- do not edit by hand.\n")
    f.write(f"# seed {SEED}; replayed by tests/mx_rules.test.\n")
    f.write(f"cases {len(cases)}\n")
    for name, rule, x, q in cases:
        f.write(f"case {name} {rule} {len(x)}\n")
        f.write(f"x {x.tobytes().hex().upper()}\n")
        f.write(f"q {q.hex().upper()}\n")
        f.write("end\n")
print(f"{OUT}: {len(cases)} cases")
