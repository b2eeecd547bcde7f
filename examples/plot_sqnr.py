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
  D  the model's own output, one point per policy (sql/registry.sql's
     policies, policy_choices, exports and evaluations): the speech
     probability's mean absolute difference from the float model, and the
     share of frames whose decision changed, against the policy's bits per
     weight; a note instead when the registry holds no evaluations yet
"""

import argparse
import math
import os
import sqlite3
import struct
import sys
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


# Panel D: one colour per policy (Okabe-Ito, then grey), one marker per
# sample rate.
POLICY_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00',
                  '#56B4E9', '#000000', '#999999']
RATE_MARKERS = {16000: 'circle', 8000: 'ring'}


def load_policies(db):
    """Panel D's numbers, or None when the registry has no evaluations.

    Per policy and model, from the view policy_summary: bits per weight
    (each chosen quantization's deployed bytes, a tensor kept float at its
    stored size) and the mean and worst SQNR of the chosen quantizations;
    per policy, model and sample rate: the evaluations of its exports, over
    every input set, frames weighted."""
    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if not {'policies', 'policy_choices', 'exports', 'evaluations',
            'policy_summary'} <= tables:
        con.close()
        return None
    sizes = {}
    for pid, mid, bpw, mean_db, worst_db in con.execute("""
        SELECT policy_id, model_id, bits_per_weight, mean_sqnr_db, worst_sqnr_db
        FROM policy_summary"""):
        sizes[(pid, mid)] = (bpw, mean_db, worst_db)
    rows = con.execute("""
        SELECT e.policy_id, p.name, e.model_id, m.name, v.sample_rate,
               sum(v.frames),
               sum(v.mean_abs_diff * v.frames) / sum(v.frames),
               max(v.max_abs_diff),
               sum(v.decisions_changed)
        FROM evaluations v JOIN exports e USING (export_id)
        JOIN policies p USING (policy_id) JOIN models m ON m.model_id = e.model_id
        GROUP BY e.policy_id, e.model_id, v.sample_rate
        ORDER BY e.policy_id, e.model_id, v.sample_rate DESC""").fetchall()
    runtimes = [r[0] for r in con.execute(
        'SELECT DISTINCT runtime FROM evaluations ORDER BY runtime')]
    con.close()
    series = []               # (policy, model, bits/weight, mean dB, worst dB, points)
    index = {}
    unsized = []
    for pid, policy, mid, model, rate, frames, mean_diff, max_diff, changed in rows:
        if (pid, mid) not in sizes:
            unsized.append(policy)
            continue
        if (pid, mid) not in index:
            index[(pid, mid)] = len(series)
            series.append((policy, model) + sizes[(pid, mid)] + ([],))
        series[index[(pid, mid)]][5].append(
            (rate, frames, mean_diff, max_diff, changed / frames))
    if not series:
        return None
    return series, runtimes, sorted(set(unsized))


def log_ticks(lo, hi):
    """The powers of ten spanning [lo, hi] (both > 0), as exponents."""
    return list(range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1))


def chart(out, x0, y0, w, h, title, xlo, xhi, ylab, sy, yticks, series, value):
    """One scatter: bits per weight across, `value` of each point up, the
    16 kHz point a little left of the 8 kHz one so both show."""
    def sx(v):
        return x0 + (v - xlo) / (xhi - xlo) * w

    out.append(text(x0 + w / 2, y0 - 12, title, 13, 'middle', weight='bold'))
    for t, label in yticks:
        gy = sy(t)
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>'
                   % (x0, gy, x0 + w, gy))
        out.append(label(x0 - 6, gy + 4))
    for t in nice_ticks(xlo, xhi, 6):
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e2e2"/>'
                   % (sx(t), y0, sx(t), y0 + h))
        out.append(text(sx(t), y0 + h + 15, '%g' % t, 11, 'middle', fill='#444'))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>'
               % (x0, y0 + h, x0 + w, y0 + h))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>'
               % (x0, y0, x0, y0 + h))
    out.append(text(x0 + w / 2, y0 + h + 32, 'bits per weight (whole model)', 12, 'middle'))
    out.append(text(x0 - 48, y0 + h / 2, ylab, 12, 'middle',
                    extra='transform="rotate(-90 %.1f %.1f)"' % (x0 - 48, y0 + h / 2)))
    for i, (policy, model, bpw, mean_db, worst_db, points) in enumerate(series):
        colour = POLICY_COLOURS[i % len(POLICY_COLOURS)]
        for rate, frames, mean_diff, max_diff, share in points:
            dx = {16000: -3.5, 8000: 3.5}.get(rate, 0)
            kind = RATE_MARKERS.get(rate, 'square')
            out.append(marker(kind, sx(bpw) + dx, sy(value(mean_diff, share)), colour, 4.6))
        top = min(sy(value(p[2], p[4])) for p in points)
        out.append(text(sx(bpw), top - 8, str(i + 1), 10, 'middle', weight='bold',
                        fill=colour))


def panel_policies(out, x0, y0, width, loaded):
    """Panel D: output error against bits per weight, one colour per policy."""
    out.append(text(x0, y0, "D. The model's own output: error against size, per policy",
                    17, weight='bold'))
    if loaded is None:
        out.append(text(x0, y0 + 24, 'No evaluations in the registry yet: the exported '
                        'models run in ONNX Runtime fill the evaluations table '
                        '(sql/registry.sql), one row per export and sample rate.',
                        12, fill='#555'))
        return y0 + 50
    series, runtimes, unsized = loaded
    models = []
    for s in series:
        if s[1] not in models:
            models.append(s[1])
    rates = sorted({p[0] for s in series for p in s[5]}, reverse=True)
    out.append(text(x0, y0 + 19, '%s in %s, each policy\'s export against the float model, '
                    'frame by frame; filled: 16 kHz, open: 8 kHz'
                    % (' and '.join(MODEL_TITLES.get(m, m).split(' (')[0] for m in models),
                       ', '.join(runtimes)), 12, fill='#555'))
    bpws = [s[2] for s in series]
    xlo, xhi = min(bpws), max(bpws)
    pad = max(0.5, 0.08 * (xhi - xlo))
    xlo, xhi = max(0.0, xlo - pad), xhi + pad

    cw = (width - 200) / 2
    ch = 240
    cy = y0 + 64
    # Left: the mean absolute difference of the speech probability, on a log
    # scale (policies differ by orders of magnitude).  An output identical to
    # the float model's (0) has no place on it: when there is one, the lowest
    # 12% of the chart is a row of its own, labelled 0, below a break.
    diffs = [p[2] for s in series for p in s[5]]
    positive = [d for d in diffs if d > 0] or [1e-6]
    exps = log_ticks(min(positive), max(positive))
    if len(exps) == 1:
        exps.append(exps[0] + 1)
    llo, lhi = exps[0], exps[-1]
    zero_h = 0.12 * ch if min(diffs) <= 0 else 0.0

    def sy_log(v):
        if v <= 0:
            return cy + ch
        return cy + ch - zero_h - (math.log10(v) - llo) / (lhi - llo) * (ch - zero_h)

    def decade(e):
        return lambda x, y: ('<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" '
                             'fill="#444">10<tspan font-size="8" dy="-5">%d</tspan></text>'
                             % (x, y, e))
    yticks = [(10.0 ** e, decade(e)) for e in exps]
    if zero_h:
        yticks.append((0.0, lambda x, y: text(x, y, '0', 11, 'end', fill='#444')))
    chart(out, x0 + 70, cy, cw, ch, 'mean |difference| of the speech probability',
          xlo, xhi, 'mean |Δp| (log scale)', sy_log, yticks, series, lambda d, s: d)
    if zero_h:
        by = cy + ch - zero_h / 2
        out.append('<path d="M%.1f %.1fl8 -4M%.1f %.1fl8 -4" stroke="#888"/>'
                   % (x0 + 66, by + 2, x0 + 66, by + 6))

    # Right: the share of frames whose speech/non-speech decision changed.
    shares = [100 * p[4] for s in series for p in s[5]]
    phi = 1.15 * max(shares) if max(shares) > 0 else 1.0
    pticks = nice_ticks(0, phi, 5)

    def sy_lin(v):
        return cy + ch - v / phi * ch

    def pct(t):
        return lambda x, y: text(x, y, '%g%%' % t, 11, 'end', fill='#444')
    chart(out, x0 + 70 + cw + 130, cy, cw, ch, 'frames whose decision (p ≥ 0.5) changed',
          xlo, xhi, 'decisions changed (%)', sy_lin,
          [(t, pct(t)) for t in pticks], series, lambda d, s: 100 * s)

    # The legend: one row per policy, with the numbers behind its points,
    # then per sample rate its mean and largest difference and changed share.
    ly = cy + ch + 72
    cols = [(x0 + 430, 'bits/weight'), (x0 + 540, 'mean SQNR'), (x0 + 650, 'worst SQNR')]
    out.append(text(x0 + 22, ly, 'policy', 11, weight='bold', fill='#444'))
    for k, rate in enumerate(rates):
        base = x0 + 800 + 300 * k
        out.append(text(base + 40, ly - 16, '%g kHz' % (rate / 1000), 11, 'middle',
                        weight='bold', fill='#444'))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb"/>'
                   % (base - 90, ly - 12, base + 180, ly - 12))
        cols += [(base, 'mean |Δp|'), (base + 90, 'max |Δp|'), (base + 180, 'changed')]
    for cx, label in cols:
        out.append(text(cx, ly, label, 11, 'end', weight='bold', fill='#444'))
    mono = 'font-family="DejaVu Sans Mono, monospace"'
    for i, (policy, model, bpw, mean_db, worst_db, points) in enumerate(series):
        ry = ly + 18 * (i + 1)
        colour = POLICY_COLOURS[i % len(POLICY_COLOURS)]
        out.append(marker('circle', x0 + 8, ry - 4, colour, 4.6))
        name = policy if len(models) == 1 else '%s (%s)' % (policy, model)
        name = name if len(name) <= 56 else name[:55] + '…'
        out.append(text(x0 + 22, ry, '%d  %s' % (i + 1, name), 11))
        cells = ['%.2f' % bpw, '-' if mean_db is None else '%.1f dB' % mean_db,
                 '-' if worst_db is None else '%.1f dB' % worst_db]
        by_rate = {p[0]: p for p in points}
        for rate in rates:
            p = by_rate.get(rate)
            cells += (['-'] * 3 if p is None else
                      ['%.2e' % p[2] if p[2] else '0', '%.3f' % p[3],
                       '%.2f%%' % (100 * p[4])])
        for (cx, _), cell in zip(cols, cells):
            out.append(text(cx, ry, cell, 11, 'end', extra=mono))
    bottom = ly + 18 * len(series) + 10
    if unsized:
        out.append(text(x0, bottom + 8, 'evaluated but without policy_choices (not drawn): '
                        + ', '.join(unsized), 11, fill='#a00'))
        bottom += 20
    return bottom + 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--db', default='build/demo.db')
    ap.add_argument('--out', default='build/demo_sqnr.svg')
    args = ap.parse_args()
    # sqlite3.connect would create a missing file and fail later, vaguely.
    if not os.path.isfile(args.db):
        sys.exit('plot_sqnr: no such registry, got %s' % args.db)
    con = sqlite3.connect(args.db)
    try:
        measured = con.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'quantizations'").fetchone()[0] \
            and con.execute('SELECT count(*) FROM quantizations').fetchone()[0]
    except sqlite3.DatabaseError as e:
        sys.exit('plot_sqnr: %s, got %s' % (e, args.db))
    finally:
        con.close()
    if not measured:
        sys.exit('plot_sqnr: the registry has no quantizations (run '
                 'examples/demo_queries.sql first), got %s' % args.db)

    layers, worst, scales, chan_sqnr, summary, models = load(args.db)
    left_w = 800
    right_w = 560
    width = left_w + right_w + 40
    body = []
    y_left = panel_layers(body, 20, 100, left_w, layers, models)
    y_b = panel_scales(body, left_w + 40, 100, right_w, 400, worst, scales, chan_sqnr)
    y_c = panel_tradeoff(body, left_w + 40, y_b + 30, right_w, summary, models)
    policies = load_policies(args.db)
    y_d = panel_policies(body, 20, max(y_left, y_c) + 20, width - 40, policies)
    height = y_d + 10

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
    print('plot_sqnr: wrote %s (%d layers, worst under per-tensor int8: %s %.1f dB; %s)'
          % (args.out, len(layers), worst[2], worst[4],
             'no evaluations yet' if policies is None
             else '%d evaluated policies' % len(policies[0])))


if __name__ == '__main__':
    main()
