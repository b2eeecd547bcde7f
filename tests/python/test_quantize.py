"""Per tensor and per channel, in SQL through the package's helpers, against
numpy's own computation of docs/NUMERICS.md (all float32: scale
max((max_pos - min_neg) / 255, 2^-23), zero point qmin - rint(min_neg /
scale), codes clip(rint(x * (1 / scale)) + zp), values (q - zp) * scale)."""
import sqlite3

import numpy as np

import sqlite_quant
from sqlite_quant import array, f32_blob, npy_blob

F = np.float32


def weight():
    """A conv weight [out=16, in=8, 3, 3] whose output channels differ in range."""
    rng = np.random.default_rng(0)
    return (rng.normal(size=(16, 8, 3, 3)) * np.linspace(0.02, 1.0, 16)[:, None, None, None]).astype(F)


def numpy_params(w, axis=None):
    """int8 affine min/max parameters over the whole tensor or per index of axis."""
    others = None if axis is None else tuple(i for i in range(w.ndim) if i != axis)
    min_neg = np.minimum(w.min(axis=others), F(0))
    max_pos = np.maximum(w.max(axis=others), F(0))
    scale = np.maximum((max_pos - min_neg) / F(255), F(2**-23)).astype(F)
    zp = np.clip(-128 - np.rint(min_neg / scale), -128, 127).astype(np.int32)
    return scale, zp


def numpy_round_trip(w, scale, zp, axis=None):
    view = [1] * w.ndim
    if axis is not None:
        view[axis] = -1
    s, z = np.reshape(scale, view), np.reshape(zp, view)
    q = np.clip(np.rint(w * (F(1) / s)) + z, -128, 127).astype(np.int8)
    back = (q.astype(np.int32) - z).astype(F) * s
    return q, back


def sqnr_db(x, back):
    x, back = x.astype(np.float64), back.astype(np.float64)
    return 20 * np.log10(np.linalg.norm(x) / np.linalg.norm(x - back))


def run(t, env):
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    w = weight()
    x, shape = f32_blob(w), str(list(w.shape))

    # ---- per tensor ----------------------------------------------------------
    scale, zp = db.execute("SELECT q_scale(?1), q_zero_point(?1)", (x,)).fetchone()
    want_scale, want_zp = numpy_params(w)
    t.eq("tensor-scale", scale, float(want_scale))
    t.eq("tensor-zero-point", zp, int(want_zp))
    # The parameters as numpy scalars, as numpy code has them, bind as numbers.
    codes, back = db.execute("SELECT quantize_blob(?1, ?2, ?3), dequantize_blob(quantize_blob(?1, ?2, ?3), ?2, ?3)",
                             (x, want_scale, want_zp)).fetchone()
    q, want_back = numpy_round_trip(w, want_scale, want_zp)
    t.eq("tensor-codes", array(codes, "int8", w.shape), q)
    t.eq("tensor-dequantized", array(back, "f32", w.shape), want_back)
    t.eq("tensor-npy-input", one(db, "SELECT quantize_blob(?, ?, ?)", npy_blob(w), scale, zp), codes)
    tensor_sqnr = one(db, "SELECT q_sqnr(?, ?)", x, back)
    t.near("tensor-sqnr", tensor_sqnr, sqnr_db(w, want_back), 1e-9)

    # ---- per channel, along axis 0 and along axis 1 --------------------------
    for axis in (0, 1):
        scales, zps = db.execute("SELECT q_per_channel_scales(?1, ?2, ?3),"
                                 " q_per_channel_zero_points(?1, ?2, ?3)", (x, shape, axis)).fetchone()
        want_scales, want_zps = numpy_params(w, axis)
        t.eq(f"channel{axis}-scales", array(scales), want_scales)
        t.eq(f"channel{axis}-zero-points", array(zps, "int32"), want_zps)
        codes, back = db.execute(
            "SELECT quantize_per_channel_blob(?1, ?2, ?3, ?4, ?5),"
            " dequantize_per_channel_blob(quantize_per_channel_blob(?1, ?2, ?3, ?4, ?5), ?2, ?3, ?4, ?5)",
            (x, scales, zps, shape, axis)).fetchone()
        q, want_back = numpy_round_trip(w, want_scales, want_zps, axis)
        t.eq(f"channel{axis}-codes", array(codes, "int8", w.shape), q)
        t.eq(f"channel{axis}-dequantized", array(back, "f32", w.shape), want_back)
        sqnr = one(db, "SELECT q_sqnr(?, ?)", x, back)
        t.near(f"channel{axis}-sqnr", sqnr, sqnr_db(w, want_back), 1e-9)
        if axis == 0:
            # The output channels' ranges differ 50x: per channel gains 6 dB.
            t.eq("sqnr-rounded", (round(tensor_sqnr, 2), round(sqnr, 2)), (38.73, 44.8))


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]
