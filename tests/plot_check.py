#!/usr/bin/python3
"""plot_check.py: the demo picture's policy panel (examples/plot_sqnr.py, D).

    /usr/bin/python3 tests/plot_check.py [--work build/test-plot]
        [--ext dist/quant] [--models build/models]

Builds a registry as the demo does (the two models imported, quantized by
examples/demo_queries.sql), then draws the picture from copies of it:
without deployment rows and without the deployment tables (a note, no
crash); with fixture policies written as rules and applied by
sql/policy.sql, and exports and evaluations written here (their bits per
weight computed independently of policy_summary, evaluations over two
input sets weighted by frames, an output equal to the float model's, a
sample rate missing, a policy evaluated without choices); twice (the same
bytes); and with bad registries (the exact errors).
The last line is "test-plot: N passed, N failed".
"""

import argparse
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PLOT = os.path.join(ROOT, 'examples', 'plot_sqnr.py')
NOTE = ('No evaluations in the registry yet: the exported models run in ONNX Runtime '
        'fill the evaluations table (sql/registry.sql), one row per export and sample rate.')

from tally import check  # noqa: E402  (tests/ is the script's directory)
import tally  # noqa: E402


def plot(db, out):
    return subprocess.run([sys.executable, PLOT, '--db', db, '--out', out],
                          capture_output=True, text=True)


def build_registry(work, ext, models):
    subprocess.run(['sh', os.path.join(ROOT, 'examples', 'fetch_models.sh'), models],
                   check=True, stdout=subprocess.DEVNULL)
    db = os.path.join(work, 'base.db')
    digest = {}
    for key, name in (('silero', 'silero_vad_v5.onnx'),
                      ('mediapipe', 'face_detection_short_range.tflite')):
        with open(os.path.join(models, name), 'rb') as f:
            digest[key] = hashlib.sha256(f.read()).hexdigest()
    subprocess.run(['sqlite3', '-bail', db, '.load ' + ext,
                    ".parameter set @models '%s'" % models,
                    ".parameter set @silero_sha256 '%s'" % digest['silero'],
                    ".parameter set @mediapipe_sha256 '%s'" % digest['mediapipe'],
                    '.read ' + os.path.join(ROOT, 'sql', 'registry.sql'),
                    '.read ' + os.path.join(ROOT, 'examples', 'import_models.sql'),
                    '.read ' + os.path.join(ROOT, 'examples', 'demo_queries.sql')],
                   check=True, stdout=subprocess.DEVNULL)
    return db


def copy(base, work, name):
    path = os.path.join(work, name + '.db')
    shutil.copyfile(base, path)
    return path


# Four policies, written as rules and applied by the real engine
# (sql/policy.sql): every weight (rank 2 and up) int8 per-tensor, every
# weight int8 per-channel, every tensor kept float; the biases (1-D) stay
# float, as examples/demo_queries.sql leaves them, so the engine reuses that
# script's rows.  Exports and evaluations are of Silero VAD (model 1).  A
# fourth policy is added after the engine ran: evaluated without choices
# (not drawn).
POLICIES = """
DELETE FROM evaluations; DELETE FROM exports; DELETE FROM policy_choices;
DELETE FROM policy_rules; DELETE FROM policies;
INSERT INTO policies (policy_id, name) VALUES
  (1, 'int8-per-tensor'), (2, 'int8-per-channel'), (3, 'float-kept');
INSERT INTO policy_rules (policy_id, priority, min_rank, dtype, scheme, granularity,
                          method) VALUES
  (1, 1, 2, 'int8', 'affine', 'tensor', 'minmax'),
  (2, 1, 2, 'int8', 'affine', 'channel', 'minmax');
INSERT INTO policy_rules (policy_id, priority, dtype) VALUES
  (1, 2, 'float'), (2, 2, 'float'), (3, 1, 'float');
"""
DEPLOYMENT = """
INSERT INTO policies (policy_id, name) VALUES (4, 'int4-blocks-of-32');
INSERT INTO policy_rules (policy_id, priority, min_rank, dtype, scheme, granularity,
                          block_size, method) VALUES
  (4, 1, 2, 'int4', 'symmetric', 'block', 32, 'minmax');
INSERT INTO policy_rules (policy_id, priority, dtype) VALUES (4, 2, 'float');
INSERT INTO exports (export_id, policy_id, model_id, format, path, bytes, sha256)
SELECT policy_id, policy_id, 1, 'onnx', 'p' || policy_id || '.onnx', 1000,
       substr('0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 1, 64)
FROM policies;
INSERT INTO evaluations (export_id, runtime, input_set, sample_rate, frames,
                         mean_abs_diff, max_abs_diff, decisions_changed) VALUES
  (1, 'onnxruntime-node 1.0.0', 'a', 16000, 1000, 0.002, 0.05, 10),
  (1, 'onnxruntime-node 1.0.0', 'b', 16000, 3000, 0.004, 0.12, 30),
  (1, 'onnxruntime-node 1.0.0', 'a', 8000, 500, 0.006, 0.2, 5),
  (2, 'onnxruntime-node 1.0.0', 'a', 16000, 2000, 0.0004, 0.01, 2),
  (2, 'onnxruntime-node 1.0.0', 'a', 8000, 1000, 0.0005, 0.02, 3),
  (3, 'onnxruntime-node 1.0.0', 'a', 16000, 2000, 0.0, 0.0, 0),
  (4, 'onnxruntime-node 1.0.0', 'a', 16000, 2000, 0.03, 0.5, 90);
"""


