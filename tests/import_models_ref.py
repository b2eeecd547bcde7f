#!/usr/bin/python3
"""import_models_ref.py: the reference importer of the demo's two models.

    /usr/bin/python3 tests/import_models_ref.py [--db build/demo.db]
        [--models build/models] [--schema sql/registry.sql]

The demo imports in SQL (examples/import_models.sql, through q_tensors_file);
this independent importer, onnx's own loader and a flatbuffer reader of its
own, is what `make test-import` (tests/import_check.sh) compares it with,
tensor for tensor.  It was the demo's importer before the extension read
model files.

Creates the registry schema (sql/registry.sql) in the database if missing and
fills `models` and `tensors`.  Python's sqlite3 module only stores BLOBs here:
the extension is not needed to import (the demo's SQL uses it afterwards).
Needs Debian's python3-onnx and python3-numpy (the system /usr/bin/python3).

Silero VAD v5 (ONNX, MIT).  The graph has no initializers: its weights are
Constant nodes inside the two branches of the top-level If node, which tests
`sr == 16000`; then_branch is the 16 kHz network, else_branch the 8 kHz one.
The importer walks every subgraph recursively and also takes graph
initializers when a graph has any.  A tensor is named by its branch and the
Constant's output name, with the exporter's inlining prefix removed:
`16k/encoder.0.reparam_conv.weight`.

MediaPipe face detection, short range (TFLite flatbuffer, Apache-2.0).  Read
with the small flatbuffer reader below (no tflite package): Model.buffers and
subgraphs[0].tensors (name, shape, type, buffer).  Its weights are FLOAT16
tensors (TensorType 1) that DEQUANTIZE ops widen at run time; they are stored
as dtype 'f16' BLOBs exactly as in the file (the demo widens them with
q_f32(data, 'f16')).  FLOAT32 tensors (type 0) with data would be stored as
'f32'; this model has none.

What is imported: every float32/float16 tensor that holds data and has at
least 16 elements.  Skipped, and listed on stdout: integer tensors (ONNX
int64 shape constants, TFLite int32 padding tables) and float tensors under 16
elements (Silero's scalar exponents of Pow and its 1-element output bias,
MediaPipe's 2- and 6-element classifier biases): too small to quantize in any
meaningful way.

channel_axis records the output-channel axis of tensors of rank >= 2 (ONNX
Conv [O, I, K] and LSTM [4H, I]: 0; TFLite CONV_2D [O, H, W, I]: 0; TFLite
DEPTHWISE_CONV_2D [1, H, W, C]: 3, found by following the DEQUANTIZE op to
the op that consumes the weight).  Rank-1 tensors (biases) get NULL.
"""

import argparse
import hashlib
import os
import re
import sqlite3
import struct
import sys

MIN_ELEMENTS = 16

MODELS = {
    'silero': dict(
        file='silero_vad_v5.onnx', name='silero_vad', version='v5',
        format='onnx',
        source='npm:@ricky0123/vad-web@0.0.31/dist/silero_vad_v5.onnx',
        licence='MIT', homepage='https://github.com/snakers4/silero-vad'),
    'mediapipe': dict(
        file='face_detection_short_range.tflite',
        name='face_detection_short_range',
        version='0.4.1657300184', format='tflite',
        source='npm:@mediapipe/face_detection@0.4.1657300184/'
               'face_detection_short_range.tflite',
        licence='Apache-2.0',
        homepage='https://github.com/google/mediapipe'),
}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def shape_json(shape):
    return '[' + ','.join(str(int(d)) for d in shape) + ']'


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


# ---------------------------------------------------------------------------
# ONNX (Silero VAD)
# ---------------------------------------------------------------------------

