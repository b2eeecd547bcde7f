#!/usr/bin/python3
"""inspect_onnx.py FILE...: one line per exported model, for exact comparison.

    <file>: opset <n> ir <n>; DequantizeLinear <n> [<element types>]
        axis <values> block_size <values>; Reshape <n>; float weights <n>

Counts the nodes examples/export_onnx.py adds in the two branches of the If
node (the codes' element types by ONNX number: 3 int8, 22 int4) and the
weight Constants still float (rank >= 2 and at least 16 elements; the
scales of blocks are not weights).
"""
import sys
from collections import Counter

import numpy as np
import onnx


def summary(path):
    m = onnx.load(path)
    branches = [a.g for n in m.graph.node if n.op_type == 'If' for a in n.attribute]
    types, axes, blocks = Counter(), Counter(), Counter()
    dq = reshape = floats = 0
    for g in branches:
        consts = {n.output[0]: n.attribute[0].t for n in g.node if n.op_type == 'Constant'}
        for n in g.node:
            if n.op_type == 'DequantizeLinear':
                dq += 1
                types[consts[n.input[0]].data_type] += 1
                attrs = {a.name: a.i for a in n.attribute}
                axes[attrs.get('axis', '-')] += 1
                blocks[attrs.get('block_size', '-')] += 1
            elif n.op_type == 'Reshape' and n.name.endswith('__reshape'):
                reshape += 1
            elif n.op_type == 'Constant' and not n.output[0].endswith('__scale'):
                t = n.attribute[0].t
                if t.data_type == 1 and len(t.dims) >= 2 and np.prod(t.dims) >= 16:
                    floats += 1
    fmt = lambda c: ','.join(f'{k}x{v}' for k, v in sorted(c.items(), key=str))
    return (f'{path}: opset {m.opset_import[0].version} ir {m.ir_version}; '
            f'DequantizeLinear {dq} [{fmt(types)}] axis [{fmt(axes)}] '
            f'block_size [{fmt(blocks)}]; Reshape {reshape}; float weights {floats}')


for p in sys.argv[1:]:
    print(summary(p))