def apply_policies(db, ext):
    """The fixture's policies applied by sql/policy.sql, then its exports
    and evaluations."""
    con = sqlite3.connect(db)
    con.executescript(POLICIES)
    con.close()
    subprocess.run(['sqlite3', '-bail', db, '.load ' + ext,
                    '.read ' + os.path.join(ROOT, 'sql', 'policy.sql')],
                   check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    con.executescript(DEPLOYMENT)
    return con


TEXT = re.compile(r'<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>(.*?)</text>')


def legend_row(svg, first):
    """The cells right of the legend entry whose text is `first`, by x."""
    texts = [(float(x), float(y), t) for x, y, t in TEXT.findall(svg)]
    ys = [y for x, y, t in texts if t == first]
    if len(ys) != 1:
        return None
    return [t for x, y, t in sorted(texts) if y == ys[0] and t != first]


def panel_d(svg):
    return svg[svg.index("D. The model's own output"):]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--work', default='build/test-plot')
    ap.add_argument('--ext', default='dist/quant')
    ap.add_argument('--models', default='build/models')
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    base = build_registry(args.work, args.ext, args.models)

    # Absent-safe: deployment tables empty, then missing altogether.
    svg_path = os.path.join(args.work, 'empty.svg')
    r = plot(base, svg_path)
    check('no evaluations: exit 0', r.returncode == 0, r.stderr)
    check('no evaluations: says so', r.stdout.rstrip().endswith('; no evaluations yet)'),
          r.stdout)
    svg = open(svg_path).read() if r.returncode == 0 else ''
    check('no evaluations: the note in the panel', NOTE in svg)
    old = copy(base, args.work, 'old')
    con = sqlite3.connect(old)
    con.executescript('DROP TABLE evaluations; DROP TABLE exports;')
    con.close()
    r = plot(old, os.path.join(args.work, 'old.svg'))
    check('no deployment tables: exit 0', r.returncode == 0, r.stderr)
    check('no deployment tables: the note',
          r.returncode == 0 and NOTE in open(os.path.join(args.work, 'old.svg')).read())

    # The fixture.
    db = copy(base, args.work, 'fixture')
    con = apply_policies(db, args.ext)
    # Bits per weight from model_summary (the view over the tensors quantized
    # under a label) and the tensors never quantized (biases, kept float),
    # not from policy_choices as the plot computes them.
    kept_bytes, kept_numel = con.execute("""
        SELECT sum(length(data)), sum(numel) FROM tensors
        WHERE model_id = 1 AND tensor_id NOT IN (SELECT tensor_id FROM quantizations)"""
                                         ).fetchone()
    bpw = dict((label, 8.0 * (after + kept_bytes) / (weights + kept_numel))
               for label, after, weights in con.execute(
                   """SELECT label, bytes_after, weights FROM model_summary
                      WHERE model = 'silero_vad'"""))
    sqnr = dict((r[0], r[1:]) for r in con.execute(
        """SELECT label, mean_sqnr_db, worst_sqnr_db FROM model_summary
           WHERE model = 'silero_vad'"""))
    f32 = con.execute("""SELECT 8.0 * sum(length(data)) / sum(numel) FROM tensors
                         WHERE model_id = 1""").fetchone()[0]
    con.close()
    a, b = (os.path.join(args.work, n + '.svg') for n in ('a', 'b'))
    r = plot(db, a)
    check('fixture: exit 0', r.returncode == 0, r.stderr)
    check('fixture: says so', r.stdout.rstrip().endswith('; 3 evaluated policies)'), r.stdout)
    plot(db, b)
    svg = open(a).read()
    check('fixture: the same bytes twice', svg == open(b).read())
    check('fixture: no note', NOTE not in svg)
    t8, c8 = 'int8 tensor affine', 'int8 channel affine'
    expect = {
        '1  int8-per-tensor': ['%.2f' % bpw[t8], '%.1f dB' % sqnr[t8][0], '%.1f dB' % sqnr[t8][1],
                               # 16 kHz: (1000 * 0.002 + 3000 * 0.004) / 4000, 40 / 4000
                               '3.50e-03', '0.120', '1.00%',
                               '6.00e-03', '0.200', '1.00%'],
        '2  int8-per-channel': ['%.2f' % bpw[c8], '%.1f dB' % sqnr[c8][0], '%.1f dB' % sqnr[c8][1],
                                '4.00e-04', '0.010', '0.10%', '5.00e-04', '0.020', '0.30%'],
        '3  float-kept': ['%.2f' % f32, '-', '-', '0', '0.000', '0.00%', '-', '-', '-'],
    }
    for first, cells in expect.items():
        got = legend_row(svg, first)
        check('fixture: legend %s' % first, got == cells, '%s, expected %s' % (got, cells))
    check('fixture: float is 32 bits', '%.2f' % f32 == '32.00', str(f32))
    check('fixture: a policy without choices is named, not drawn',
          'evaluated but without policy_choices (not drawn): int4-blocks-of-32' in svg)
    d = panel_d(svg)
    # Markers: a filled circle per 16 kHz point and per legend entry, a ring
    # per 8 kHz point; one colour per policy (#0072B2, #D55E00, #009E73).
    filled = re.findall(r'<circle cx="([0-9.]+)" cy="([0-9.]+)" r="4.6" fill="(#[0-9A-F]+)"/>', d)
    rings = re.findall(r'<circle cx="[0-9.]+" cy="[0-9.]+" r="4.1" fill="white" '
                       r'stroke="(#[0-9A-F]+)"', d)
    check('fixture: 16 kHz points and legend swatches, in both charts',
          sorted(c for _, _, c in filled) ==
          sorted(['#0072B2', '#D55E00', '#009E73'] * 3), str(filled))
    check('fixture: 8 kHz points, in both charts',
          sorted(rings) == sorted(['#0072B2', '#D55E00'] * 2), str(rings))
    # Left chart (the first three points): more error is higher up, and the
    # float model's 0 sits on the zero row at the bottom, below a break.
    left = {c: float(y) for x, y, c in filled[:3]}
    check('fixture: mean |dp| ordered up the chart',
          left['#009E73'] > left['#D55E00'] > left['#0072B2'], str(left))
    check('fixture: the zero row labelled 0', re.search(
        r'<text x="84.0" y="[0-9.]+" font-size="11" text-anchor="end" font-weight="normal" '
        r'fill="#444" >0</text>',
        d) is not None)
    check('fixture: the break in the log axis', re.search(r'<path d="M[0-9.]+ [0-9.]+l8 -4M',
                                                          d) is not None)

    # Bad registries.
    r = plot(os.path.join(args.work, 'missing.db'), os.path.join(args.work, 'x.svg'))
    check('missing registry', (r.returncode, r.stderr) ==
          (1, 'plot_sqnr: no such registry, got %s\n' % os.path.join(args.work, 'missing.db')),
          r.stderr)
    r = plot(a, os.path.join(args.work, 'x.svg'))
    check('not a database', (r.returncode, r.stderr) ==
          (1, 'plot_sqnr: file is not a database, got %s\n' % a), r.stderr)
    bare = os.path.join(args.work, 'bare.db')
    sqlite3.connect(bare).executescript('CREATE TABLE t (x);')
    r = plot(bare, os.path.join(args.work, 'x.svg'))
    check('no quantizations', (r.returncode, r.stderr) ==
          (1, 'plot_sqnr: the registry has no quantizations (run examples/demo_queries.sql '
              'first), got %s\n' % bare), r.stderr)

    print(tally.line('test-plot'))
    sys.exit(1 if tally.failed else 0)


if __name__ == '__main__':
    main()
