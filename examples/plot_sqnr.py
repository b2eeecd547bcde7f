#!/usr/bin/python3
"""plot_sqnr.py: draw the demo's comparison as one SVG (no plotting library).

    /usr/bin/python3 examples/plot_sqnr.py [--db build/demo.db]
        [--out build/demo_sqnr.svg]

Reads stored columns of the registry (sql/registry.sql) with Python's sqlite3
module (no extension needed) after examples/demo_queries.sql has filled
`quantizations`, and draws three panels:

  A  SQNR of every weight tensor under every scheme (one row per layer,
     one marker per scheme)
  B  the per-channel scales (int8 per-channel affine) of the worst layer
     under per-tensor int8, sorted, against the single per-tensor scale
  C  the size/accuracy trade-off per model: bits per weight against mean and
     worst-layer SQNR
"""

import argparse
import math
import sqlite3
import struct
from xml.sax.saxutils import escape

SCHEMES = [
    # label in the registry, legend text, colour (Okabe-Ito), marker
    ('int8 tensor affine',        'int8 per-tensor (min/max)',        '#0072B2', 'circle'),
    ('int8 tensor affine p99.99', 'int8 per-tensor, percentile 99.99', '#E69F00', 'triangle'),
    ('int8 tensor affine mse',    'int8 per-tensor, MSE-optimal clip', '#56B4E9', 'diamond'),
    ('int8 channel affine',       'int8 per-channel affine',          '#009E73', 'square'),
    ('int8 channel symmetric',    'int8 per-channel symmetric',       '#CC79A7', 'ring'),
    ('int4 block32 symmetric',    'int4 blocks of 32, symmetric',     '#D55E00', 'cross'),
]
MODEL_TITLES = {
    'silero_vad': 'Silero VAD v5 (ONNX, float32)',
    'face_detection_short_range': 'MediaPipe face detection, short range (TFLite, float16)',
}
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'


