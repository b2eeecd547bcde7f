"""bnb4_ref.py: bitsandbytes' 4-bit formats (NF4, FP4) re-derived in numpy.

An independent reimplementation, written from what bitsandbytes' Python and
C++ code computes (bitsandbytes-foundation/bitsandbytes: functional.py's
get_4bit_type, create_normal_map, create_dynamic_map, quantize_4bit; the
default backend's quantize_4bit; csrc/cpu_ops.cpp's blockwise 8-bit CPU
quantizer), not a copy of it.  There is no bitsandbytes (nor PyTorch) on this
machine, so the quantizer's expected bytes come from here; the decoding is
checked against ONNX Runtime's MatMulBnb4 (tests/bnb4/ort_check.py).

Everything is float32 where bitsandbytes computes in float32; the steps
that PyTorch does in float32 are spelled out as numpy float32 operations in
the same order.  docs/NUMERICS.md#bitsandbytes-nf4-and-fp4 is the prose.
"""
import statistics

import numpy as np

f32 = np.float32
BLOCK_SIZES = (32, 64, 128, 256, 512, 1024, 2048, 4096)
NESTED_BLOCK = 256
TINY = f32(1e-38)        # the clamp of a ragged tail's absmax


def linspace_f32(start, end, steps):
    """torch.linspace(start, end, steps) in float32, its scalar rule: the
    first half counts up from start, the second down from end."""
    start, end = f32(start), f32(end)
    step = f32(end - start) / f32(steps - 1)
    step = f32(step)
    half = steps // 2
    out = []
    for i in range(steps):
        if i < half:
            out.append(f32(start + f32(step * f32(i))))
        else:
            out.append(f32(end - f32(step * f32(steps - i - 1))))
    return out


def nf4_table():
    """create_normal_map(0.9677083, use_extra_value=True): normal quantiles
    at float32 linspace points (8 positive, 7 negative, and 0), as float32,
    sorted, divided by the largest."""
    ppf = statistics.NormalDist().inv_cdf
    pos = [ppf(float(p)) for p in linspace_f32(0.9677083, 0.5, 9)[:-1]]
    neg = [-ppf(float(p)) for p in linspace_f32(0.9677083, 0.5, 8)[:-1]]
    v = np.array(sorted(np.array(pos + [0.0] + neg, dtype=f32)), dtype=f32)
    return (v / v.max()).astype(f32)


def fp4_table():
    """get_4bit_type('fp4'): a sign bit and three bits in bitsandbytes' own
    order, as float32 divided by its largest magnitude (12).  Of the three
    bits m = 0b(e1 e0 f): 0b000 is zero, 0b001 the one subnormal (1/16),
    and for e = 0b(e1 e0) = 1, 2, 3 the normals (1 + f/2) * 2^(4 - e)
    (0b010 = 8, 0b011 = 12, 0b100 = 4, 0b101 = 6, 0b110 = 2, 0b111 = 3)."""
    mag = [0.0, 0.0625] + [(1 + (m & 1) / 2) * 2.0 ** (4 - (m >> 1))
                           for m in range(2, 8)]
    data = np.array(mag + [-x for x in mag], dtype=f32)
    return (data / np.abs(data).max()).astype(f32)


def dynamic_map():
    """create_dynamic_map(signed=True, max_exponent_bits=7, total_bits=8):
    the 256 codes of bitsandbytes' blockwise 8-bit quantization, sorted."""
    data = []
    for i in range(7):
        items = 2 ** i + 1
        b = linspace_f32(0.1, 1.0, items)
        means = [f32(f32(b[j] + b[j + 1]) / f32(2.0)) for j in range(items - 1)]
        scale = f32(10.0 ** (-6 + i))
        data += [float(f32(scale * m)) for m in means]
        data += [float(f32(f32(-scale) * m)) for m in means]
    data += [0.0, 1.0]
    assert len(data) == 256
    data.sort()
    return np.array(data, dtype=f32)


def bounds(sorted_codes):
    """Midpoints between neighbouring sorted codes, in float32."""
    c = sorted_codes.astype(f32)
    return ((c[:-1] + c[1:]) / f32(2)).astype(f32)


def fp4_order():
    """argsort of the FP4 table, stable: code 0 (+0) before code 8 (-0)."""
    return np.argsort(fp4_table(), kind="stable")


def table(kind):
    return nf4_table() if kind == "nf4" else fp4_table()


def bucketize(s, b):
    """torch.bucketize(s, b, right=False): how many bounds are below s."""
    return np.searchsorted(b, s, side="left")