def onnx_tensors(path, skipped):
    """Yields (name, shape, dtype, data bytes, channel_axis)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    g = model.graph

    # The top-level If selects the sample rate: cond = Equal(sr, 16000).
    branch_names = {'then_branch': 'then', 'else_branch': 'else'}
    consts = {n.output[0]: n for n in g.node if n.op_type == 'Constant'}
    for n in g.node:
        if n.op_type == 'Equal':
            for inp in n.input:
                c = consts.get(inp)
                if c is not None:
                    v = numpy_helper.to_array(c.attribute[0].t)
                    if v.size == 1 and int(v) == 16000:
                        branch_names = {'then_branch': '16k', 'else_branch': '8k'}

    inline_prefix = re.compile(r'^If_\d+_(then|else)_branch__Inline_\d+__')

    def emit(prefix, raw_name, arr):
        name = inline_prefix.sub('', raw_name).lstrip('/')
        full = prefix + name if prefix else name
        if arr.dtype != np.float32:
            skipped.append((full, str(arr.dtype), list(arr.shape), 'not float32'))
            return None
        if arr.size < MIN_ELEMENTS:
            skipped.append((full, 'float32', list(arr.shape),
                            'fewer than %d elements' % MIN_ELEMENTS))
            return None
        data = np.ascontiguousarray(arr, dtype='<f4').tobytes()
        axis = 0 if arr.ndim >= 2 else None
        return (full, list(arr.shape), 'f32', data, axis)

    def walk(graph, prefix, depth):
        for init in graph.initializer:
            t = emit(prefix, init.name, numpy_helper.to_array(init))
            if t:
                yield t
        for node in graph.node:
            if node.op_type == 'Constant':
                for a in node.attribute:
                    if a.name == 'value':
                        t = emit(prefix, node.output[0],
                                 numpy_helper.to_array(a.t))
                        if t:
                            yield t
                    elif a.name.startswith('value'):
                        skipped.append((prefix + node.output[0], a.name, [],
                                        'non-tensor Constant'))
            subs = []
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    subs.append((a.name, a.g))
                elif a.type == onnx.AttributeProto.GRAPHS:
                    subs += [('%s%d' % (a.name, i), sg) for i, sg in enumerate(a.graphs)]
            # then_branch (16 kHz) first: the rate Silero is mostly run at.
            subs.sort(key=lambda s: not s[0].startswith('then'))
            for aname, sg in subs:
                # Only the outermost If names a branch ('16k/'); deeper
                # control flow (shape checks) holds no weights here.
                label = branch_names.get(aname, aname) if depth == 0 else None
                sub_prefix = prefix + label + '/' if label else prefix
                yield from walk(sg, sub_prefix, depth + 1)

    yield from walk(g, '', 0)


# ---------------------------------------------------------------------------
# TFLite flatbuffer (MediaPipe): a minimal reader of the fields we need.
#
# Flatbuffers in brief: the file starts with a uint32 offset to the root
# table.  A table starts with an int32 soffset; table - soffset is its vtable:
# uint16 vtable size, uint16 table size, then one uint16 per field giving the
# field's offset inside the table (0 = absent, use the default).  Scalars sit
# inline; strings, vectors and sub-tables are uint32 offsets relative to where
# the offset itself is stored.  Vectors are a uint32 length then the elements
# (vectors of tables hold offsets).  All little-endian.
#
# TFLite schema fields used (tensorflow/lite/schema/schema.fbs):
#   Model:    1 operator_codes, 2 subgraphs, 3 description, 4 buffers
#   SubGraph: 0 tensors, 3 operators, 4 name
#   Tensor:   0 shape [int], 1 type (byte), 2 buffer (uint), 3 name
#   Buffer:   0 data [ubyte] (1 offset, 2 size: data outside the flatbuffer,
#             for models over 2 GB; handled too)
#   Operator: 0 opcode_index, 1 inputs [int], 2 outputs [int]
#   OperatorCode: 0 deprecated_builtin_code (byte), 3 builtin_code (int)
# ---------------------------------------------------------------------------

TFLITE_FLOAT32, TFLITE_FLOAT16 = 0, 1
TFLITE_TYPES = {0: 'float32', 1: 'float16', 2: 'int32', 3: 'uint8',
                4: 'int64', 5: 'string', 6: 'bool', 7: 'int16', 9: 'int8'}
OP_DEPTHWISE_CONV_2D, OP_DEQUANTIZE = 4, 6


class FlatBuffer:
    def __init__(self, buf):
        self.buf = buf

    def u8(self, p):
        return self.buf[p]

    def u16(self, p):
        return struct.unpack_from('<H', self.buf, p)[0]

    def i32(self, p):
        return struct.unpack_from('<i', self.buf, p)[0]

    def u32(self, p):
        return struct.unpack_from('<I', self.buf, p)[0]

    def u64(self, p):
        return struct.unpack_from('<Q', self.buf, p)[0]

    def root(self):
        return self.u32(0)

    def field(self, table, i):
        """Absolute position of field i of the table, or None if absent."""
        vt = table - self.i32(table)
        if 4 + 2 * i >= self.u16(vt):
            return None
        off = self.u16(vt + 4 + 2 * i)
        return table + off if off else None

    def scalar(self, table, i, fmt, default=0):
        p = self.field(table, i)
        return struct.unpack_from('<' + fmt, self.buf, p)[0] if p is not None else default

    def table(self, table, i):
        p = self.field(table, i)
        return p + self.u32(p) if p is not None else None

    def vector(self, table, i):
        """(position of the first element, length), or (None, 0)."""
        p = self.field(table, i)
        if p is None:
            return None, 0
        v = p + self.u32(p)
        return v + 4, self.u32(v)

    def tables(self, table, i):
        start, n = self.vector(table, i)
        return [start + 4 * k + self.u32(start + 4 * k) for k in range(n)]

    def ints(self, table, i):
        start, n = self.vector(table, i)
        return [self.i32(start + 4 * k) for k in range(n)]

    def bytes_(self, table, i):
        start, n = self.vector(table, i)
        return self.buf[start:start + n] if start is not None else b''

    def string(self, table, i):
        start, n = self.vector(table, i)
        return self.buf[start:start + n].decode('utf-8') if start is not None else None


def tflite_tensors(path, skipped):
    with open(path, 'rb') as f:
        buf = f.read()
    if buf[4:8] != b'TFL3':
        raise SystemExit('import_models: %s is not a TFLite flatbuffer' % path)
    fb = FlatBuffer(buf)
    model = fb.root()
    buffers = fb.tables(model, 4)
    codes = []
    for oc in fb.tables(model, 1):
        dep = fb.scalar(oc, 0, 'b')
        code = fb.scalar(oc, 3, 'i')
        codes.append(max(dep, code))
    subgraph = fb.tables(model, 2)[0]
    tensors = fb.tables(subgraph, 0)

    # Which op consumes each tensor, looking through DEQUANTIZE (float16
    # weights reach the conv through a DEQUANTIZE to float32).
    producer_of_deq = {}
    consumers = {}
    for op in fb.tables(subgraph, 3):
        code = codes[fb.scalar(op, 0, 'I')]
        ins, outs = fb.ints(op, 1), fb.ints(op, 2)
        if code == OP_DEQUANTIZE:
            producer_of_deq[outs[0]] = ins[0]
        for i in ins:
            if i >= 0:
                consumers.setdefault(i, []).append(code)
    final_consumer = {}
    for t, cs in consumers.items():
        src = producer_of_deq.get(t, t)
        final_consumer.setdefault(src, []).extend(
            c for c in cs if c != OP_DEQUANTIZE)

    for idx, t in enumerate(tensors):
        name = fb.string(t, 3)
        shape = fb.ints(t, 0)
        ttype = fb.scalar(t, 1, 'b')
        b = fb.scalar(t, 2, 'I')
        data = b''
        if 0 < b < len(buffers):
            bt = buffers[b]
            data = fb.bytes_(bt, 0)
            if not data:
                off, size = fb.scalar(bt, 1, 'Q'), fb.scalar(bt, 2, 'Q')
                if off > 1 and size:
                    data = buf[off:off + size]
        if not data:
            continue                      # activations: no stored data
        if ttype not in (TFLITE_FLOAT32, TFLITE_FLOAT16):
            skipped.append((name, TFLITE_TYPES.get(ttype, str(ttype)), shape,
                            'not float'))
            continue
        n = numel(shape)
        if n < MIN_ELEMENTS:
            skipped.append((name, TFLITE_TYPES[ttype], shape,
                            'fewer than %d elements' % MIN_ELEMENTS))
            continue
        esize = 4 if ttype == TFLITE_FLOAT32 else 2
        if len(data) != n * esize:
            raise SystemExit('import_models: %s: %d bytes for shape %s'
                             % (name, len(data), shape))
        axis = None
        if len(shape) >= 2:
            axis = 3 if OP_DEPTHWISE_CONV_2D in final_consumer.get(idx, []) else 0
        yield (name, shape, 'f32' if ttype == TFLITE_FLOAT32 else 'f16',
               bytes(data), axis)


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--db', default='build/demo.db')
    ap.add_argument('--models', default='build/models')
    ap.add_argument('--schema', default=os.path.join(here, '..', 'sql', 'registry.sql'))
    ap.add_argument('--only', choices=sorted(MODELS), action='append',
                    help='import only this model (repeatable)')
    args = ap.parse_args()

    con = sqlite3.connect(args.db)
    with open(args.schema) as f:
        con.executescript(f.read())
    con.execute('PRAGMA foreign_keys = ON')

    readers = {'onnx': onnx_tensors, 'tflite': tflite_tensors}
    for key in args.only or ['silero', 'mediapipe']:
        m = MODELS[key]
        path = os.path.join(args.models, m['file'])
        if not os.path.exists(path):
            raise SystemExit('import_models: %s is missing; run examples/fetch_models.sh'
                             % path)
        skipped = []
        with con:
            con.execute('DELETE FROM models WHERE name = ? AND version = ?',
                        (m['name'], m['version']))
            cur = con.execute(
                'INSERT INTO models (name, version, format, source, licence, '
                'homepage, sha256) VALUES (?, ?, ?, ?, ?, ?, ?)',
                (m['name'], m['version'], m['format'], m['source'],
                 m['licence'], m['homepage'], sha256_file(path)))
            model_id = cur.lastrowid
            count = nbytes = 0
            for name, shape, dtype, data, axis in readers[m['format']](path, skipped):
                con.execute(
                    'INSERT INTO tensors (model_id, name, shape, dtype, '
                    'channel_axis, data) VALUES (?, ?, ?, ?, ?, ?)',
                    (model_id, name, shape_json(shape), dtype, axis, data))
                count += 1
                nbytes += len(data)
        print('import_models: %s %s: %d tensors, %d bytes (%s)'
              % (m['name'], m['version'], count, nbytes, path))
        ints = [s for s in skipped if s[3] != 'fewer than %d elements' % MIN_ELEMENTS]
        if ints:
            print('  skipped %d non-float tensors (%s)'
                  % (len(ints), ', '.join(sorted(set(s[1] for s in ints)))))
        for name, dtype, shape, why in skipped:
            if why.startswith('fewer'):
                print('  skipped %s %s %s: %s' % (name, dtype, shape_json(shape), why))
    con.close()


if __name__ == '__main__':
    main()
