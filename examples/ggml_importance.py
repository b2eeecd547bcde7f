#!/usr/bin/python3
"""How importance weights (llama.cpp's imatrix) change ggml quantization, on a
real weight of the demo.  From the repo root, after `make demo`:
    /usr/bin/python3 examples/ggml_importance.py [build/demo.db]

The weight is Silero VAD's decoder LSTM, whose gates compute
W_ih x + W_hh h: the two [512, 128] matrices side by side are one [512, 256]
matrix applied to [x; h], so a row is one K-quant super-block.  The
activations are synthetic (the demo does not run the network): 4096 rows of
256 features, each feature with its own log-normal scale, the uneven
per-feature energy that makes an imatrix worth having.  They go into a table,
q_importance_agg turns them into importance weights, and each ggml type
quantizes the weight with and without them, all in SQL.

For each type it prints the relative output error, sum((W - Q) x)^2 /
sum(W x)^2 over the activations, as SQNR in dB (higher is better), and the
plain weight SQNR, which the weighted search trades away.
"""
import os
import sqlite3
import sys

import numpy as np

demo = sys.argv[1] if len(sys.argv) > 1 else 'build/demo.db'
if not os.path.exists(demo):
    sys.exit('ggml_importance: %s not found; run `make demo` first' % demo)
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(os.environ.get('SQLITE_QUANT_EXT', 'dist/quant'))
db.execute('ATTACH ? AS demo', (demo,))

parts = [np.frombuffer(db.execute(
    "SELECT data FROM demo.tensors WHERE name = ?", (name,)).fetchone()[0],
    dtype='<f4').reshape(512, 128)
    for name in ('16k/decoder.rnn.weight_ih', '16k/decoder.rnn.weight_hh')]
w = np.ascontiguousarray(np.concatenate(parts, axis=1))

rng = np.random.default_rng(2026)
scale = np.exp(rng.normal(0.0, 1.0, size=256)).astype(np.float32)
acts = (rng.normal(size=(4096, 256)) * scale).astype('<f4')
db.execute('CREATE TABLE activations(batch INTEGER PRIMARY KEY, a BLOB)')
db.executemany('INSERT INTO activations(a) VALUES (?)',
               [(acts[i:i + 256].tobytes(),) for i in range(0, 4096, 256)])
imp = db.execute('SELECT q_importance_agg(a, 256) FROM activations').fetchone()[0]

def output_sqnr(q):
    ref, err = acts @ w.T, acts @ (w - q).T
    return 10 * np.log10(float((ref.astype(np.float64) ** 2).sum())
                         / float((err.astype(np.float64) ** 2).sum()))

print('%-5s %6s  %23s  %23s' % ('type', 'bpw', 'output SQNR dB (imatrix)',
                                 'weight SQNR dB (imatrix)'))
for (t, bpw) in db.execute('SELECT name, bits_per_weight FROM q_ggml_types'):
    row = []
    for weights in (None, imp):
        args = [w.tobytes(), t, '[512,256]'] + ([] if weights is None else [weights])
        q = np.frombuffer(db.execute(
            'SELECT q_ggml_dequantize(q_ggml_quantize(%s), ?)'
            % ', '.join('?' * len(args)), args + [t]).fetchone()[0], dtype='<f4')
        q = q.reshape(512, 256)
        row.append((output_sqnr(q), db.execute(
            'SELECT q_sqnr(?, ?)', (w.tobytes(), q.tobytes())).fetchone()[0]))
    print('%-5s %6.3f  %10.2f (%+6.2f)    %10.2f (%+6.2f)' % (
        t, bpw, row[0][0], row[1][0] - row[0][0], row[0][1], row[1][1] - row[0][1]))