def quantize(x, kind, block):
    """quantize_4bit: (packed codes bytes, absmax float32 array)."""
    x = np.asarray(x, dtype=f32)
    n = x.size
    full = n - n % block
    codes_sorted = np.sort(table(kind), kind="stable")
    b = bounds(codes_sorted)
    am_list, scaled = [], []
    for s in range(0, full, block):
        blk = x[s:s + block]
        am = f32(np.abs(blk).max())
        inv = f32(f32(1.0) / max(am, TINY))
        am_list.append(am)
        scaled.append(np.clip((blk * inv).astype(f32), f32(-1), f32(1)))
    if full < n:
        blk = x[full:]
        am = max(f32(np.abs(blk).max()), TINY)
        am_list.append(am)
        scaled.append(np.clip((blk / am).astype(f32), f32(-1), f32(1)))
    s = np.concatenate(scaled) if scaled else np.zeros(0, dtype=f32)
    if s.size % 2:
        s = np.concatenate([s, np.zeros(1, dtype=f32)])
    q = bucketize(s, b)
    if kind == "fp4":
        q = fp4_order()[q]
    q = q.astype(np.uint8)
    packed = ((q[0::2] << 4) | q[1::2]).astype(np.uint8)
    return packed.tobytes(), np.array(am_list, dtype=f32)


def dequantize(packed, absmax, kind, block, n):
    p = np.frombuffer(packed, dtype=np.uint8)
    q = np.empty(p.size * 2, dtype=np.uint8)
    q[0::2] = p >> 4
    q[1::2] = p & 15
    v = table(kind)[q[:n]]
    a = np.repeat(np.asarray(absmax, dtype=f32), block)[:n]
    return (v * a).astype(f32)


def lut65536(code):
    """cpu_ops.cpp's direct table: 65536 bins of [-1, 1], each the index of
    the first code whose upper midpoint is not below the bin's value."""
    mid = (f32(0.5) * (code[:-1] + code[1:]).astype(f32)).astype(f32)
    i = np.arange(65536, dtype=np.int64)
    val = (f32(-1) + (f32(2) * i.astype(f32)) / f32(65535)).astype(f32)
    return np.searchsorted(mid, val, side="left").astype(np.uint8)


def lut_index(v):
    v = np.clip(v.astype(f32), f32(-1), f32(1))
    t = ((v + f32(1)) * f32(0.5)).astype(f32)
    t = (t * f32(65535)).astype(f32)
    t = (t + f32(0.5)).astype(f32)
    return t.astype(np.uint16)


def mean_offset(absmax):
    """The offset: the absmax summed in float64 in order, divided by their
    count in float64, rounded to float32 (PyTorch's float32 mean may differ
    in the last bit: docs/NUMERICS.md says so)."""
    s = 0.0
    for a in absmax:
        s += float(a)
    return f32(s / len(absmax))


def nest(absmax):
    """compress_statistics: offset, then blockwise 8-bit (block 256) of
    absmax - offset as bitsandbytes' CPU kernel does it.  Returns the nested
    BLOB: offset, one float32 absmax per 256, one uint8 code per absmax."""
    a = np.asarray(absmax, dtype=f32)
    off = mean_offset(a)
    d = (a - off).astype(f32)
    code = dynamic_map()
    lut = lut65536(code)
    am2, q = [], np.zeros(d.size, dtype=np.uint8)
    for s in range(0, d.size, NESTED_BLOCK):
        blk = d[s:s + NESTED_BLOCK]
        m = f32(0)
        for v in blk:
            m = max(m, f32(abs(v)))
        am2.append(m)
        if m == 0:
            continue
        inv = f32(f32(1) / m)
        q[s:s + blk.size] = lut[lut_index((blk * inv).astype(f32))]
    return (np.array([off], dtype="<f4").tobytes()
            + np.array(am2, dtype="<f4").tobytes() + q.tobytes())


def unnest(blob, m):
    groups = -(-m // NESTED_BLOCK)
    off = np.frombuffer(blob[:4], dtype="<f4")[0]
    am2 = np.frombuffer(blob[4:4 + 4 * groups], dtype="<f4").astype(f32)
    q = np.frombuffer(blob[4 + 4 * groups:], dtype=np.uint8)
    assert q.size == m
    code = dynamic_map()
    v = (code[q] * np.repeat(am2, NESTED_BLOCK)[:m]).astype(f32)
    return (v + off).astype(f32)
