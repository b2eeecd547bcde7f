#!/usr/bin/python3
"""registry_to_torch.py: registry rows as PyTorch quantized tensors.

    /usr/bin/python3 examples/registry_to_torch.py [DB]

`to_torch(con, quantization_id)` turns one row of the registry's
`quantizations` table (sql/registry.sql) into the torch tensor a PyTorch
user would have made: per-tensor rows into
`torch._make_per_tensor_quantized_tensor`, per-channel rows into
`torch._make_per_channel_quantized_tensor`, with the row's own codes, scale(s),
zero point(s) and axis.  The codes are used as they are (torch's int_repr),
nothing is re-quantized.  Rows torch cannot hold are refused with the reason:
per-block and ggml rows (torch has no such quantizer), and dtypes without a
torch quantized dtype (int16, uint16, int4 and uint4; torch 1.13's quint4x2
packs its own way and has no per-channel form).

With a DB argument, every row of that registry that torch can hold is
converted; without one, a fresh in-memory registry gets a few tensors
quantized in SQL (per tensor and per channel, int8 and uint8, affine and
symmetric).  Either way each converted tensor is checked: torch's
`dequantize()` must give exactly the bytes the extension's dequantize gives
for the same row (dequantize_blob / dequantize_per_channel_blob), and its
`int_repr()` exactly the stored codes.  Prints one line per row and exits 1
on any difference (the last line is "N passed, N failed").  The extension is dist/quant unless SQLITE_QUANT_EXT
names another build.  Needs Debian's python3-torch and python3-numpy.
"""
import json
import os
import sqlite3
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# registry dtype -> (numpy dtype of the codes, torch quantized dtype)
TORCH_DTYPES = {
    'int8': ('<i1', torch.qint8),
    'uint8': ('<u1', torch.quint8),
    'int32': ('<i4', torch.qint32),
}

ROW = '''SELECT q.dtype, q.granularity, q.scale, q.zero_point, q.scales,
                q.zero_points, q.axis, q.codes, coalesce(q.view_shape, t.shape)
         FROM quantizations AS q JOIN tensors AS t USING (tensor_id)
         WHERE q.quantization_id = ?'''


class NotForTorch(Exception):
    """The row is valid in the registry but has no torch equivalent."""


def to_torch(con, quantization_id):
    """The quantized torch tensor of one registry row."""
    row = con.execute(ROW, (quantization_id,)).fetchone()
    if row is None:
        raise KeyError('no quantization %d' % quantization_id)
    dtype, granularity, scale, zero_point, scales, zero_points, axis, codes, shape = row
    if granularity not in ('tensor', 'channel'):
        raise NotForTorch('granularity %s has no torch quantizer' % granularity)
    if dtype not in TORCH_DTYPES:
        raise NotForTorch('dtype %s has no torch quantized dtype' % dtype)
    np_dtype, qdtype = TORCH_DTYPES[dtype]
    shape = json.loads(shape)
    ints = torch.from_numpy(np.frombuffer(codes, dtype=np_dtype).reshape(shape).copy())
    if granularity == 'tensor':
        # The registry's scale is the REAL the extension used; torch keeps a
        # double too, and both round it to float32 where they compute.
        return torch._make_per_tensor_quantized_tensor(ints, scale, zero_point)
    if dtype == 'int32':
        raise NotForTorch('torch has no per-channel qint32 tensor')
    s = torch.from_numpy(np.frombuffer(scales, dtype='<f4').astype(np.float64))
    z = torch.from_numpy(np.frombuffer(zero_points, dtype='<i4').astype(np.int64))
    return torch._make_per_channel_quantized_tensor(ints, s, z, axis)


# What the extension itself dequantizes a row to.
EXT_DEQUANTIZE = '''
SELECT CASE q.granularity
  WHEN 'tensor' THEN dequantize_blob(q.codes, q.scale, q.zero_point, q.dtype)
  ELSE dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
                                   coalesce(q.view_shape, t.shape), q.axis, q.dtype)
  END
FROM quantizations AS q JOIN tensors AS t USING (tensor_id)
WHERE q.quantization_id = ?'''


