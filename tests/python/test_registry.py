"""A weight through the registry (sql/registry.sql) and back to floats: stored
with f32_blob, quantized per tensor and per channel along its own
channel_axis in SQL, dequantized from each stored row's own columns, read
back with array() and measured."""
import json
import os
import sqlite3

import numpy as np

import sqlite_quant
from sqlite_quant import array, f32_blob
from test_quantize import numpy_params, numpy_round_trip, sqnr_db, weight

QUANTIZE = """
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, scale, zero_point, codes)
SELECT tensor_id, 'int8', 'affine', 'tensor', s, z, quantize_blob(x, s, z)
FROM (SELECT tensor_id, q_f32(data, dtype) AS x, q_scale(q_f32(data, dtype)) AS s,
             q_zero_point(q_f32(data, dtype)) AS z FROM tensors);
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, axis, scales, zero_points, codes)
SELECT tensor_id, 'int8', 'affine', 'channel', channel_axis, s, z,
       quantize_per_channel_blob(x, s, z, shape, channel_axis)
FROM (SELECT tensor_id, shape, channel_axis, q_f32(data, dtype) AS x,
             q_per_channel_scales(q_f32(data, dtype), shape, channel_axis) AS s,
             q_per_channel_zero_points(q_f32(data, dtype), shape, channel_axis) AS z
      FROM tensors WHERE channel_axis IS NOT NULL);
"""

# Each row dequantized from its own columns (docs/REGISTRY.md#the-registry).
DEQUANTIZED = """
SELECT q.quantization_id, q.granularity, q.dtype, t.shape, q.codes,
       CASE q.granularity
         WHEN 'tensor'  THEN dequantize_blob(q.codes, q.scale, q.zero_point, q.dtype)
         WHEN 'channel' THEN dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
                                 coalesce(q.view_shape, t.shape), q.axis, q.dtype)
       END
FROM quantizations AS q JOIN tensors AS t USING (tensor_id) ORDER BY q.quantization_id
"""


def run(t, env):
    db = sqlite3.connect(os.path.join(env.tmp, "registry.db"))
    sqlite_quant.load(db)
    with open(os.path.join(env.repo, "sql", "registry.sql"), encoding="utf-8") as f:
        db.executescript(f.read())

    w = weight()
    db.execute("INSERT INTO models (name, version, format, source, licence)"
               " VALUES ('toy', '1', 'other', 'tests/python/test_quantize.py', 'MIT')")
    # A [16, 8, 3, 3] conv weight whose output channels are axis 0, and the
    # same weight laid out [8, 16, 3, 3] (as a transposed convolution stores
    # it), whose output channels are axis 1.
    wt = np.swapaxes(w, 0, 1)
    for name, tensor, axis in [("conv.weight", w, 0), ("deconv.weight", wt, 1)]:
        db.execute("INSERT INTO tensors (model_id, name, shape, dtype, channel_axis, data)"
                   " VALUES (1, ?, ?, 'f32', ?, ?)", (name, json.dumps(tensor.shape), axis, f32_blob(tensor)))
    db.executescript(QUANTIZE)

    rows = db.execute(DEQUANTIZED).fetchall()
    t.eq("rows", [(r[0], r[1]) for r in rows],
         [(1, "tensor"), (2, "tensor"), (3, "channel"), (4, "channel")])
    tensors = {1: (w, None), 2: (wt, None), 3: (w, 0), 4: (wt, 1)}
    for qid, granularity, dtype, shape, codes, back_blob in rows:
        tensor, axis = tensors[qid]
        scale, zp = numpy_params(tensor, axis)
        q, want_back = numpy_round_trip(tensor, scale, zp, axis)
        back = array(back_blob, "f32", shape)
        t.eq(f"row{qid}-codes", array(codes, dtype, shape), q)
        t.eq(f"row{qid}-floats", back, want_back)
        sqnr = db.execute("SELECT q_sqnr(data, ?) FROM tensors JOIN quantizations USING (tensor_id)"
                          " WHERE quantization_id = ?", (f32_blob(back), qid)).fetchone()[0]
        t.near(f"row{qid}-sqnr", sqnr, sqnr_db(tensor, back), 1e-9)
        db.execute("UPDATE quantizations SET sqnr_db = ? WHERE quantization_id = ?", (sqnr, qid))

    # The per-channel scales as the channel_scales view explodes them (it
    # needs the extension: q_each), against the stored BLOB.
    stored = db.execute("SELECT scales FROM quantizations WHERE quantization_id = 4").fetchone()[0]
    view = db.execute("SELECT scale FROM channel_scales WHERE quantization_id = 4 ORDER BY channel").fetchall()
    t.eq("channel-scales-view", np.array([r[0] for r in view], np.float32), array(stored))

    # The widest channels of every tensor, each along its own channel_axis.
    widest = db.execute("""
        SELECT t.name, c.channel FROM tensors AS t,
               q_channels(q_f32(t.data, t.dtype), t.shape, t.channel_axis) AS c
        ORDER BY c.max - c.min DESC LIMIT 2""").fetchall()
    span = w.max(axis=(1, 2, 3)) - w.min(axis=(1, 2, 3))
    top = int(np.argmax(span))
    t.eq("widest-channels", sorted(widest), [("conv.weight", top), ("deconv.weight", top)])

    # Bits per weight: 1152 codes, plus 16 float32 scales and 16 int8 zero
    # points per channel row, or one scale and one zero point.
    summary = db.execute("SELECT label, tensors, round(bits_per_weight, 4), round(worst_sqnr_db, 2)"
                         " FROM model_summary ORDER BY label").fetchall()
    t.eq("model-summary", summary,
         [("int8 channel affine", 2, 8.5556, 44.8), ("int8 tensor affine", 2, 8.0347, 38.73)])
    db.close()
