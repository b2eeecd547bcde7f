"""A faithful numpy reimplementation of ONNX Runtime's entropy calibrator
(onnxruntime/python/tools/quantization/calibrate.py: HistogramCollector with
method='entropy', collect_value, merge_histogram, get_entropy_threshold; and
quant_utils.smooth_distribution), for sqlite-quant's method=entropy
(docs/NUMERICS.md#calibration).

Entry point (cheap to import: numpy only):

    entropy_range(rows, bins=128, quantized_bins=128, symmetric=False)
        rows: a list of float32 numpy arrays, each one collect() batch (it is
        flattened).  Returns (lo, hi) as Python floats (float32 values): the
        range ORT's EntropyCalibrater reports for the tensor.  `symmetric`
        is accepted and, as in ORT, does not change the range (ORT's quantizer
        uses it only when it turns the range into a scale).

scipy is not needed: scipy.stats.entropy(p, q) is reimplemented with its
semantics (each of p and q divided by its own sum, the terms
rel_entr(x, y) = x*log(x/y), 0 for x == 0 and y >= 0, inf otherwise, then
summed); for float32 inputs scipy's rel_entr computes in double and rounds
the result to float32, and so does this.  np.log may differ from the C
library's log in the last bit of a double; that reaches a float32 term only
when the double lands within one ulp of a float32 rounding boundary.

Written from the published behaviour, not copied: the structure follows the
algorithm step by step so every numpy type promotion ORT's code triggers
(numpy 1.24 value-based casting) happens here too.
"""
import numpy as np

f32 = np.float32