def marker(kind, x, y, colour, r=4.2):
    if kind == 'circle':
        return '<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>' % (x, y, r, colour)
    if kind == 'ring':
        return ('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="white" stroke="%s" '
                'stroke-width="2"/>' % (x, y, r - 0.5, colour))
    if kind == 'square':
        return ('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                % (x - r + 0.6, y - r + 0.6, 2 * r - 1.2, 2 * r - 1.2, colour))
    if kind == 'diamond':
        return ('<path d="M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ" fill="%s"/>'
                % (x, y - r - 0.8, x + r, y, x, y + r + 0.8, x - r, y, colour))
    if kind == 'triangle':
        return ('<path d="M%.1f %.1fL%.1f %.1fL%.1f %.1fZ" fill="%s"/>'
                % (x, y - r - 0.5, x + r + 0.5, y + r - 0.5, x - r - 0.5, y + r - 0.5, colour))
    if kind == 'cross':
        return ('<path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="%s" '
                'stroke-width="2.2"/>' % (x - r, y - r, x + r, y + r, x - r, y + r,
                                         x + r, y - r, colour))
    raise ValueError(kind)


def text(x, y, s, size=12, anchor='start', weight='normal', fill='#222', extra=''):
    return ('<text x="%.1f" y="%.1f" font-size="%s" text-anchor="%s" '
            'font-weight="%s" fill="%s" %s>%s</text>'
            % (x, y, size, anchor, weight, fill, extra, escape(str(s))))


def nice_ticks(lo, hi, n=6):
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 2.5, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    start = math.floor(lo / step) * step
    ticks = []
    v = start
    while v <= hi + 1e-12:
        if v >= lo - 1e-12:
            ticks.append(round(v, 10))
        v += step
    return ticks


def load(db):
    con = sqlite3.connect(db)
    rows = con.execute("""
        SELECT m.name, t.tensor_id, t.name, t.shape, q.label, q.sqnr_db
        FROM quantizations q JOIN tensors t USING (tensor_id)
        JOIN models m USING (model_id)
        ORDER BY m.model_id, t.tensor_id""").fetchall()
    layers = []           # (model, tensor_id, name, shape, {label: sqnr})
    index = {}
    for model, tid, name, shape, label, sqnr in rows:
        if tid not in index:
            index[tid] = len(layers)
            layers.append((model, tid, name, shape, {}))
        layers[index[tid]][4][label] = sqnr

    # The worst layer under per-tensor int8: its per-tensor scale and its
    # per-channel scales (stored f32 BLOB).
    worst = con.execute("""
        SELECT t.tensor_id, m.name, t.name, t.shape, q.sqnr_db, q.scale
        FROM quantizations q JOIN tensors t USING (tensor_id)
        JOIN models m USING (model_id)
        WHERE q.label = 'int8 tensor affine'
        ORDER BY q.sqnr_db LIMIT 1""").fetchone()
    chan = con.execute("""
        SELECT scales, sqnr_db FROM quantizations
        WHERE tensor_id = ? AND label = 'int8 channel affine'""",
                       (worst[0],)).fetchone()
    scales = list(struct.unpack('<%df' % (len(chan[0]) // 4), chan[0]))

    summary = con.execute("""
        SELECT model, label, bits_per_weight, mean_sqnr_db, worst_sqnr_db,
               bytes_before, bytes_after
        FROM model_summary""").fetchall()
    models = [r[0] for r in con.execute('SELECT name FROM models ORDER BY model_id')]
    con.close()
    return layers, worst, scales, chan[1], summary, models


def panel_layers(out, x0, y0, width, layers, models):
    """Panel A: a dot plot, one row per layer."""
    name_w = 250
    row_h = 14.5
    plot_x0 = x0 + name_w
    plot_w = width - name_w - 10
    values = [v for l in layers for v in l[4].values() if v is not None]
    lo = 10 * math.floor(min(values) / 10)
    hi = 10 * math.ceil(max(values) / 10)

    def sx(v):
        return plot_x0 + (v - lo) / (hi - lo) * plot_w

    out.append(text(x0, y0, 'A. SQNR of each weight tensor, by scheme', 17, weight='bold'))
    out.append(text(x0, y0 + 19, 'signal-to-quantization-noise ratio of dequantize(codes) '
                    'against the float weights; higher is better, +6 dB is about one bit',
                    12, fill='#555'))
    # legend
    ly = y0 + 40
    lx = x0
    for i, (label, legend, colour, kind) in enumerate(SCHEMES):
        cx = lx + (i % 3) * 265
        cy = ly + (i // 3) * 18
        out.append(marker(kind, cx + 6, cy - 4, colour))
        out.append(text(cx + 16, cy, legend, 12))
    top = ly + 36
    rows = []
    y = top + 14
    for model in models:
        rows.append(('header', model, y))
        y += row_h + 6
        for l in layers:
            if l[0] == model:
                rows.append(('layer', l, y))
                y += row_h
        y += 6
    bottom = y + 4

    # grid and axis
    for t in nice_ticks(lo, hi, 8):
        gx = sx(t)
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (gx, top, gx, bottom))
        out.append(text(gx, bottom + 15, '%g' % t, 11, 'middle', fill='#444'))
        out.append(text(gx, top - 3, '%g' % t, 11, 'middle', fill='#444'))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>'
               % (plot_x0, bottom, plot_x0 + plot_w, bottom))
    out.append(text(plot_x0 + plot_w / 2, bottom + 32, 'SQNR (dB)', 13, 'middle'))

    shade = False
    for kind, item, ry in rows:
        if kind == 'header':
            out.append(text(x0, ry + 4, MODEL_TITLES.get(item, item), 13, weight='bold'))
            shade = False
            continue
        model, tid, name, shape, vals = item
        if shade:
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#f3f3f3"/>'
                       % (x0, ry - row_h / 2, width - 10, row_h))
        shade = not shade
        short = name if len(name) <= 34 else name[:33] + '…'
        out.append(text(plot_x0 - 8, ry + 4, short, 11, 'end',
                        extra='font-family="DejaVu Sans Mono, monospace"'))
        present = [v for v in vals.values() if v is not None]
        if present:
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb" '
                       'stroke-width="1"/>' % (sx(min(present)), ry, sx(max(present)), ry))
        # The MSE clip is drawn before min/max: they often coincide, and the
        # diamond's tips then still show around the min/max dot.
        for label, legend, colour, mk in [SCHEMES[i] for i in (2, 1, 0, 3, 4, 5)]:
            v = vals.get(label)
            if v is not None:
                out.append(marker(mk, sx(v), ry, colour, 4.0))
    return bottom + 40


def panel_scales(out, x0, y0, width, height, worst, scales, chan_sqnr):
    """Panel B: the per-channel scales of the worst layer, sorted."""
    tid, model, name, shape, tensor_sqnr, tensor_scale = worst
    out.append(text(x0, y0, 'B. Why per-channel wins: the worst layer', 17, weight='bold'))
    out.append(text(x0, y0 + 19, '%s %s (%s)' % (name, shape, MODEL_TITLES.get(model, model)
                                                  .split(' (')[0]), 12, fill='#555'))
    s_sorted = sorted(scales, reverse=True)
    n = len(s_sorted)
    med = sorted(scales)[n // 2]
    px0 = x0 + 62
    py0 = y0 + 40
    pw = width - 80
    ph = height - 100
    top = max(tensor_scale, max(scales)) * 1.08

    def sy(v):
        return py0 + ph - v / top * ph

    for t in nice_ticks(0, top, 5):
        gy = sy(t)
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>'
                   % (px0, gy, px0 + pw, gy))
        out.append(text(px0 - 6, gy + 4, '%g' % t, 11, 'end', fill='#444'))
    bw = pw / n
    for i, s in enumerate(s_sorted):
        out.append('<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#009E73"/>'
                   % (px0 + i * bw + 0.15 * bw, sy(s), 0.7 * bw, py0 + ph - sy(s)))
    ty = sy(tensor_scale)
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#0072B2" '
               'stroke-width="2" stroke-dasharray="6 4"/>' % (px0, ty, px0 + pw, ty))
    out.append(text(px0 + pw - 4, ty - 6,
                    'per-tensor scale %.4g: %.1f dB' % (tensor_scale, tensor_sqnr),
                    12, 'end', fill='#0072B2', weight='bold'))
    out.append(text(px0 + pw - 4, sy(med) - 28,
                    'per-channel scales: %.1f dB' % chan_sqnr, 12, 'end',
                    fill='#007a5a', weight='bold'))
    out.append(text(px0 + pw - 4, sy(med) - 12,
                    'median channel %.4g, %.1fx finer than per-tensor'
                    % (med, tensor_scale / med), 12, 'end', fill='#007a5a'))
    big = [i for i, s in enumerate(scales) if s > 0.5 * tensor_scale]
    if len(big) <= 3:
        out.append(text(px0 + bw + 8, sy(s_sorted[0]) + 16,
                        'channel%s %s alone set%s the per-tensor range'
                        % ('' if len(big) == 1 else 's',
                           ' and '.join('#%d' % i for i in big),
                           's' if len(big) == 1 else ''), 12, fill='#333'))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>'
               % (px0, py0 + ph, px0 + pw, py0 + ph))
    out.append(text(px0 + pw / 2, py0 + ph + 18,
                    'bars: the per-channel scale of each of the %d output channels, sorted'
                    % n, 12, 'middle'))
    out.append(text(x0 + 14, py0 + ph / 2, 'scale', 12, 'middle',
                    extra='transform="rotate(-90 %.1f %.1f)"' % (x0 + 14, py0 + ph / 2)))
    return y0 + height


