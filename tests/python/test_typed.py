"""Typed data (docs/reference/data-formats.md#subtypes) from Python: numpy
float64 bytes passed where float32 is read are refused (0.2.0 read them as
float32 and gave 2.9e17, or 0.0157 for 0.00049), and bf16 / f16 tensors of
a model file read in SQL give the exact float32 answer."""
import sqlite3

import numpy as np

import sqlite_quant
from sqlite_quant import array, f32_blob

F64 = ("q_scale: x looks like float64 data (numpy's default dtype; convert with"
       " .astype(np.float32) or pass the .npy bytes), got {} bytes")


def run(t, env):
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    rng = np.random.default_rng(25)
    w = (rng.normal(size=(64, 16)) * 0.02).astype(np.float32)

    # torch's .double() / numpy's astype(np.float64) of float32 weights
    t.raises("f64-of-f32-refused", sqlite3.OperationalError, F64.format(8192),
             db.execute, "SELECT q_scale(?)", (w.astype(np.float64).tobytes(),))
    t.raises("f64-refused", sqlite3.OperationalError, F64.format(8192),
             db.execute, "SELECT q_scale(?)", (rng.normal(size=1024).tobytes(),))
    # the same weights as float32 are read
    t.eq("f32-read", db.execute("SELECT q_length(?)", (f32_blob(w),)).fetchone()[0], 1024)

    # bf16 and f16 tensors in a safetensors file, read straight from data
    model = db.execute(
        "SELECT q_safetensors_agg(name, data, dtype, '[64,16]') FROM"
        " (SELECT 'b' AS name, q_bf16(?1) AS data, 'bf16' AS dtype"
        "  UNION ALL SELECT 'h', q_f16(?1), 'f16')", (f32_blob(w),)).fetchone()[0]
    rows = db.execute("SELECT name, q_scale(data), q_scale(q_f32(data, dtype)), q_f32(data, dtype)"
                      " FROM q_tensors(?) ORDER BY name", (model,)).fetchall()
    for name, scale, explicit, values in rows:
        t.eq(f"{name}-scale-exact", scale, explicit)
        # numpy's own: the widened values' int8 affine scale
        v = array(values)
        lo, hi = min(v.min(), np.float32(0)), max(v.max(), np.float32(0))
        t.eq(f"{name}-scale-numpy", scale, float(np.float32((hi - lo) / np.float32(255))))
    t.raises("int8-codes-refused", sqlite3.OperationalError,
             "q_scale: x is int8 codes, not float32; dequantize them with"
             " dequantize_blob(x, scale, zero_point, 'int8')",
             db.execute, "SELECT q_scale(quantize_blob(?, 0.001, 0))", (f32_blob(w),))
    db.close()
