#!/usr/bin/python3
"""gen_halfs.py: reference data for halfs.test (float32 -> float16 / bfloat16).

    /usr/bin/python3 tests/gen_halfs.py > tests/data/halfs.tcl

Needs numpy (Debian python3-numpy).  The output is deterministic (fixed seed)
and committed, so the test suite itself needs neither Python nor numpy.

Inputs: about 20000 float32 bit patterns chosen to cover every exponent
(subnormals, normals, inf), the f16 and bf16 rounding boundaries (exact
halfway ties, one ulp either side), the f16 subnormal range, overflow to inf
in both formats, and NaNs with assorted payloads.

Expected values:
  * f16: numpy's `a.astype(np.float16)` (round to nearest, ties to even,
    overflow to inf, gradual underflow).  It is cross-checked here against
    Python's own binary16 packing (struct 'e', from the exact double) for every
    finite value that does not overflow.
  * bf16: numpy has no bfloat16, so it is computed with integer arithmetic:
    round the float32 bits to the upper 16 bits, nearest, ties to even
    (u + 0x7fff + ((u >> 16) & 1)) >> 16.  It is cross-checked here against
    an exact comparison of the distances to the two bf16 neighbours.
  * NaN inputs are kept apart: numpy's float16 conversion does not quiet a
    signalling NaN (0x7f800001 -> 0x7c01), which docs/NUMERICS.md#half-formats forbids ("NaN stays
    NaN, quiet"), so halfs.test checks NaN results for NaN-ness, quietness and
    sign instead of exact bits.
"""
import struct
import sys

import numpy as np

SEED = 20240517
rng = np.random.default_rng(SEED)

inputs = []  # uint32 bit patterns


def add(u):
    inputs.append(int(u) & 0xFFFFFFFF)


def add_both_signs(u):
    add(u)
    add(u | 0x80000000)


# 1. Every float32 exponent (0..255), random mantissas and signs.
for e in range(256):
    for _ in range(18):
        m = int(rng.integers(0, 1 << 23))
        s = int(rng.integers(0, 2))
        add((s << 31) | (e << 23) | m)
    add(e << 23)                      # mantissa 0
    add((e << 23) | 0x7FFFFF)         # mantissa all ones

# 2. f16 normal range (f32 exponents 113..142): ties on the 13 dropped bits,
#    one ulp either side, for odd and even kept mantissas.
for _ in range(1000):
    e = int(rng.integers(113, 143))
    kept = int(rng.integers(0, 1 << 10))
    base = (e << 23) | (kept << 13)
    for d in (0x1000 - 1, 0x1000, 0x1000 + 1):
        add_both_signs(base | d)

# 3. f16 subnormal range: exact halfway points k+0.5 ulps (ulp = 2^-24) and
#    their neighbours; f32 exponents 102..112.
for _ in range(500):
    k = int(rng.integers(0, 1024))
    v = np.float32((k + 0.5) * 2.0 ** -24)   # exact in float32
    u = int(v.view(np.uint32))
    for d in (-1, 0, 1):
        add_both_signs(u + d)

# 4. f16 boundaries: overflow (65504, the 65520 tie), underflow to zero
#    (2^-25 tie), smallest normal.
for v in (65504.0, 65519.0, 65520.0, 65536.0, 2.0 ** -25, 2.0 ** -24,
          2.0 ** -14, 6.0975552e-05, 1.0, 2.0 ** 15):
    u = int(np.float32(v).view(np.uint32))
    for d in range(-3, 4):
        add_both_signs(u + d)

# 5. bf16: ties on the 16 dropped bits, for odd and even kept mantissas, over
#    all exponents (subnormals included: bf16 keeps them).
for _ in range(900):
    hi = int(rng.integers(0, 0x7F80))          # finite bf16 magnitudes
    for d in (0x7FFF, 0x8000, 0x8001):
        add_both_signs((hi << 16) | d)

# 6. bf16 overflow: near FLT_MAX.
for u in range(0x7F7F7FFD, 0x7F7F8003):
    add_both_signs(u)
