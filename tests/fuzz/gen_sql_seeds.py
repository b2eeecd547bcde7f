#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sql.c (tests/fuzz/corpus/sql/).

    python3 tests/fuzz/gen_sql_seeds.py [OUTDIR]

Each seed is a short list of calls written in the target's input grammar (see
the comment at the top of fuzz_sql.c).  The arguments here use the explicit
kinds (NULL, INTEGER, REAL, TEXT, BLOB, zeroblob) so a seed means the same
SQL whatever the generators do later, plus a few AUTO arguments that start the
fuzzer inside the shape-driven generators.  Function indexes are read from
fuzz_sql.c's fns[] (tests/fuzz/fuzz_functions.h), so this file only names
functions.

To see a seed as SQL:  FUZZ_SQL_TRACE=1 build/fuzz_sql tests/fuzz/corpus/sql/NAME
"""
import math
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_fns():
    """name -> (index, kind, nmin) from fuzz_sql.c's fns[], the rows
    FUZZ_FNS of fuzz_functions.h (generated from ext/catalogue.toml)."""
    src = open(os.path.join(HERE, "fuzz_functions.h"), encoding="utf-8").read()
    table = src[src.index("#define FUZZ_FNS"):]
    table = table[:re.search(r"[^\\]\n", table).end()]
    fns = {}
    for m in re.finditer(r'\{"(\w+)", \'(\w)\', (\d+), (\d+),', table):
        fns[m.group(1)] = (len(fns), m.group(2), int(m.group(3)))
    return fns


FNS = read_fns()
# fuzz_sql.c maps a plain aggregate's variant v to these forms.
AGGREGATE_FORMS = [0, 1, 11]

# Argument kinds (the kind byte of the grammar).
K_AUTO, K_NULL, K_INT, K_REAL, K_BLOB, K_TEXT = 0, 5, 7, 9, 10, 12
ZERO_SIZES = [0, 1, 2, 3, 4, 5, 7, 1023, 1024, 4096, 65536, 262143, 262144,
              1048575, 1048576, 1048577]


def null():
    return bytes([K_NULL])


def i(v):
    return bytes([K_INT]) + struct.pack("<q", v)


def r(v):
    return bytes([K_REAL]) + struct.pack("<d", v)


def t(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    assert len(b) < 65536
    return bytes([K_TEXT]) + struct.pack("<H", len(b)) + b


def b(data):
    assert len(data) < 0x8000
    return bytes([K_BLOB]) + struct.pack("<H", len(data)) + data


def f32(values):
    """A float32 BLOB."""
    return b(struct.pack("<%df" % len(values), *values))


def npy(descr, shape, data):
    """A .npy file (version 1.0) of the given descr, shape text and data bytes."""
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data


def zeroblob(n):
    return bytes([K_BLOB]) + struct.pack("<H", 0x8000 | ZERO_SIZES.index(n))


def auto(payload=b""):
    """An AUTO argument: a value for the argument's role, from the context."""
    return bytes([K_AUTO]) + payload


def ctx(ndim=1, dims=(4, 1, 1, 1), axis=0, block=1, dtype=0, limit=0, axis_byte=None, ggml=None):
    """The 10 context bytes: small dims 1..8 are written as dim - 1; pass a
    raw byte (>= 0xC0) as ('raw', b) for the larger or special ones.  limit
    indexes call_limits[] (0 is 1 MiB, 12 is 4 MiB, 15 is 64 bytes).  dtype
    indexes dtype_names; ggml (default: dtype, as when they shared a nibble)
    is the ggml type (0 q4_0 .. 9 q6_K ..., ggml's order): for
    q_ggml_quantize and q_ggml_dequantize the last dimension is multiplied
    by its block, unless axis_byte (the raw axis byte) is >= 0xE0."""
    def dim_byte(d):
        if isinstance(d, tuple):
            return d[1]
        assert 1 <= d <= 8
        return d - 1
    out = bytes([ndim - 1 if ndim else 0xF0]) + bytes(dim_byte(d) for d in dims)
    # axis = (byte % (2 * ndim + 2)) - ndim - 1
    m = 2 * ndim + 2
    out += bytes([(axis + ndim + 1) % m if axis_byte is None else axis_byte])
    out += bytes([block[1] if isinstance(block, tuple) else block - 1])
    return out + bytes([limit << 4, dtype, dtype if ggml is None else ggml])


def call(name, args=(), variant=0, rows=None, f=1, g=1, context=None):
    """One call.  args: the arguments of a single-row form; rows: a list of
    argument lists for the forms that read table t."""
    index, kind, nmin = FNS[name]
    arity = len(rows[0]) if rows else len(args)
    v = AGGREGATE_FORMS.index(variant) if kind == "a" else variant
    out = bytes([index, (v << 4) | (arity - nmin), len(rows) if rows else 1, f, g])
    out += context if context is not None else ctx()
    for row in rows or [args]:
        assert len(row) == arity
        for a in row:
            out += a
    return out


X4 = t("[-1, 0.5, 2, 3]")
# AUTO tensor payloads: flat JSON (format 0x04: value mode 1, a ramp) from
# start byte to step byte (a byte b is (b - 112) / 8; the step is that / 16).
RAMP = bytes([0x04, 0x60, 0x78])
RAMP2 = bytes([0x04, 0x88, 0x50])
# Context bytes of special dimensions (dim_specials[] in fuzz_sql.c):
# 2^61, 2^61 + 1, 2^62, 2^62 + 1, 2^63 - 1, 2^32 + 1.
HUGE = [("raw", 0xE0 + i) for i in (7, 8, 9, 10, 11, 6)]
W23 = t("[[0.1,-0.2,0.3],[4,-8,2]]")
ONNX_X = t("[[6,12,50,5],[1,8,4,5],[0,20,10,4]]")

# ggml block formats.
GGML = ["q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K"]
GGML_BLOCK = [32] * 5 + [256] * 5
GGML_BYTES = [18, 20, 22, 24, 34, 84, 110, 144, 176, 210]


def lcg_values(n, seed, scale=1.0):
    """n pseudo-random multiples of 2^-8 in [-4, 4) times scale."""
    out, r = [], seed
    for k in range(n):
        r = (r * 1103515245 + 12345) % 2147483648
        out.append(((r >> 16) % 2048 - 1024) / 256.0 * scale)
    return out