def _rel_entr_f32(x, y):
    """scipy.special.rel_entr on float32 arrays (computed in double)."""
    xd = x.astype(np.float64)
    yd = y.astype(np.float64)
    out = np.full(xd.shape, np.inf)
    pos = (xd > 0) & (yd > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[pos] = xd[pos] * np.log(xd[pos] / yd[pos])
    out[(xd == 0) & (yd >= 0)] = 0.0
    return out.astype(f32)


def _scipy_entropy(pk, qk):
    """scipy.stats.entropy(pk, qk) for 1-D arrays, base e."""
    pk = np.asarray(pk)
    pk = 1.0 * pk / np.sum(pk, axis=0, keepdims=True)
    qk = np.asarray(qk)
    qk = 1.0 * qk / np.sum(qk, axis=0, keepdims=True)
    assert pk.dtype == f32 and qk.dtype == f32
    vec = _rel_entr_f32(pk, qk)
    return np.sum(vec, axis=0)


def _smooth(p, eps=0.0001):
    """quant_utils.smooth_distribution: -1 for an all-zero p."""
    is_zeros = (p == 0).astype(f32)
    is_nonzeros = (p != 0).astype(f32)
    n_zeros = is_zeros.sum()
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return -1
    eps1 = eps * float(n_zeros) / float(n_nonzeros)
    if not eps1 < 1.0:
        raise AssertionError("smooth_distribution: eps1 >= 1")
    hist = p.astype(f32)
    hist += eps * is_zeros + (-eps1) * is_nonzeros
    if (hist <= 0).sum() != 0:
        raise AssertionError("smooth_distribution: a bin <= 0")
    return hist


def _q_loops(sliced, nonzeros, nq):
    """ORT's q, by its literal per-bin loops (kept to check the vectorized
    form in EntropyCollector.kl_curve)."""
    qbins = np.zeros(nq, dtype=np.int64)
    merged = sliced.size // nq
    for j in range(nq):
        qbins[j] = sum(sliced[j * merged:j * merged + merged])
    qbins[-1] += sum(sliced[nq * merged:])
    q = np.zeros(sliced.size, dtype=np.int64)
    for j in range(nq):
        a, b = j * merged, j * merged + merged
        norm = sum(nonzeros[a:b])
        if norm != 0:
            q[a:b] = float(qbins[j]) / float(norm)
    return q


class EntropyCollector:
    """One tensor's HistogramCollector state (method='entropy')."""

    def __init__(self, bins=128, quantized_bins=128):
        self.num_bins = bins
        self.num_quantized_bins = quantized_bins
        self.state = None   # (hist, edges, min, max, threshold)
        self.check_loops = False   # also run ORT's literal loops for q

    def collect(self, arr):
        arr = np.asarray(arr).flatten()
        min_value = np.min(arr)
        max_value = np.max(arr)
        threshold = max(abs(min_value), abs(max_value))
        if self.state is None:
            hist, edges = np.histogram(arr, self.num_bins,
                                       range=(-threshold, threshold))
            self.state = (hist, edges, min_value, max_value, threshold)
        else:
            self.state = self._merge(arr, min_value, max_value, threshold)

    def _merge(self, arr, new_min, new_max, new_thr):
        old_hist, old_edges, old_min, old_max, old_thr = self.state
        lo, hi = min(old_min, new_min), max(old_max, new_max)
        if new_thr <= old_thr:
            h, _ = np.histogram(arr, len(old_hist), range=(-old_thr, old_thr))
            return (h + old_hist, old_edges, lo, hi, old_thr)
        if old_thr == 0:
            h, edges = np.histogram(arr, len(old_hist), range=(-new_thr, new_thr))
            h += old_hist
            return (h, edges, lo, hi, new_thr)
        nb = len(old_hist)
        stride = 2 * old_thr / nb
        half = int((new_thr - old_thr) // stride + 1)
        new_nb = nb + 2 * half
        new_thr = half * stride + old_thr
        h, edges = np.histogram(arr, new_nb, range=(-new_thr, new_thr))
        h[half:new_nb - half] += old_hist
        return (h, edges, lo, hi, new_thr)

    def kl_curve(self):
        """Every candidate's (start, end, kl) in search order."""
        hist, edges = self.state[0], self.state[1]
        nb = hist.size
        zero = nb // 2
        nq = self.num_quantized_bins
        nhq = nq // 2
        out = []
        for i in range(nhq, zero + 1):
            start = zero - i
            end = min(zero + i + 1, nb)
            sliced = hist[start:end].copy()
            p = sliced.copy()
            p[0] += hist[:start].sum()
            p[-1] += hist[end:].sum()
            nonzeros = (p != 0).astype(np.int64)
            # ORT merges and spreads back one quantized bin at a time in
            # Python loops; the same integer sums, vectorized: quantized bin
            # j holds slice bins [j*merged, (j+1)*merged), the last one also
            # the tail past nq*merged, whose q entries stay 0.
            merged = sliced.size // nq
            head = nq * merged
            qbins = sliced[:head].reshape(nq, merged).sum(axis=1) if merged \
                else np.zeros(nq, dtype=np.int64)
            qbins[-1] += sliced[head:].sum()
            norms = nonzeros[:head].reshape(nq, merged).sum(axis=1) if merged \
                else np.zeros(nq, dtype=np.int64)
            q = np.zeros(p.size, dtype=np.int64)   # ORT's int64 q: truncates
            with np.errstate(divide="ignore", invalid="ignore"):
                each = qbins.astype(np.float64) / norms.astype(np.float64)
            each = np.where(norms != 0, each, 0.0).astype(np.int64)
            if merged:
                q[:head] = np.repeat(each, merged)
            if self.check_loops:
                assert np.array_equal(q, _q_loops(sliced, nonzeros, nq))
            p = _smooth(p)
            q = _smooth(q)
            kl = _scipy_entropy(p, q) if isinstance(q, np.ndarray) else float("inf")
            out.append((start, end, float(kl)))
        return out

    def threshold(self):
        hist, edges, mn, mx = self.state[:4]
        curve = self.kl_curve()
        kls = np.array([c[2] for c in curve])
        best = int(np.argmin(kls))
        start, end = curve[best][0], curve[best][1]
        lo, hi = float(edges[start]), float(edges[end])
        if lo < mn:
            lo = float(mn)
        if hi > mx:
            hi = float(mx)
        return lo, hi


def entropy_range(rows, bins=128, quantized_bins=128, symmetric=False):
    """(lo, hi) of ORT's entropy calibration over `rows` (see the module
    docstring); `symmetric` does not change it."""
    c = EntropyCollector(bins, quantized_bins)
    for r in rows:
        c.collect(np.asarray(r, dtype=f32))
    return c.threshold()