add_both_signs(0x7F7FFFFF)

# 7. Specials: zeros, infinities.
for u in (0x00000000, 0x7F800000, 0x00000001, 0x00800000):
    add_both_signs(u)

# 8. NaNs: quiet and signalling, assorted payloads (some only in low bits).
nans = [0x7FC00000, 0x7F800001, 0x7F801FFF, 0x7F802000, 0x7FBFFFFF,
        0x7FFFFFFF, 0x7FC00001, 0x7FA00000, 0x7F800100, 0x7F810000]
for _ in range(40):
    nans.append(0x7F800000 | int(rng.integers(1, 1 << 23)))
nans += [u | 0x80000000 for u in nans]


def f16_bits_numpy(us):
    a = np.array(us, dtype=np.uint32).view(np.float32)
    with np.errstate(over='ignore', invalid='ignore'):
        return [int(h) for h in a.astype(np.float16).view(np.uint16)]


def f16_bits_struct(u):
    v = float(np.uint32(u).view(np.float32))
    return struct.unpack('<H', struct.pack('<e', v))[0]


def bf16_bits(u):
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_bits_by_distance(u):
    # Independent check: exact distances to the two candidates, ties to even.
    sign = u & 0x80000000
    mag = u & 0x7FFFFFFF
    lo = mag & 0xFFFF0000
    hi = lo + 0x10000
    x = float(np.uint32(mag).view(np.float32))
    a = float(np.uint32(lo).view(np.float32))
    if hi == 0x7F800000:
        # Rounding up past the largest bf16: IEEE treats 2^128 as the next
        # value (and the result is inf).
        b = 2.0 ** 128
    else:
        b = float(np.uint32(hi).view(np.float32))
    da, db = x - a, b - x
    if da < db or (da == db and ((lo >> 16) & 1) == 0):
        r = lo
    else:
        r = hi
    return ((sign | r) >> 16) & 0xFFFF


def is_nan(u):
    return (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF) != 0


# De-duplicate, keep a fixed order, NaNs apart.
seen = set()
finite = []
for u in inputs:
    if u in seen or is_nan(u):
        continue
    seen.add(u)
    finite.append(u)

f16 = f16_bits_numpy(finite)
bf16 = [bf16_bits(u) for u in finite]

for u, h, b in zip(finite, f16, bf16):
    mag = u & 0x7FFFFFFF
    if mag < 0x477FF000:                    # below the f16 overflow threshold
        assert h == f16_bits_struct(u), hex(u)
    if mag < 0x7F800000:
        assert b == bf16_bits_by_distance(u), hex(u)

nan_f16 = f16_bits_numpy(nans)


def hex32(us):
    return b''.join(struct.pack('<I', u) for u in us).hex().upper()


def hex16(hs):
    return b''.join(struct.pack('<H', h) for h in hs).hex().upper()


def emit(name, text, out):
    out.write('set %s [join {\n' % name)
    for i in range(0, len(text), 120):
        out.write(text[i:i + 120] + '\n')
    out.write('} ""]\n')


out = sys.stdout
out.write('# halfs.tcl: generated by tests/gen_halfs.py (seed %d); do not edit.\n'
          % SEED)
out.write('# float32 inputs (little-endian hex) and their f16 / bf16 roundings.\n')
out.write('set halfs_count %d\n' % len(finite))
emit('halfs_f32', hex32(finite), out)
emit('halfs_f16', hex16(f16), out)
emit('halfs_bf16', hex16(bf16), out)
out.write('# NaN inputs: results must be NaN, quiet and keep the sign.\n')
out.write('set halfs_nan_count %d\n' % len(nans))
emit('halfs_nan_f32', hex32(nans), out)
sys.stderr.write('%d finite inputs, %d NaNs; numpy kept %d of the NaNs '
                 'signalling\n' % (len(finite), len(nans),
                                   sum(1 for h in nan_f16 if not h & 0x0200)))
