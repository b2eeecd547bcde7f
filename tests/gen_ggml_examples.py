#!/usr/bin/python3
"""Worked examples of ggml's block formats, from ggml itself.

How to rerun (Debian 12, after `sh tests/ensure-deps.sh ggml` and
`sh tests/ggml/fetch_ggml.sh`, which put ggml 0.25.1 at build/ggml/):
    /usr/bin/python3 tests/gen_ggml_examples.py [path/to/libggml-base.so]
Deterministic: it writes tests/data/ggml_examples.tcl, plain Tcl source that
tests/ggml_functions.test reads (so `make test` needs neither numpy nor ggml),
and docs/reference/ggml.md's worked examples quote the same bytes.

Each case: the ggml type, the input row(s) as float32 hex, the importance
weights (hex, or "" for none), shape, ggml's blocks (quantize_<type>) and
ggml's dequantized floats of those blocks (dequantize_row_<type>), as hex.
Without importance the blocks are quantize_row_<type>_ref's (q_ggml_quantize
without importance); importance "none" marks quantize_<type>(x, .., NULL)
(q_ggml_quantize's importance 'none'), which differs for iq4_nl.
"""
import ctypes
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, '..', 'build', 'ggml', 'libggml-base.so')
ggml = ctypes.CDLL(LIB)

BLOCKS = {'q4_0': (32, 18), 'q4_1': (32, 20), 'q5_0': (32, 22),
          'q5_1': (32, 24), 'q8_0': (32, 34), 'q2_K': (256, 84),
          'q3_K': (256, 110), 'q4_K': (256, 144), 'q5_K': (256, 176),
          'q6_K': (256, 210), 'iq3_xxs': (256, 98), 'iq4_nl': (32, 18),
          'iq3_s': (256, 110), 'iq4_xs': (256, 136)}
GGML_ID = {'iq3_xxs': 18, 'iq3_s': 21}
ggml.ggml_quantize_init.argtypes = [ctypes.c_int]
for t in GGML_ID:
    ggml.ggml_quantize_init(GGML_ID[t])


def quantize(t, x, rows, w):
    """quantize_<type>(x, .., w); without w quantize_row_<type>_ref per row
    (what q_ggml_quantize does without importance), and w == 'none' is
    quantize_<type>(x, .., NULL) (q_ggml_quantize's importance 'none')."""
    block, size = BLOCKS[t]
    out = ctypes.create_string_buffer(x.size // block * size)
    if w is None:
        f = getattr(ggml, 'quantize_row_%s_ref' % t)
        f.restype = None
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        cols = x.size // rows
        for r in range(rows):
            row = np.ascontiguousarray(x[r * cols:(r + 1) * cols])
            f(row.ctypes.data, ctypes.byref(out, r * (len(out.raw) // rows)), cols)
        return out.raw
    if isinstance(w, str):
        w = None
    f = getattr(ggml, 'quantize_' + t)
    f.restype = ctypes.c_size_t
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                  ctypes.c_int64, ctypes.c_void_p]
    f(x.ctypes.data, out, rows, x.size // rows,
      None if w is None else w.ctypes.data)
    return out.raw


def dequantize(t, blocks, n):
    y = np.zeros(n, dtype='<f4')
    f = getattr(ggml, 'dequantize_row_' + t)
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    f(blocks, y.ctypes.data, n)
    return y


def f32hex(a):
    return np.asarray(a, dtype='<f4').tobytes().hex().upper()


ramp32 = np.arange(32, dtype=np.float32) - 16            # -16 .. 15
ramp256 = (np.arange(256, dtype=np.float32) - 128) / 64  # -2 .. 1.984375
# An irregular row whose importance changes the result: a few large weights
# on columns the unweighted search treats like any other.
i = np.arange(256)
wave = (np.sin(i * 0.37) * 3 + np.cos(i * 1.3)).astype(np.float32)
emphasis = np.where(i % 8 == 0, 50.0, 0.5).astype(np.float32)

cases = []
for t in ('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0'):
    cases.append((t + '-ramp', t, ramp32, None, '[32]'))
cases.append(('q4_0-zero', 'q4_0', np.zeros(32, np.float32), None, '[32]'))
for t in ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K'):
    cases.append((t + '-ramp', t, ramp256, None, '[256]'))
for t in BLOCKS:
    x = wave if BLOCKS[t][0] == 256 else wave[:64]
    shape = '[%d]' % x.size if BLOCKS[t][0] == 256 else '[2,32]'
    cases.append((t + '-wave', t, x, None, shape))
    cases.append((t + '-wave-imatrix', t, x, emphasis[:x.size // (2 if shape == '[2,32]' else 1)], shape))
    if t.startswith('iq'):
        cases.append((t + '-wave-none', t, x, 'none', shape))

out = ['# ggml_examples.tcl: written by tests/gen_ggml_examples.py from ggml '
       '(do not edit).',
       '# name {type shape x importance blocks dequantized}',
       'set ggml_examples {']
for name, t, x, w, shape in cases:
    rows = 2 if shape == '[2,32]' else 1
    xx = np.ascontiguousarray(x, dtype=np.float32)
    ww = w if w is None or isinstance(w, str) else np.ascontiguousarray(w, dtype=np.float32)
    blocks = quantize(t, xx, rows, ww)
    y = dequantize(t, blocks, xx.size)
    out.append('  %s {%s %s %s {%s} %s %s}' % (
        name, t, shape, f32hex(xx), '' if ww is None else ww if isinstance(ww, str) else f32hex(ww),
        blocks.hex().upper(), f32hex(y)))
out.append('}')
with open(os.path.join(HERE, 'data', 'ggml_examples.tcl'), 'w') as f:
    f.write('\n'.join(out) + '\n')
print('%d cases' % len(cases))