def palette_bytes(n, seed):
    """n AUTO palette bytes (value (b - 112) / 8, -14 .. 14): pseudo-random,
    their spread changing every 16 values, so blocks differ."""
    out, r = bytearray(), seed
    for k in range(n):
        r = (r * 1103515245 + 12345) % 2147483648
        spread = 1 + (k // 16) % 7 * 16
        out.append(112 + (r >> 16) % (2 * spread + 1) - spread)
    return bytes(out)


def importance_json(n):
    return t("[" + ",".join("%g" % (k * 37 % 11 * 0.125) for k in range(n)) + "]")


def ggml_auto_seed(ti):
    """q_ggml_quantize of every argument AUTO from a [2, 1] context, which
    becomes [2, block] (x: palette bytes; importance: magnitudes of palette
    bytes, or a ramp as a BLOB), then q_ggml_dequantize of what it returned
    (an AUTO register), its type and count AUTO."""
    n = 2 * GGML_BLOCK[ti]
    cols = GGML_BLOCK[ti]
    x = auto(bytes([0x00]) + palette_bytes(n, 7 + ti))
    imp = auto(bytes([0x00]) + palette_bytes(cols, 99 + ti)) if ti % 2 else auto(bytes([0x05]))
    context = ctx(2, (2, 1, 1, 1), axis=0, dtype=ti)
    return [call("q_ggml_quantize", [x, auto(b"\x00"), auto(b"\x00"), imp], context=context),
            call("q_ggml_dequantize", [auto(bytes([5, 0])), auto(b"\x80"), auto(b"\x00")],
                 context=context)]


SEEDS = {
    # Tensors.
    "tensor-f32": [call("q_f32", [t("[0.5, -1, 2e-3]")]),
                   call("q_f32", [b(bytes.fromhex("003CFF7B007C")), t("f16")])],
    "tensor-half": [call("q_f16", [t("[1, 65504, 65520]")]),
                    call("q_bf16", [t("[0.1, 1e38, -0]")])],
    "tensor-json": [call("q_json", [b(bytes.fromhex("E103")), t("int4"), i(3)]),
                    call("q_json", [f32([1.5, -2.0])])],
    "tensor-length": [call("q_length", [b(bytes.fromhex("003C0040")), t("f16")])],
    "tensor-version-info": [call("q_version"), call("q_info")],
    "tensor-f64": [call("q_f32", [b(struct.pack("<2d", 1e300, -0.25)), t("f64")])],
    # Per tensor.
    "tensor-params": [call("q_scale", [X4, t("uint8")]),
                      call("q_zero_point", [X4, t("int8"), t("symmetric"),
                                            t("quant_min=-127 quant_max=127")])],
    "tensor-params-methods": [
        call("q_scale", [X4, t("int8"), t("affine"), t("method=percentile percentile=50")]),
        call("q_scale", [X4, t("int4"), t("symmetric"), t("method=mse,reduce_range=1")])],
    "tensor-roundtrip": [
        call("quantize_blob", [X4, r(0.015686275), i(64), t("uint8")]),
        call("dequantize_blob", [b(bytes.fromhex("0060BFFF")), r(0.015686275), i(64), t("uint8")])],
    "tensor-int4": [call("quantize_blob", [t("[1, -2, 3]"), i(1), i(0), t("int4")]),
                    call("dequantize_blob", [b(bytes.fromhex("E103")), i(1), i(0), t("int4"), i(3)])],
    "tensor-fake": [call("q_fake_quantize", [t("[-3.7500002]"), r(0.3), i(0), t("int8"),
                                             t("rounding=onnx")])],
    "tensor-int32": [call("quantize_blob", [t("[1e9, -1e9, 3e38]"), r(1e-3), i(2147483647),
                                            t("int32")])],
    # Per channel.
    "channel-params": [call("q_per_channel_scales", [W23, t("[2,3]"), i(0)]),
                       call("q_per_channel_zero_points", [W23, t("[2,3]"), i(-1), t("uint8"),
                                                          t("symmetric"), t("reduce_range=1")])],
    "channel-quantize": [call("quantize_per_channel_blob",
                              [W23, t("[0.0019607844,0.047058824]"), t("[-26,42]"), t("[2,3]"),
                               i(0)])],
    "channel-dequantize": [call("dequantize_per_channel_blob",
                                [b(bytes.fromhex("1980817F8054")), f32([0.0019607844, 0.047058824]),
                                 b(struct.pack("<2i", -26, 42)), t("[2,3]"), i(0), t("int8")])],
    "channel-fake": [call("q_fake_quantize_per_channel",
                          [W23, t("[0.5,0.25,1]"), t("[0,0,0]"), t("[2,3]"), i(1), t("int16"),
                           t("quant_min=-100")])],
    # Per block.
    "block-params": [call("q_block_scales", [ONNX_X, t("[3,4]"), i(1), i(2)]),
                     call("q_block_zero_points", [ONNX_X, t("[3,4]"), i(1), i(3), t("uint4"),
                                                  t("affine"), t("method=mse")])],
    "block-quantize-onnx": [call("quantize_per_block_blob",
                                 [ONNX_X, t("[[1.5,2.5],[3,4.9],[5.1,6.9]]"),
                                  t("[[0,1],[1,0],[2,3]]"), t("[3,4]"), i(1), i(2), t("uint8"),
                                  t("rounding=onnx")])],
    "block-dequantize": [call("dequantize_per_block_blob",
                              [b(bytes(range(12))), t("[1,2,3,4,5,6]"), t("[0,0,0,0,0,0]"),
                               t("[3,4]"), i(-1), i(2), t("uint8")])],
    "block-fake": [call("q_fake_quantize_per_block",
                        [ONNX_X, t("[1,1,1]"), t("[0,0,0]"), t("[3,4]"), i(1), i(4), t("int4"),
                         t("quant_max=5")])],
    # Metrics.
    "metrics": [call(n, [t("[1,2,3]"), t("[1,2,4]")])
                for n in ("q_mse", "q_sqnr", "q_max_error", "q_cosine")],
    "metrics-agg": [call("q_mse_agg", rows=[[t("[1,2]"), t("[1,3]")],
                                            [f32([4.0]), f32([4.5])], [null(), t("[1]")]]),
                    call("q_sqnr_agg", variant=1,
                         rows=[[t("[1,2]"), t("[1,2]")], [t("[3]"), t("[2]")]])],
    # Calibration aggregates and windows.
    "agg-scale": [call("q_scale_agg", rows=[[r(-1.0)], [r(3.0)], [i(2)], [null()]])],
    "agg-window-sliding": [
        call("q_scale_agg", variant=2, f=2,
             rows=[[t("[1,-2]"), t("int8")], [t("[5]"), t("int8")], [t("[-7,0.5]"), t("int8")],
                   [t("[0.25]"), t("int8")]])],
    "agg-window-moving-average": [
        call("q_zero_point_agg", variant=3,
             rows=[[t("[1,-2]"), t("uint8"), t("affine"),
                    t("observer=moving_average averaging_constant=0.5")],
                   [t("[4,-1]")] + [auto()] * 3, [t("[2,2]")] + [auto()] * 3])],
    "agg-per-channel": [
        call("q_per_channel_scales_agg", variant=4, f=1, g=1,
             rows=[[t("[[1,2],[3,4]]"), t("[2,2]"), i(1)], [t("[[0,-2],[9,4]]"), auto(), auto()],
                   [t("[[5,2],[3,-4]]"), auto(), auto()]])],
    "agg-per-channel-percentile": [
        call("q_per_channel_zero_points_agg", variant=7, f=1, g=2,
             rows=[[t("[1,2,3,4,5,6]"), t("[3,2]"), i(0), t("int8"), t("symmetric"),
                    t("method=percentile percentile=90")],
                   [t("[6,5,4,3,2,1]")] + [auto()] * 5])],
    "agg-empty-frame": [call("q_scale_agg", variant=9, f=3, g=5,
                             rows=[[t("[1]")], [t("[2]")], [t("[3]")]])],
    "agg-window-forms": [
        call("q_scale_agg", variant=12, f=2, rows=[[t("[1]")], [t("[-3,2]")], [t("[0.5]")]]),
        call("q_zero_point_agg", variant=10, f=1,
             rows=[[r(1.5), t("uint8")], [r(-2.0), auto()], [i(7), auto()], [r(0.25), auto()]]),
        call("q_scale_agg", variant=5, rows=[[t("[1,2]")], [t("[4]")]]),
        call("q_scale_agg", variant=8, f=1, rows=[[t("[1,2]")], [t("[4]")], [t("[-1]")]])],
    # A scalar function over rows, with a saved result per row.
    "rows-scalar": [call("quantize_blob", variant=1,
                         rows=[[X4, r(0.1), i(0)], [t("[1]"), auto(), auto()]])],
    # Calibration past the small-input paths: a percentile over 4096 values
    # (an AUTO ramp over a [64,64] context), and MSE clipping that wins over
    # min/max (int4 codes of 1500 Laplace-distributed values).
    "calibrate-percentile-large": [call("q_per_channel_scales", [
        auto(RAMP), auto(b"\x00"), auto(), auto(b"\x00"), auto(b"\x00"),
        t("method=percentile percentile=99.5")], context=ctx(2, (("raw", 0xCE), ("raw", 0xCE), 1, 1), axis=0)),
        # Its scratch (1.25 MiB) is over a 1 MiB length limit: 4 MiB here.
        call("q_scale", [auto(RAMP), auto(b"\x00"), auto(b"\x01"), t("method=percentile")],
             context=ctx(2, (("raw", 0xCE), ("raw", 0xCE), 1, 1), limit=12))],
    "calibrate-mse-laplace": [call("q_scale", [
        f32([(1 if k % 2 else -1) * -math.log(1 - (k + 0.5) / 1500) for k in range(1500)]),
        t("int4"),
        t("affine"), t("method=mse")])],
    # The same past 2048 values, where MSE ranks its candidates from a
    # histogram: an AUTO tensor of 4096 palette bytes (value (b - 112) / 8).
    "calibrate-mse-large": [call("q_scale", [
        auto(bytes([0x00]) + bytes(max(0, min(0xDF, 112 + round(8 * v))) for v in
                                   [(1 if k % 2 else -1) * -math.log(1 - (k + 0.5) / 4096)
                                    for k in range(4096)])),
        t("int4"), t("symmetric"), t("method=mse")],
        context=ctx(2, (("raw", 0xCE), ("raw", 0xCE), 1, 1)))],
    # Table-valued functions.
    "each": [call("q_each", [f32([1.5, -2.0, float("inf")])]),
             call("q_each", [b(bytes.fromhex("E1F3")), t("int4"), i(3)], variant=1)],
    "each-constraints": [call("q_each", [b(bytes.fromhex("0102")), t("uint8")], variant=4),
                         call("q_each", [b(bytes.fromhex("0102")), t("int8")], variant=2, f=1)],
    "each-correlated": [call("q_each", variant=7, rows=[[f32([1.0, 2.0])], [t("[3]")]]),
                        call("q_each", [b(b"\x01\x02"), t("int8"), i(2)], variant=6)],
    "each-group": [call("q_each_group", [f32([0.5, 2.0]), b(bytes.fromhex("01000000FFFFFFFF"))]),
                   call("q_each_group", [f32([1.0]), b(bytes.fromhex("0100000002000000"))],
                        variant=1)],
    "channels": [call("q_channels", [W23, t("[2,3]"), i(0), t("int8"), t("affine"),
                                     t("method=mse")])],
    "channels-correlated": [call("q_channels", variant=3,
                                 rows=[[t("[1,2,3,4]"), t("[2,2]"), i(0)],
                                       [t("[1,2,3,4,5,6]"), t("[3,2]"), i(-1)]])],
    # A scale and its zero point from one calibration, beside the scalars.
    "params": [call("q_params", [W23, t("uint8"), t("affine"), t("method=histogram")]),
               call("q_scale", [W23, t("uint8"), t("affine"), t("method=histogram")]),
               call("q_params", [X4, t("int8"), t("log2")]),
               call("q_per_channel_params", [W23, t("[2,3]"), i(1), t("int4"), t("symmetric"),
                                             t("method=mse")]),
               call("q_block_params", [W23, t("[2,3]"), i(-1), i(2), t("int16"), t("affine"),
                                       t("method=entropy")])],
    "params-correlated": [call("q_per_channel_params", variant=3,
                               rows=[[t("[1,2,3,4]"), t("[2,2]"), i(0)],
                                     [t("[1,2,3,4,5,6]"), t("[3,2]"), i(-1)]])],
    "auto-params": [call("q_block_params", [auto(RAMP), auto(b"\x00"), auto(), auto(),
                                            auto(b"\x00"), auto(b"\x01"), auto(b"\x00")],
                         context=ctx(2, (4, 8, 1, 1), axis=1, block=3, dtype=5)),
                    call("q_per_channel_params", [auto(RAMP), auto(b"\x00"), auto(),
                                                  auto(b"\x00"), auto(b"\x00"), auto(b"\x00")],
                         context=ctx(3, (2, 2, 3, 1), axis=1, dtype=0))],
    "compare": [call("q_compare", [t("[1,2,3,4,5,6,7,8]"), t("[2,4]")])],
    "compare-options": [call("q_compare", [t("[[1,2,3,4],[5,6,7,-8]]"), t("[2,4]"), i(1),
                                           t("dtypes=int8+int4+uint8 schemes=symmetric "
                                             "blocks=2+none methods=minmax+mse+percentile "
                                             "percentile=99")])],
    # Errors and edges.
    "errors-dtype-scheme": [call("q_scale", [X4, t("int3")]),
                            call("q_scale", [X4, t("int8"), t("asym")]),
                            call("quantize_blob", [X4, i(1), i(300), t("uint8")])],
    "errors-json": [call("q_scale", [t("[1, 2")]), call("q_scale", [t("[1, \"a\"]")]),
                    call("q_scale", [t("[01]")]), call("q_f32", [t("[1e39]")])],
    "errors-nul-text": [call("q_scale", [X4, t(b"int8\x00junk")]),
                        call("q_scale", [t(b"[1,\x002]")])],
    "errors-blob-length": [call("quantize_blob", [b(b"\x00" * 10), i(1), i(0)]),
                           call("q_json", [b(b"\x01\x02\x03"), t("int16")])],
    "edge-toobig": [call("q_f32", [zeroblob(1048576), t("f16")]),
                    call("q_each", [zeroblob(262144), t("uint4")], variant=5)],
    # Length limits of 64 bytes and 4 KiB: size checks everywhere.
    "edge-tiny-limit": [
        call("q_f32", [t("[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]")], context=ctx(limit=15)),
        call("q_json", [f32([0.1] * 40)], context=ctx(limit=15)),
        call("q_each", [zeroblob(4096), t("int4")], variant=5, context=ctx(limit=14)),
        call("q_compare", [t("[1,2,3,4,5,6,7,8]"), t("[2,4]")], context=ctx(limit=14))],
    "edge-nan-inf": [call("q_scale", [f32([float("nan"), 1.0])]),
                     call("quantize_blob", [f32([float("inf"), -float("inf")]), r(1e-39), i(0)])],
    "edge-empty": [call("quantize_blob", [t("[]"), i(1), i(0)]),
                   call("q_scale", [b(b"")])],
    "edge-chain-registers": [
        call("q_scale", [X4, t("uint8")]),
        call("q_zero_point", [X4, t("uint8")]),
        call("quantize_blob", [X4, bytes([15, 0x80]), bytes([15, 0x81]), t("uint8")]),
        call("dequantize_blob", [bytes([15, 0x82]), bytes([15, 0x80]), bytes([15, 0x81]),
                                 t("uint8")])],
    # AUTO arguments from a context shape [3,4] (dims 3 and 4), axis 1,
    # block 2, dtype uint8: the generators pick values of matching sizes.
    "auto-per-block": [call("quantize_per_block_blob", [auto(RAMP)] + [auto()] * 7,
                            context=ctx(2, (3, 4, 1, 1), axis=1, block=2, dtype=1))],
    "auto-per-channel": [call("q_fake_quantize_per_channel", [auto(RAMP)] + [auto()] * 6,
                              context=ctx(3, (2, 3, 2, 1), axis=-1, block=1, dtype=5))],
    "auto-compare": [call("q_compare", [auto(RAMP)] + [auto()] * 3,
                          context=ctx(2, (4, 8, 1, 1), axis=0, block=4, dtype=0))],
    # The same families through AUTO arguments, so that mutating one context
    # byte (a dimension, the axis, the block, the dtype) or one count byte of
    # the options lists reaches the size and overflow edges.
    "auto-agg-per-channel": [call("q_per_channel_scales_agg", variant=0, rows=[
        [auto(RAMP), auto(b"\x00"), auto()], [auto(RAMP2), auto(), auto()]],
        context=ctx(2, (2, 3, 1, 1), axis=0))],
    "auto-agg-zero-points-window": [call("q_per_channel_zero_points_agg", variant=2, f=1, rows=[
        [auto(RAMP), auto(b"\x00"), auto(), auto(b"\x00")], [auto(RAMP2)] + [auto()] * 3,
        [auto(RAMP)] + [auto()] * 3], context=ctx(2, (3, 2, 1, 1), axis=-1, dtype=1))],
    "auto-dequantize-per-channel": [call("dequantize_per_channel_blob", [
        auto(b"\x00\x00\x05"), auto(b"\x00\x00"), auto(b"\x00\x00"), auto(b"\x00"), auto(),
        auto(b"\x00")], context=ctx(2, (1, 4, 1, 1), axis=0, dtype=4))],
    "auto-dequantize-per-block": [call("dequantize_per_block_blob", [
        auto(b"\x00\x00\x05"), auto(b"\x00\x00"), auto(b"\x00\x00"), auto(b"\x00"), auto(),
        auto(), auto(b"\x00")], context=ctx(1, (8, 1, 1, 1), axis=0, block=4, dtype=4))],
    "auto-block-scales": [call("q_block_scales", [auto(RAMP), auto(b"\x00"), auto(), auto(),
                                                  auto(b"\x00"), auto(b"\x01"), auto(b"\x00")],
                               context=ctx(2, (4, 8, 1, 1), axis=1, block=3, dtype=5))],
    "auto-channels": [call("q_channels", [auto(RAMP), auto(b"\x00"), auto(), auto(b"\x00"),
                                          auto(b"\x00"), auto(b"\x00")],
                           context=ctx(3, (2, 2, 3, 1), axis=1, dtype=0))],
    "auto-compare-lists": [call("q_compare", variant=5, args=[
        auto(RAMP), auto(b"\x00"), auto(),
        # options: 4 keys joined by ' ': dtypes, schemes, blocks, methods,
        # each one item repeated (0x40) 1 + low bits times: int8 x 12,
        # affine x 2, block 1 x 16, minmax x 9 (a value is at most 63
        # characters): 3888 candidates, a few count bytes away from the most
        # these lists can ask for.  (mse x 16 asks for more but takes seconds
        # under ASan.)
        auto(bytes([4, 8, 0x4B, 0, 9, 0x41, 0, 10, 0x4F, 0, 11, 0x48, 0]))],
        context=ctx(2, (2, 2, 1, 1), axis=0))],
    # Huge dimensions for every function that takes a shape, each a byte
    # away (a dimension one less, another axis, another dtype) from a size
    # computation that wraps: a shape may hold up to 2^62 elements, and
    # 2^62 int32 codes are 2^64 bytes.
    **{"huge-" + name: [call(name, [auto(RAMP)] + [auto()] * (n - 1),
                             context=ctx(2, (d0, HUGE[d1], 1, 1), axis=0, block=2, dtype=dt))]
       for name, n, d0, d1, dt in [
           ("q_per_channel_scales", 6, 3, 1, 0), ("q_per_channel_zero_points", 3, 3, 0, 1),
           ("quantize_per_channel_blob", 7, 1, 3, 4),
           ("dequantize_per_channel_blob", 6, 2, 1, 4),
           ("q_fake_quantize_per_channel", 5, 3, 4, 2), ("q_block_scales", 7, 3, 5, 5),
           ("q_block_zero_points", 4, 3, 1, 6), ("quantize_per_block_blob", 8, 3, 2, 2),
           ("q_fake_quantize_per_block", 6, 3, 0, 3), ("q_channels", 6, 3, 2, 0),
           ("q_compare", 4, 3, 5, 0), ("q_per_channel_params", 6, 3, 1, 0),
           ("q_block_params", 7, 3, 5, 5)]},
    **{"huge-" + name: [call(name, rows=[[auto(RAMP)] + [auto()] * (n - 1)] * 2,
                             context=ctx(2, (3, HUGE[d1], 1, 1), axis=0, dtype=dt))]
       for name, n, d1, dt in [("q_per_channel_scales_agg", 3, 0, 0),
                               ("q_per_channel_zero_points_agg", 6, 1, 1)]},
    # One dimension of 2^62 + 1 in one block of 2^62 (block_specials[12]).
    "huge-dequantize_per_block_blob": [call("dequantize_per_block_blob", [auto(RAMP)] + [auto()] * 6,
                                            context=ctx(1, (HUGE[3], 1, 1, 1), axis=0,
                                                        block=("raw", 0xFC), dtype=4))],
    # ggml block formats: q_ggml_quantize at each arity, explicit arguments.
    "ggml-quantize": [
        call("q_ggml_quantize", [t("[" + ",".join("%g" % v for v in lcg_values(64, 1)) + "]"),
                                 t("q4_0")]),
        call("q_ggml_quantize", [f32(lcg_values(64, 2)), t("Q5_1"), t("[2,32]")]),
        call("q_ggml_quantize", [f32(lcg_values(64, 3)), t("q8_0"), t("[2,32]"),
                                 importance_json(32)]),
        call("q_ggml_quantize", [f32(lcg_values(64, 4)), t("q4_1"), t("[2,1,32]"),
                                 f32([0.0] * 32)])],
    "ggml-quantize-kquants": [
        call("q_ggml_quantize", [f32(lcg_values(512, 5, 0.25)), t("q4_K"), t("[2,256]"),
                                 f32([(k % 13) * 0.5 for k in range(256)])]),
        call("q_ggml_quantize", [f32(lcg_values(256, 6)), t("q2_k"), t("[256]"),
                                 importance_json(256)]),
        call("q_ggml_quantize", [f32(lcg_values(256, 7, 1e-3)), t("Q6_K")])],
    # Every type through AUTO arguments, quantize then dequantize its blocks.
    **{"ggml-auto-" + GGML[ti]: ggml_auto_seed(ti) for ti in range(10)},
    # Blocks quantize never writes: fp16 scales of 1.06 ('<' bytes), NaN
    # ('~'), pseudo-random bytes, and AUTO blocks of each fill mode.
    "ggml-dequantize": [
        call("q_ggml_dequantize", [b(b"<" * 34), t("q8_0")]),
        call("q_ggml_dequantize", [b(b"~" * 210), t("Q6_K"), i(256)]),
        call("q_ggml_dequantize", [b(bytes((k * 73 + 11) % 256 for k in range(2 * 144))),
                                   t("q4_k"), i(512)]),
        call("q_ggml_dequantize", [b(bytes((k * 29 + 3) % 256 for k in range(110))), t("q3_K")]),
        call("q_ggml_dequantize", [b(bytes((k * 41 + 5) % 256 for k in range(4 * 22))),
                                   t("q5_0"), i(128)]),
        # The shape form: as q_ggml_quantize took it, too many weights, and
        # rows that are not whole blocks.
        call("q_ggml_dequantize", [b(bytes((k * 73 + 11) % 256 for k in range(2 * 144))),
                                   t("q4_K"), t("[2,256]")]),
        call("q_ggml_dequantize", [b(b"<" * 68), t("q8_0"), t("[3,32]")]),
        call("q_ggml_dequantize", [b(b"<" * 68), t("q8_0"), t("[4,16]")])],
    "ggml-dequantize-auto": [
        # The third argument AUTO as the context's shape (0x40..0x7F).
        call("q_ggml_dequantize", [auto(bytes([0, 0x11])), auto(b"\x00"), auto(b"\x40\x00")],
             context=ctx(2, (3, 2, 1, 1), dtype=7))] + [
        call("q_ggml_dequantize", [auto(bytes([0, 0x11])), auto(b"\x00"), auto(b"\x00")],
             context=ctx(2, (3, 2, 1, 1), dtype=dt))
        for dt in (1, 6)] + [
        call("q_ggml_dequantize", [auto(bytes([4, fill])), auto(b"\x00"), auto(b"\x00")],
             context=ctx(1, (2, 1, 1, 1), dtype=dt))
        for dt, fill in ((3, 0), (8, 1), (9, 2), (4, 3))] + [
        call("q_ggml_dequantize", [auto(bytes([1]) + bytes(range(1, 145))), auto(b"\x00"),
                                   auto(b"\x00")], context=ctx(1, (1, 1, 1, 1), dtype=7))],
    # Rows that are not whole blocks: the context's last dimension left as
    # read (axis byte >= 0xE0), or one that is not generated ("255").
    "ggml-unaligned": [
        call("q_ggml_quantize", [auto(RAMP), auto(b"\x00"), auto(b"\x00")],
             context=ctx(2, (2, 5, 1, 1), dtype=0, axis_byte=0xE0)),
        call("q_ggml_quantize", [auto(RAMP), auto(b"\x00"), auto(b"\x00"), auto(b"\x04")],
             context=ctx(1, (("raw", 0xFE), 1, 1, 1), dtype=5)),
        call("q_ggml_dequantize", [auto(bytes([3, 35])), auto(b"\x00"), auto(b"\x00")],
             context=ctx(1, (1, 1, 1, 1), dtype=4))],
    "ggml-errors-quantize": [
        call("q_ggml_quantize", [f32([0.0] * 32), t("q4_2")]),
        call("q_ggml_quantize", [f32([0.0] * 32), t(b"q4_0\x00")]),
        call("q_ggml_quantize", [f32([0.0] * 30), t("q4_0")]),
        call("q_ggml_quantize", [f32([0.0] * 512), t("q4_K"), t("[4,128]")]),
        call("q_ggml_quantize", [f32([0.0] * 64), t("q4_0"), t("[3,32]")]),
        call("q_ggml_quantize", [f32([1.0, float("nan")] + [0.0] * 30), t("q4_0")]),
        call("q_ggml_quantize", [f32([0.0] * 31 + [-float("inf")]), t("q8_0")]),
        call("q_ggml_quantize", [t("[1,2"), t("q8_0")])],
    "ggml-errors-importance": [
        call("q_ggml_quantize", [f32([0.0] * 256), t("q4_K"), t("[256]"), f32([1.0])]),
        call("q_ggml_quantize", [f32([0.0] * 64), t("q4_0"), t("[2,32]"), f32([1.0] * 64)]),
        call("q_ggml_quantize", [f32([0.5] * 32), t("q4_0"), t("[32]"),
                                 f32([0.0] * 3 + [-0.5] + [0.0] * 28)]),
        call("q_ggml_quantize", [f32([0.5] * 32), t("q5_0"), t("[32]"),
                                 f32([0.0] * 2 + [float("nan")] + [0.0] * 29)]),
        call("q_ggml_quantize", [f32([0.5] * 32), t("q4_1"), t("[32]"),
                                 f32([float("inf")] + [0.0] * 31)]),
        call("q_ggml_quantize", [f32([0.5] * 32), t("q4_1"), t("[32]"), t("[1,")]),
        call("q_ggml_quantize", [f32([0.5] * 32), t("q4_1"), t("[32]"), i(7)])],
    "ggml-errors-dequantize": [
        call("q_ggml_dequantize", [b(bytes(35)), t("q8_0")]),
        call("q_ggml_dequantize", [b(bytes(144)), t("q4_K"), i(255)]),
        call("q_ggml_dequantize", [b(bytes(144)), t("q4_K"), i(-1)]),
        call("q_ggml_dequantize", [b(bytes(144)), t("q4_K"), i(2 ** 63 - 1)]),
        call("q_ggml_dequantize", [t("abc"), t("q4_K")]),
        call("q_ggml_dequantize", [i(5), t("q4_K")]),
        call("q_ggml_dequantize", [b(bytes(18)), t("q4_0"), r(32.5)]),
        call("q_ggml_dequantize", [b(b""), t("iq4_xs")])],
    # The rows of each type whose sums of squares overflow: a block of
    # +-3e38 with all-zero weights writes a NaN scale, whose sign x86-64 and
    # s390x / aarch64 choose differently.
    "ggml-overflow": [
        call("q_ggml_quantize", [f32([3e38, -3e38] * 16), t(n), t("[32]"), f32([0.0] * 32)])
        for n in ("q4_0", "q5_0", "q4_1", "q8_0")] + [
        call("q_ggml_quantize", [f32([3e38, -3e38] * 128), t("q3_K"), t("[256]"),
                                 f32([1.0] * 256)]),
        call("q_ggml_quantize", [f32([1e-42 * (k % 5 - 2) for k in range(256)]), t("q5_K")])],
    # Huge shapes and tiny length limits.
    "huge-q_ggml_quantize": [
        call("q_ggml_quantize", [auto(RAMP), auto(b"\x00"), auto(b"\x00"), auto(b"\x04")],
             context=ctx(2, (HUGE[d], 1, 1, 1), axis=0, dtype=dt))
        for d, dt in ((0, 0), (3, 7), (5, 9))],
    "huge-q_ggml_dequantize": [
        call("q_ggml_dequantize", [auto(b"\x00\x11"), auto(b"\x00"), auto(b"\x00")],
             context=ctx(2, (HUGE[1], 2, 1, 1), axis=0, dtype=8))],
    "ggml-tiny-limit": [
        call("q_ggml_quantize", [auto(RAMP), auto(b"\x00"), auto(b"\x00")],
             context=ctx(2, (2, 1, 1, 1), dtype=7, limit=15)),
        call("q_ggml_dequantize", [b(bytes(144 * 8)), t("q4_K")], context=ctx(limit=14)),
        call("q_importance_agg", rows=[[f32([1.0] * 64), i(32)]], context=ctx(limit=15))],
    # q_importance_agg: an aggregate, per group, and windows: sliding one
    # batch (1e20 leaves cancellation behind when it leaves), centred,
    # groups excluding the current row, two frames at once; AUTO batches
    # and columns from a [3,4] context.
    "importance-agg": [
        call("q_importance_agg", rows=[[f32([1, 2, 3, 4]), i(2)], [t("[1,0]"), auto()],
                                       [null(), auto()], [t("[0.5,-1.5e-1]"), auto()]]),
        call("q_importance_agg", variant=1,
             rows=[[t("[2,2,2,2]"), i(4)], [f32([1, 2, 3, 4]), auto()], [t("[]"), auto()]])],
    "importance-agg-window": [
        call("q_importance_agg", variant=2, f=1,
             rows=[[t("[1,2]"), i(2)], [t("[1e20,1]"), auto()], [t("[1,3]"), auto()],
                   [t("[0.25,2]"), auto()]]),
        call("q_importance_agg", variant=4, f=1, g=1,
             rows=[[t("[1,2,3]"), i(3)], [t("[[0,-8,1],[4,4,4]]"), auto()],
                   [t("[0.1,0.2,0.3]"), auto()], [null(), auto()]]),
        call("q_importance_agg", variant=7, f=1, g=1,
             rows=[[t("[1]"), i(1)], [t("[2,3]"), auto()], [t("[4]"), auto()]]),
        call("q_importance_agg", variant=12, f=2,
             rows=[[t("[1,2]"), i(2)], [t("[3,4]"), auto()], [t("[5,6]"), auto()]])],
    "importance-agg-auto": [
        call("q_importance_agg", variant=3, rows=[[auto(RAMP), auto(b"\x00")],
                                                  [auto(RAMP2), auto()], [auto(RAMP), auto()]],
             context=ctx(2, (3, 4, 1, 1))),
        call("q_importance_agg", variant=10, f=1, rows=[[auto(RAMP), auto(b"\x00")]] +
             [[auto(RAMP2), auto()]] * 4, context=ctx(1, (8, 1, 1, 1)))],
    "importance-agg-errors": [
        call("q_importance_agg", variant=2, f=1,
             rows=[[t("[1,2]"), i(2)], [t("[3,4]"), auto()], [t("[5,6,7]"), auto()],
                   [t("[8,9]"), auto()]]),
        call("q_importance_agg", variant=2, f=1,
             rows=[[t("[1,2]"), i(2)], [t("[3,4]"), i(2)], [t("[5,6]"), i(1)]]),
        call("q_importance_agg", rows=[[b(bytes.fromhex("0000C07F00000000")), i(2)]]),
        call("q_importance_agg", rows=[[t("[1,2]"), i(0)]]),
        call("q_importance_agg", rows=[[t("[1,2]"), t("two")]])],
    # The importance weights into q_ggml_quantize (a register).
    "importance-agg-chain": [
        call("q_importance_agg", rows=[[f32(lcg_values(256, 11)), i(256)],
                                       [f32(lcg_values(256, 12)), auto()]]),
        call("q_ggml_quantize", [f32(lcg_values(256, 13)), t("q4_K"), t("[256]"),
                                 bytes([15, 0x80])])],
    "ggml-types": [call("q_ggml_types"), call("q_ggml_types", variant=3, rows=[[], []]),
                   call("q_ggml_types", variant=5), call("q_ggml_types", variant=2, f=3),
                   call("q_ggml_types", variant=1)],
    # q_compare with ggml= beside the integer schemes, and alone (dtypes=none).
    "compare-ggml": [
        call("q_compare", [f32(lcg_values(256, 21)), t("[256]"), i(0),
                           t("dtypes=int8 schemes=symmetric ggml=q4_K+q8_0")]),
        call("q_compare", [f32(lcg_values(256, 22)), t("[256]"), i(0),
                           t("dtypes=none ggml=" + "+".join(GGML))]),
        call("q_compare", [f32(lcg_values(64, 23)), t("[2,32]"), i(1),
                           t("dtypes=uint8 blocks=32 ggml=Q4_0|q5_1|q8_0")]),
        call("q_compare", [f32([0.0] * 256), t("[256]"), i(0), t("ggml=q4_K+Q4_k")]),
        call("q_compare", [f32([0.0] * 256), t("[2,128]"), i(0), t("ggml=q4_K")]),
        call("q_compare", [f32([0.0] * 256), t("[256]"), i(0), t("dtypes=none")])],
    # AUTO options over a [1024] context: "ggml=<set> dtypes=none" (keys 16
    # and 17 of option_keys; the set is q4_0 q5_1 q2_K q6_K, q5_1 and q6_K in
    # another case); then over rows of [2,1024], every type and q4_0 again
    # in another case, which is refused.
    "compare-ggml-auto": [call("q_compare", variant=0, args=[
        auto(RAMP), auto(b"\x00"), auto(), auto(bytes([2, 16, 0x29, 0x02, 0x08, 0x02, 17, 0]))],
        context=ctx(1, (("raw", 0xFD), 1, 1, 1), axis=0)),
        call("q_compare", variant=3, rows=[
            [auto(RAMP), auto(b"\x00"), auto(), auto(bytes([1, 16, 0xFF, 0x23, 0x00, 0x00]))],
            [auto(RAMP2), auto(), auto(), auto()]],
            context=ctx(2, (2, ("raw", 0xFD), 1, 1), axis=0))],
    # .npy BLOBs as float tensor arguments (docs/NUMERICS.md#float-tensors):
    # every dtype family, f64 out of float32 range, a short data part; then a
    # bad header and raw float64 bytes that the float64 look-alike check
    # refuses (fuzz_sql runs at most 8 calls per input).
    "npy-args": [
        call("q_f32", [b(npy("<f8", "(2,)", struct.pack("<2d", 0.1, -3.0)))]),
        call("q_f32", [b(npy(">f4", "(2, 1)", struct.pack(">2f", 1.5, -2.0)))]),
        call("q_f32", [b(npy("<f2", "()", bytes.fromhex("003c")))]),
        call("q_f32", [b(npy(">u8", "(1,)", struct.pack(">Q", 2 ** 64 - 1)))]),
        call("q_f32", [b(npy("|b1", "(3,)", bytes([1, 0, 1])))]),
        call("quantize_blob", [b(npy("<i2", "(3,)", struct.pack("<3h", 1, -2, 0))), r(0.5), i(0)]),
        call("q_scale", [b(npy("<f8", "(1,)", struct.pack("<d", 1e39)))]),
        call("q_scale", [b(npy("<f4", "(3,)", struct.pack("<2f", 1.0, 2.0)))])],
    "npy-args-errors": [
        call("q_scale", [b(b"\x93NUMPY")]),
        call("q_f32", [b(struct.pack("<16d", *[0.37 * math.sin(k + 1) for k in range(16)]))])],
    # q_npz_agg: two members (one empty), then a duplicate name.
    "npz-agg": [call("q_npz_agg", rows=[[t("w"), b(struct.pack("<2f", 1.0, 2.0)), t("f32"), t("[2]")],
                                        [t("e"), b(b""), t("int16be"), t("[0,3]")]]),
                call("q_npz_agg", rows=[[t("x"), b(b"\x01"), t("uint8"), t("[]")],
                                        [t("x"), b(b"\x02"), t("uint8"), t("[1]")]])],
    # Known crash classes: exact reproductions, kept as regression seeds.
    "crash-compare-candidates": [call("q_compare", variant=5, args=[
        t("[1,2,3,4]"), t("[2,2]"), i(0),
        t("dtypes=" + "+".join(["int8"] * 12) + " schemes=affine+affine+affine blocks="
          + "+".join(str(n) for n in range(1, 17)) + " methods=" + "+".join(["mse"] * 16))])],
    "crash-dequantize-channel-wrap": [call("dequantize_per_channel_blob", [
        b(b""), t("[1]"), t("[0]"), t("[1,4611686018427387904]"), i(0), t("int32")])],
    "crash-dequantize-block-wrap": [call("dequantize_per_block_blob", [
        b(b""), t("[1]"), t("[0]"), t("[4611686018427387904]"), i(0), i(4611686018427387904),
        t("int32")])],
    "crash-agg-channels-wrap": [call("q_per_channel_scales_agg", rows=[[
        t("[1]"), t("[2305843009213693953]"), i(0)]])],
}

# The GGUF writer: every metadata type, a chunked tensor, a block type.
GGUF_META = ('{"general.alignment":{"type":"uint32","value":64},'
             '"a":{"type":"array[float32]","value":[0.5,"NaN"]},'
             '"s":{"type":"string","value":"x"},"i":{"type":"int64","value":-1},'
             '"b":{"type":"bool","value":true},"e":{"type":"array[string]","value":[]}}')
SEEDS.update({
    "gguf-agg-meta": [call("q_gguf_agg", rows=[
        [t("w"), b(struct.pack("<4f", 1, 2, 3, 4)), t("f32"), t("[2,2]"), t(GGUF_META)]])],
    "gguf-agg-chunks": [call("q_gguf_agg", rows=[
        [t("w"), b(b"\x01\x00\x02\x00"), t("int16"), t("[2,2]")],
        [t("w"), b(b"\x03\x00\x04\x00"), t("int16"), t("[2,2]")],
        [t("q"), b(bytes(34)), t("q8_0"), t("[32]")]])],
    "gguf-agg-errors": [call("q_gguf_agg", rows=[
        [t("w"), b(b"\x01"), t("int8"), t("[2]"), t('{"k":{"type":"uint8","value":256}}')]])],
})

# The path writers (tables; fuzz_sql.c supplies the path): a file with
# metadata and a block type, rows alternating between two files, nested
# savepoints rolled back and released, rows cut short by another
# expression's error, a table in temp.
NO_ARGS = [null()] * 4
SEEDS.update({
    "writers-gguf": [call("q_gguf_write", rows=[
        [t("w"), b(struct.pack("<4f", 1, 2, 3, 4)), t("f32"), t("[2,2]"), t(GGUF_META)],
        [t("q"), b(bytes(34)), t("q8_0"), t("[32]"), t(GGUF_META)]])],
    "writers-safetensors-two-files": [call("q_safetensors_write", variant=2, rows=[
        [t("a"), b(b"\x01\x02"), t("int8"), t("[2]"), t('{"k":"v"}')],
        [t("b"), b(b"\x03"), t("uint8"), t("[1]"), null()]])],
    "writers-npz-savepoints": [
        call("q_npz_write", variant=5, args=NO_ARGS),
        call("q_npz_write", variant=1, args=[t("x"), b(b"\x01"), t("uint8"), t("[1]")]),
        call("q_npz_write", variant=5, args=NO_ARGS),
        call("q_npz_write", rows=[[t("y"), b(b""), t("f32"), t("[0,3]")],
                                  [t("x"), b(b"\x02"), t("uint8"), t("[1]")]]),
        call("q_npz_write", variant=6, args=NO_ARGS),
        call("q_npz_write", variant=7, args=NO_ARGS),
        call("q_npz_write", variant=7, args=NO_ARGS)],
    "writers-cut-short": [
        call("q_gguf_write", variant=4, rows=[[t("w"), b(b"\x01\x02"), t("int8"), t("[4]")],
                                              [t("w"), b(b"\x03\x04"), t("int8"), t("[4]")]]),
        call("q_safetensors_write", variant=3, rows=[[t("w"), b(b"\x01"), t("int8"), t("[2]")]])],
})

# Calibration: the histogram and entropy methods, one tensor and
# rows in order; the tutorial's formula; the log2 scheme and its codes.
X9 = t("[[191.6, -13.5, 728.6], [92.14, 295.5, -184], [0, 684.6, 245.5]]")
SEEDS.update({
    "calib-histogram": [
        call("q_scale", [X4, t("uint8"), t("affine"), t("method=histogram")]),
        call("q_zero_point", [W23, t("int8"), t("symmetric"), t("method=histogram bins=16")])],
    "calib-histogram-rows": [call("q_scale_agg", rows=[
        [t("[0.1, -0.2, 0.3]"), t("uint8"), t("affine"), t("method=histogram")],
        [t("[2.5, -3.5, 0.5]"), t("uint8"), t("affine"), t("method=histogram")],
        [t("[0.25, 0.25]"), t("uint8"), t("affine"), t("method=histogram")]])],
    "calib-entropy": [
        call("q_scale", [X4, t("int8"), t("affine"), t("method=entropy bins=256 quantized_bins=8")]),
        call("q_per_channel_scales", [W23, t("[2,3]"), i(1), t("int8"), t("affine"),
                                      t("method=entropy bins=8 quantized_bins=4")])],
    "calib-entropy-rows": [call("q_per_channel_scales_agg", rows=[
        [W23, t("[2,3]"), i(0), t("int8"), t("affine"), t("method=entropy bins=16 quantized_bins=4")],
        [t("[[9,-9,1],[0,0,0]]"), t("[2,3]"), i(0), t("int8"), t("affine"),
         t("method=entropy bins=16 quantized_bins=4")]])],
    "calib-tutorial": [
        call("q_scale", [X9, t("int8"), t("affine"), t("include_zero=0 params=double")]),
        call("quantize_blob", [X9, r(3.5788233280181885), i(-77), t("int8"), t("rounding=tutorial")]),
        call("q_fake_quantize", [X9, r(3.5788233280181885), i(-77), t("int8"), t("rounding=tutorial")])],
    "calib-log2": [
        call("q_scale", [t("[0.3,-5,0.01,0,7]"), t("int8"), t("log2")]),
        call("quantize_log2_blob", [t("[0.3,-5,0.01,0,7]"), r(8.0)]),
        call("dequantize_log2_blob", [b(bytes.fromhex("06FE0B0001")), r(8.0), t("int8")]),
        call("q_fake_quantize_log2", [t("[0.3,-5,0.01,0,7]"), r(8.0), t("int4")])],
    "calib-log2-channel": [
        call("quantize_per_channel_log2_blob", [W23, f32([0.25, 8.0]), t("[2,3]"), i(0)]),
        call("q_fake_quantize_per_block_log2", [W23, f32([0.5, 8.0]), t("[2,3]"), i(1), i(3)])],
    # Rows packed into BLOBs: numbers, infinity, a NULL row (an error), and
    # int32's edges and one past them.
    "pack-f32": [call("q_f32_agg", rows=[[r(1.5)], [i(16777217)], [r(float("inf"))], [r(-0.0)]]),
                 call("q_f32_agg", rows=[[r(1.0)], [null()], [r(2.0)]])],
    "pack-int32": [call("q_int32_agg", rows=[[i(2147483647)], [i(-2147483648)], [i(0)]]),
                   call("q_int32_agg", rows=[[i(1)], [i(2147483648)]]),
                   call("q_int32_agg", rows=[[r(2.0)]])],
})


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus", "sql")
    os.makedirs(out, exist_ok=True)
    for name, calls in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"".join(calls))
    print("%d seeds in %s" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
