#!/usr/bin/python3
"""export_onnx.py: Silero VAD as ONNX with weight-only quantization, per policy.

    /usr/bin/python3 examples/export_onnx.py --db build/demo.db \
        --model build/models/silero_vad_v5.onnx --ext dist/quant \
        --out-dir build/demo/policies [--policy NAME ...] [--dequantized]

For each policy of the registry (every one, or those named) that made
choices for Silero VAD's tensors (policy_choices, float ones included), writes
OUT_DIR/<policy>/silero_vad.onnx and records it in `exports` (path, bytes,
sha256; the evaluations of a previous file with other bytes are deleted).
The float model's weights are Constant nodes inside the two branches of its
If node (docs/DEMO.md#what-it-prints); each weight that the policy quantized becomes,
in place, the same computation from integers:

  Constant <w>__codes (int8/uint8/int16/uint16/int32/int4/uint4)
  Constant <w>__scale (float32), Constant <w>__zero_point (the codes' type;
      left out when every zero point is 0, ONNX's default)
  DequantizeLinear -> <w>          per tensor: scalar scale and zero point
                                   per channel: 1-D, axis = the row's axis
                                   per block: opset 21 block_size, on the
                                   row's view_shape ([O, I*K] for a conv
                                   kernel [O, I, K]), then Reshape -> <w>

so every consumer, however deeply nested, reads the same name.  A ggml type
(q8_0, q4_K, ...) has no ONNX operator: its dequantized floats
(q_ggml_dequantize) are stored as a float32 Constant, so such a file is not
smaller than the float model for those tensors.  Tensors the policy keeps
float, and all that the registry does not hold, are left as they are.

The model is moved to opset 21 (IR 10) whatever the policy: ReduceMean's
axes become an input (opset 18), and any operator whose meaning could have
changed between the model's opset and 21 is refused by name.

Before anything is written, every DequantizeLinear is computed here as ONNX
defines it, float32((codes - zero_point)) * float32(scale), and must equal
the extension's own dequantization of the stored row byte for byte.

--dequantized writes, beside each file, silero_vad.dequantized.onnx: the
same opset-21 model with the registry's dequantized floats as float
Constants (no DequantizeLinear), a reference that ONNX Runtime must match
bit for bit (make test-onnx-export).  Not recorded in `exports`.

The bytes depend only on the float model and the registry rows: no time
stamps, names sorted, protobuf fields in a fixed order.
"""

import argparse
import hashlib
import os
import re
import sqlite3
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 21
IR_VERSION = 10

# ONNX element types (TensorProto.DataType); INT4/UINT4 are past onnx 1.12's
# enum, so they are written as their numbers.
ONNX_TYPE = {'int8': TensorProto.INT8, 'uint8': TensorProto.UINT8,
             'int16': TensorProto.INT16, 'uint16': TensorProto.UINT16,
             'int32': TensorProto.INT32, 'uint4': 21, 'int4': 22}
# Codes and zero points as stored (little-endian) for the wider types.
NUMPY_TYPE = {'int8': '<i1', 'uint8': '<u1', 'int16': '<i2', 'uint16': '<u2',
              'int32': '<i4'}
FOUR_BIT = ('int4', 'uint4')

# Operators of the default domain whose inputs, attributes and meaning are
# the same at opset 21 as at 16 for what a float model uses (later versions
# only added types or optional inputs).  ReduceMean is rewritten; anything
# else is refused rather than silently reinterpreted.
SAME_AT_21 = {
    'Add', 'Cast', 'Concat', 'Constant', 'ConstantOfShape', 'Conv',
    'Equal', 'Gather', 'Identity', 'If', 'LSTM', 'MatMul', 'Mul', 'Not', 'Pad',
    'Pow', 'Relu', 'Reshape', 'Shape', 'Sigmoid', 'Size', 'Slice', 'Sqrt',
    'Squeeze', 'Sub', 'Tanh', 'Transpose', 'Unsqueeze'}


def fail(msg):
    sys.exit('export_onnx: ' + msg)


def tensor(name, onnx_type, dims, data):
    t = TensorProto()
    t.name = name
    t.data_type = onnx_type
    t.dims.extend(dims)
    t.raw_data = data
    return t


def constant(name, t):
    return helper.make_node('Constant', [], [name], name=name, value=t)


def pack4(values):
    """4-bit codes, element 2i in the low nibble (ONNX and the extension)."""
    v = (np.asarray(values).reshape(-1) & 0xF).astype(np.uint8)
    if v.size % 2:
        v = np.append(v, np.uint8(0))
    return (v[0::2] | (v[1::2] << 4)).tobytes()