def check(con, quantization_id):
    """torch's view of the row agrees with the extension's, bit for bit."""
    qt = to_torch(con, quantization_id)
    expect, = con.execute(EXT_DEQUANTIZE, (quantization_id,)).fetchone()
    codes, = con.execute('SELECT codes FROM quantizations WHERE quantization_id = ?',
                         (quantization_id,)).fetchone()
    got = qt.dequantize().numpy().astype('<f4').tobytes()
    ok = got == expect and qt.int_repr().numpy().tobytes() == codes
    return qt, ok


def sample_registry(con):
    """A fresh registry with a few tensors quantized in SQL."""
    with open(os.path.join(HERE, '..', 'sql', 'registry.sql')) as f:
        con.executescript(f.read())
    rng = np.random.default_rng(12)
    con.execute("INSERT INTO models (name, version, format, source, licence) "
                "VALUES ('sample', '1', 'other', 'registry_to_torch.py', 'MIT')")
    weights = {
        'conv.weight': (rng.normal(size=(8, 3, 3, 3))
                        * np.linspace(0.05, 2.0, 8)[:, None, None, None]),
        'fc.weight': rng.standard_t(3, size=(16, 24)),
    }
    for name, w in weights.items():
        w = np.ascontiguousarray(w, dtype='<f4')
        con.execute("INSERT INTO tensors (model_id, name, shape, dtype, channel_axis, data) "
                    "VALUES (1, ?, ?, 'f32', 0, ?)",
                    (name, json.dumps(list(w.shape)), w.tobytes()))
    con.executescript('''
    CREATE TEMP VIEW schemes AS
    SELECT d.dtype, s.scheme FROM (SELECT 'int8' AS dtype UNION ALL SELECT 'uint8') AS d,
         (SELECT 'affine' AS scheme UNION ALL SELECT 'symmetric') AS s;
    INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, scale,
                               zero_point, codes)
    SELECT tensor_id, dtype, scheme, 'tensor', scale, zero_point,
           quantize_blob(data, scale, zero_point, dtype)
    FROM (SELECT t.tensor_id, t.data, s.dtype, s.scheme,
                 q_scale(t.data, s.dtype, s.scheme) AS scale,
                 q_zero_point(t.data, s.dtype, s.scheme) AS zero_point
          FROM tensors AS t, schemes AS s);
    INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, axis,
                               scales, zero_points, codes)
    SELECT tensor_id, dtype, scheme, 'channel', channel_axis, scales, zero_points,
           quantize_per_channel_blob(data, scales, zero_points, shape,
                                     channel_axis, dtype)
    FROM (SELECT t.tensor_id, t.data, t.shape, t.channel_axis, s.dtype, s.scheme,
                 q_per_channel_scales(t.data, t.shape, t.channel_axis, s.dtype,
                                      s.scheme) AS scales,
                 q_per_channel_zero_points(t.data, t.shape, t.channel_axis, s.dtype,
                                           s.scheme) AS zero_points
          FROM tensors AS t, schemes AS s);
    ''')


def main():
    con = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else ':memory:')
    con.enable_load_extension(True)
    con.load_extension(os.environ.get('SQLITE_QUANT_EXT', 'dist/quant'))
    if len(sys.argv) == 1:
        sample_registry(con)
    failed = converted = 0
    for qid, label, name in con.execute(
            'SELECT quantization_id, label, t.name FROM quantizations '
            'JOIN tensors AS t USING (tensor_id) ORDER BY quantization_id').fetchall():
        try:
            qt, ok = check(con, qid)
        except NotForTorch as e:
            print('%-12s %-28s skipped: %s' % (name, label, e))
            continue
        converted += 1
        failed += not ok
        print('%-12s %-28s %-24s %s' % (name, label, str(qt.qscheme()).split('.')[-1],
                                        'identical' if ok else 'DIFFERENT'))
    if len(sys.argv) == 1:
        # The check can fail: one step of scale off gives other bytes.
        qt = to_torch(con, 1)
        off = torch._make_per_tensor_quantized_tensor(
            qt.int_repr(), float(np.nextafter(np.float32(qt.q_scale()), np.float32(1))),
            qt.q_zero_point())
        expect, = con.execute(EXT_DEQUANTIZE, (1,)).fetchone()
        converted += 1
        if off.dequantize().numpy().astype('<f4').tobytes() == expect:
            print('the check cannot tell a scale one float32 step off')
            failed += 1
        else:
            print('a scale one float32 step off is told apart: ok')
    print('%d passed, %d failed' % (converted - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