def panel_tradeoff(out, x0, y0, width, summary, models):
    """Panel C: per model and scheme, mean SQNR (bar), worst layer (tick) and
    bits per weight."""
    out.append(text(x0, y0, 'C. Whole model: accuracy against size', 17, weight='bold'))
    out.append(text(x0, y0 + 19, 'bar: mean SQNR over layers; black tick: worst layer; '
                    'right: bits per weight', 12, fill='#555'))
    label_w = 150
    px0 = x0 + label_w
    pw = width - label_w - 78
    bar_h = 13
    dbs = [r[3] for r in summary] + [r[4] for r in summary]
    hi = 10 * math.ceil(max(dbs) / 10)

    def sx(v):
        return px0 + max(v, 0) / hi * pw

    y = y0 + 44
    top = y
    rows = []
    for model in models:
        rows.append(('header', model, y))
        y += 20
        by_label = {r[1]: r for r in summary if r[0] == model}
        for label, legend, colour, kind in SCHEMES:
            if label in by_label:
                rows.append(('bar', (by_label[label], legend, colour), y))
                y += bar_h + 5
        y += 8
    bottom = y
    for t in nice_ticks(0, hi, 6):
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>'
                   % (sx(t), top, sx(t), bottom))
        out.append(text(sx(t), bottom + 15, '%g' % t, 11, 'middle', fill='#444'))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>'
               % (px0, bottom, px0 + pw, bottom))
    out.append(text(px0 + pw / 2, bottom + 32, 'SQNR (dB)', 12, 'middle'))
    out.append(text(px0 + pw + 70, top - 6, 'bits/weight', 11, 'end', fill='#444'))
    for kind, item, ry in rows:
        if kind == 'header':
            out.append(text(x0, ry + 4, MODEL_TITLES.get(item, item), 12, weight='bold'))
            continue
        r, legend, colour = item
        model, label, bpw, mean_db, worst_db = r[:5]
        short = legend.replace('int8 per-tensor, ', 'int8 tensor, ') \
                      .replace('percentile', 'pct') \
                      .replace('int8 per-tensor (min/max)', 'int8 tensor, min/max') \
                      .replace('int8 per-channel', 'int8 channel') \
                      .replace('int4 blocks of 32, symmetric', 'int4 block32 sym.') \
                      .replace('MSE-optimal clip', 'MSE clip') \
                      .replace('symmetric', 'sym.')
        out.append(text(px0 - 6, ry + 4, short, 11, 'end'))
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                   % (px0, ry - bar_h / 2, sx(mean_db) - px0, bar_h, colour))
        wx = sx(worst_db)
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#111" '
                   'stroke-width="2.5"/>' % (wx, ry - bar_h / 2 - 2, wx, ry + bar_h / 2 + 2))
        out.append(text(sx(mean_db) + 4, ry + 4, '%.1f' % mean_db, 10, fill='#333'))
        out.append(text(px0 + pw + 70, ry + 4, '%.2f' % bpw, 11, 'end',
                        extra='font-family="DejaVu Sans Mono, monospace"'))
    return bottom + 40


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--db', default='build/demo.db')
    ap.add_argument('--out', default='build/demo_sqnr.svg')
    args = ap.parse_args()

    layers, worst, scales, chan_sqnr, summary, models = load(args.db)
    left_w = 800
    right_w = 560
    width = left_w + right_w + 40
    body = []
    y_left = panel_layers(body, 20, 100, left_w, layers, models)
    y_b = panel_scales(body, left_w + 40, 100, right_w, 400, worst, scales, chan_sqnr)
    y_c = panel_tradeoff(body, left_w + 40, y_b + 30, right_w, summary, models)
    height = max(y_left, y_c) + 20

    head = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" %s>' % (width, height, width, height, FONT),
        '<rect width="100%" height="100%" fill="white"/>',
        text(20, 32, 'sqlite-quant: two real networks quantized in SQL', 22, weight='bold'),
        text(20, 52, '%s and %s; %d weight tensors, each under %d schemes, '
             'recorded in the registry (build/demo.db)'
             % (MODEL_TITLES[models[0]].split(' (')[0],
                MODEL_TITLES[models[1]].split(' (')[0], len(layers), len(SCHEMES)),
             13, fill='#444'),
    ]
    with open(args.out, 'w') as f:
        f.write('\n'.join(head + body + ['</svg>']) + '\n')
    print('plot_sqnr: wrote %s (%d layers, worst under per-tensor int8: %s %.1f dB)'
          % (args.out, len(layers), worst[2], worst[4]))


if __name__ == '__main__':
    main()