def unpack4(data, count, signed):
    b = np.frombuffer(data, np.uint8)
    v = np.empty(b.size * 2, np.int32)
    v[0::2] = b & 0xF
    v[1::2] = b >> 4
    v = v[:count]
    return np.where(v >= 8, v - 16, v) if signed else v


def codes_of(q, count):
    """The row's codes as int64 values."""
    dtype, data = q['dtype'], q['codes']
    want = (count + 1) // 2 if dtype in FOUR_BIT else count * np.dtype(NUMPY_TYPE[dtype]).itemsize
    if len(data) != want:
        fail(f"{q['name']}: the codes have {len(data)} bytes, not the {want} "
             f"of {count} {dtype} values")
    if dtype in FOUR_BIT:
        return unpack4(data, count, dtype == 'int4')
    return np.frombuffer(data, NUMPY_TYPE[dtype]).astype(np.int64)


def stored(values, dtype):
    """Integers as ONNX stores them in raw_data (little-endian, 4-bit packed)."""
    return pack4(values) if dtype in FOUR_BIT else np.asarray(values).astype(NUMPY_TYPE[dtype]).tobytes()


def param_shape(q, view):
    """The scale's shape for DequantizeLinear, and the axis attribute."""
    g = q['granularity']
    if g == 'tensor':
        return [], None
    axis = q['axis'] + len(view) if q['axis'] < 0 else q['axis']
    if g == 'channel':
        return [view[axis]], axis
    shape = list(view)
    shape[axis] = -(-view[axis] // q['block_size'])
    return shape, axis


def onnx_dequantize(codes, view, scales, zps, q):
    """float32(codes - zp) * scale with scale and zp broadcast as ONNX does."""
    pshape, axis = param_shape(q, view)
    c = codes.reshape(view)
    s = scales.reshape(pshape)
    z = zps.reshape(pshape)
    if q['granularity'] == 'channel':
        bshape = [1] * len(view)
        bshape[axis] = view[axis]
        s, z = s.reshape(bshape), z.reshape(bshape)
    elif q['granularity'] == 'block':
        s = np.repeat(s, q['block_size'], axis=axis)
        z = np.repeat(z, q['block_size'], axis=axis)
        index = [slice(None)] * len(view)
        index[axis] = slice(0, view[axis])
        s, z = s[tuple(index)], z[tuple(index)]
    return ((c - z).astype(np.float32) * s).astype(np.float32).reshape(-1)


def dequantize_nodes(name, q, shape):
    """Constant and DequantizeLinear nodes computing `name`, and the floats."""
    view = q['view_shape'] or shape
    count = int(np.prod(shape))
    if int(np.prod(view)) != count:
        fail(f"{name}: view_shape {view} does not hold the {count} elements of {shape}")
    codes = codes_of(q, count)
    pshape, axis = param_shape(q, view)
    if q['granularity'] == 'tensor':
        scales = np.array([q['scale']], np.float32)
        zps = np.array([q['zero_point']], np.int64)
    else:
        scales = np.frombuffer(q['scales'], '<f4').astype(np.float32)
        zps = np.frombuffer(q['zero_points'], '<i4').astype(np.int64)
    if scales.size != max(1, int(np.prod(pshape))):
        fail(f"{name}: {scales.size} scales, but {q['granularity']} on {view} "
             f"needs {int(np.prod(pshape))}")
    floats = onnx_dequantize(codes, view, scales, zps, q)
    if floats.tobytes() != q['dequantized']:
        bad = np.flatnonzero(floats.view(np.uint32)
                             != np.frombuffer(q['dequantized'], '<u4'))
        fail(f"{name}: DequantizeLinear would give {floats[bad[0]]!r} at element "
             f"{bad[0]}, the extension {np.frombuffer(q['dequantized'], '<f4')[bad[0]]!r} "
             f"({bad.size} elements differ)")

    dtype = q['dtype']
    nodes = [constant(name + '__codes', tensor(name + '__codes', ONNX_TYPE[dtype], view,
                                               stored(codes, dtype))),
             constant(name + '__scale', tensor(name + '__scale', TensorProto.FLOAT, pshape,
                                               scales.astype('<f4').tobytes()))]
    inputs = [name + '__codes', name + '__scale']
    if zps.any():
        nodes.append(constant(name + '__zero_point',
                              tensor(name + '__zero_point', ONNX_TYPE[dtype], pshape,
                                     stored(zps, dtype))))
        inputs.append(name + '__zero_point')
    attrs = {}
    if axis is not None:
        attrs['axis'] = axis
    if q['granularity'] == 'block':
        attrs['block_size'] = q['block_size']
    reshape = list(view) != list(shape)
    out = name + '__view' if reshape else name
    nodes.append(helper.make_node('DequantizeLinear', inputs, [out],
                                  name=name + '__dequantize', **attrs))
    if reshape:
        nodes.append(constant(name + '__shape', tensor(name + '__shape', TensorProto.INT64,
                                                       [len(shape)],
                                                       np.array(shape, '<i8').tobytes())))
        nodes.append(helper.make_node('Reshape', [out, name + '__shape'], [name],
                                      name=name + '__reshape'))
    return nodes, floats


def float_constant(name, shape, floats):
    return constant(name, tensor(name, TensorProto.FLOAT, shape,
                                 floats.astype('<f4').tobytes()))


def registry_name(scope, raw):
    """The tensor's name in the registry, as examples/import_models.sql makes it."""
    prefix = {'then_branch': '16k/', 'else_branch': '8k/'}[scope]
    m = re.match(r'If_[0-9]+_[a-z]+_branch__Inline_[0-9]+__(.*)$', raw)
    return prefix + (m.group(1) if m else raw).lstrip('/')


def upgrade(graph):
    """Rewrite the graph (and its subgraphs) for opset 21, in place."""
    nodes = []
    for node in graph.node:
        if node.domain not in ('', 'ai.onnx'):
            fail(f"{node.name}: operator domain '{node.domain}' is not handled")
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                upgrade(a.g)
        if node.op_type == 'ReduceMean':
            axes = [a for a in node.attribute if a.name == 'axes']
            if axes:
                cname = node.name + '__axes'
                nodes.append(constant(cname, tensor(cname, TensorProto.INT64,
                                                    [len(axes[0].ints)],
                                                    np.array(axes[0].ints, '<i8').tobytes())))
                node.attribute.remove(axes[0])
                node.input.append(cname)
        elif node.op_type not in SAME_AT_21:
            fail(f"{node.name}: {node.op_type} is not known to mean the same at opset {OPSET}")
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


def rewrite_branch(graph, scope, choices, dequantized_only):
    """Replace the branch's chosen weight Constants; return what was replaced."""
    nodes, done = [], []
    for node in graph.node:
        key = None
        if node.op_type == 'Constant' and len(node.output) == 1:
            key = registry_name(scope, node.output[0])
        q = choices.get(key)
        if q is None:
            nodes.append(node)
            continue
        value = numpy_helper.to_array(node.attribute[0].t)
        shape = list(value.shape)
        if shape != q['shape'] or value.dtype != np.float32 \
                or value.astype('<f4').tobytes() != q['data']:
            fail(f"{key}: the model's tensor differs from the registry's")
        name = node.output[0]
        # ggml blocks and log2 codes have no DequantizeLinear: their floats.
        if q['granularity'] == 'ggml' or q['scheme'] == 'log2' or dequantized_only:
            floats = np.frombuffer(q['dequantized'], '<f4')
            nodes.append(float_constant(name, shape, floats))
        else:
            nodes.extend(dequantize_nodes(name, q, shape)[0])
        done.append(key)
    del graph.node[:]
    graph.node.extend(nodes)
    return done


def load_choices(db, policy_id, model_id):
    """The policy's quantized tensors of the model, with the extension's floats."""
    rows = db.execute("""
        SELECT t.name, t.shape, t.data, t.dtype AS tdtype, q.dtype, q.scheme, q.granularity,
               q.view_shape, q.axis, q.block_size, q.scale, q.zero_point,
               q.scales, q.zero_points, q.codes, f.x AS dequantized
        FROM policy_choices c JOIN tensors t USING (tensor_id)
             JOIN quantizations q USING (quantization_id)
             JOIN quantization_floats f USING (quantization_id)
        WHERE c.policy_id = ? AND t.model_id = ? ORDER BY t.name""",
                      (policy_id, model_id)).fetchall()
    choices = {}
    for r in rows:
        q = dict(r)
        if q['tdtype'] != 'f32':
            fail(f"{q['name']}: stored as {q['tdtype']}; Silero's weights are f32")
        q['shape'] = [int(d) for d in q['shape'].strip('[]').split(',')]
        q['view_shape'] = None if q['view_shape'] is None else \
            [int(d) for d in q['view_shape'].strip('[]').split(',')]
        if len(q['dequantized']) != 4 * int(np.prod(q['shape'])):
            fail(f"{q['name']}: the extension dequantized {len(q['dequantized']) // 4} "
                 f"elements, the tensor has {int(np.prod(q['shape']))}")
        choices[q['name']] = q
    return choices


def export(model_bytes, choices, dequantized_only):
    model = onnx.load_from_string(model_bytes)
    upgrade(model.graph)
    ifs = [n for n in model.graph.node if n.op_type == 'If']
    if len(ifs) != 1:
        fail(f'the model has {len(ifs)} top-level If nodes, not 1 (is it Silero VAD v5?)')
    done = []
    for a in ifs[0].attribute:
        done += rewrite_branch(a.g, a.name, choices, dequantized_only)
    missing = sorted(set(choices) - set(done))
    if missing:
        fail('the model has no Constant for ' + ', '.join(missing))
    del model.opset_import[:]
    model.opset_import.extend([helper.make_opsetid('', OPSET)])
    model.ir_version = IR_VERSION
    model.producer_name = 'sqlite-quant examples/export_onnx.py'
    model.producer_version = ''
    return model.SerializeToString(), len(done)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.part'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--db', default='build/demo.db')
    ap.add_argument('--model', default='build/models/silero_vad_v5.onnx')
    ap.add_argument('--ext', default='dist/quant', help='the extension, without .so')
    ap.add_argument('--out-dir', default='build/demo/policies')
    ap.add_argument('--policy', action='append', help='only this policy (repeatable)')
    ap.add_argument('--dequantized', action='store_true',
                    help='also write the float reference silero_vad.dequantized.onnx')
    args = ap.parse_args()

    with open(args.model, 'rb') as f:
        model_bytes = f.read()
    db = sqlite3.connect(args.db)
    db.row_factory = sqlite3.Row
    db.enable_load_extension(True)
    db.load_extension(args.ext)
    db.execute('PRAGMA foreign_keys = ON')
    model = db.execute("SELECT model_id FROM models WHERE name = 'silero_vad' "
                       "AND sha256 = ?", (hashlib.sha256(model_bytes).hexdigest(),)).fetchone()
    if model is None:
        fail(f'{args.db} has no silero_vad model imported from {args.model} (same sha256)')
    policies = db.execute('SELECT policy_id, name FROM policies ORDER BY name').fetchall()
    if args.policy:
        unknown = sorted(set(args.policy) - {p['name'] for p in policies})
        if unknown:
            fail('no such policy: ' + ', '.join(unknown))
        policies = [p for p in policies if p['name'] in args.policy]
    if not policies:
        fail(f'{args.db} has no policies')

    for p in policies:
        if not re.fullmatch(r'[A-Za-z0-9._-]+', p['name']) or p['name'] in ('.', '..'):
            fail(f"policy names become directories: letters, digits, '.', '_' "
                 f"and '-' only, got {p['name']!r}")
        decided = db.execute("""
            SELECT count(*) FROM policy_choices JOIN tensors USING (tensor_id)
            WHERE policy_id = ? AND model_id = ?""",
                             (p['policy_id'], model['model_id'])).fetchone()[0]
        if decided == 0:
            print(f"export_onnx: {p['name']}: no choices for silero_vad; nothing written")
            continue
        choices = load_choices(db, p['policy_id'], model['model_id'])
        data, n = export(model_bytes, choices, False)
        path = os.path.join(args.out_dir, p['name'], 'silero_vad.onnx')
        write(path, data)
        digest = hashlib.sha256(data).hexdigest()
        with db:
            # The registry's convention (sql/registry.sql, exports): an UPDATE
            # with a new sha256 forgets the old file's evaluations, one with
            # the same bytes keeps them; an INSERT that collided would forget
            # them even for the same bytes, so only a new export is inserted.
            if db.execute("""
                UPDATE exports SET path = ?, bytes = ?, sha256 = ?
                WHERE policy_id = ? AND model_id = ? AND format = 'onnx'""",
                          (path, len(data), digest, p['policy_id'],
                           model['model_id'])).rowcount == 0:
                db.execute("""
                    INSERT INTO exports (policy_id, model_id, format, path, bytes, sha256)
                    VALUES (?, ?, 'onnx', ?, ?, ?)""",
                           (p['policy_id'], model['model_id'], path, len(data), digest))
        if args.dequantized:
            write(os.path.join(args.out_dir, p['name'], 'silero_vad.dequantized.onnx'),
                  export(model_bytes, choices, True)[0])
        ggml = sum(q['granularity'] == 'ggml' for q in choices.values())
        print(f"export_onnx: {path}: {len(data)} bytes, {n} tensors quantized"
              + (f' ({ggml} ggml, stored dequantized)' if ggml else '')
              + f', sha256 {digest[:16]}')


if __name__ == '__main__':
    main()
