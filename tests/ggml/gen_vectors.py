#!/usr/bin/python3
"""Reference vectors for ggml's block formats, from ggml itself.

How to rerun (Debian 12):
    sh tests/ensure-deps.sh ggml && make ggml-lib
    /usr/bin/python3 tests/ggml/gen_vectors.py [LIB] [OUT]
LIB defaults to build/ggml/libggml-base.so (tests/ggml/fetch_ggml.sh: ggml
0.25.1, commit 0ad4a86, from @node-llama-cpp/linux-x64@3.22.1), OUT to
tests/ggml/vectors.txt.  Deterministic: fixed seed, numpy's PCG64 stream, no
time or hash dependence; rerunning on the same library rewrites the same bytes.
tests/ggml.test replays the file through SQL, so `make test` needs neither
numpy nor the library.

Every expected value is ggml's, called through ctypes:
  q   without importance: quantize_row_<type>_ref(x_row, blocks, cols) for each
      row (checked equal to quantize_<type>(x, blocks, rows, cols, NULL),
      except for iq4_nl, whose _ref leaves the codes of blocks below 1e-15
      undefined: they are written as 0x88, see undefined_iq4_nl; iq4_nl's
      cases "unweighted" are quantize_iq4_nl(x, blocks, rows, cols, NULL));
      a case where ggml aborts (iq3 on huge data) is left out;
      with importance: quantize_<type>(x, blocks, rows, cols, importance),
      importance being one weight per column, as llama.cpp's imatrix;
  dq  dequantize_row_<type>(q, y, rows * cols).

Format (text, one field per line, hex uppercase as SQLite's hex() prints):
    case NAME TYPE ROWS COLS
    x   HEX     rows*cols little-endian float32, row-major
    imp HEX     cols little-endian float32, or "none", or "unweighted"
                (q_ggml_quantize's importance 'none')
    q   HEX     ggml's blocks
    dq  HEX     ggml's dequantized q (float32); only in cases without
                importance ("-" otherwise)
    end
A line "cases N" at the top counts them; '#' lines are comments.
"""
import ctypes
import os
import sys
import zlib

import numpy as np

LIB = sys.argv[1] if len(sys.argv) > 1 else "build/ggml/libggml-base.so"
OUT = sys.argv[2] if len(sys.argv) > 2 else "tests/ggml/vectors.txt"
SEED = 20250101

# name, block, bytes (ggml-common.h)
TYPES = [
    ("q4_0", 32, 18), ("q4_1", 32, 20), ("q5_0", 32, 22), ("q5_1", 32, 24),
    ("q8_0", 32, 34), ("q2_K", 256, 84), ("q3_K", 256, 110),
    ("q4_K", 256, 144), ("q5_K", 256, 176), ("q6_K", 256, 210),
    ("iq3_xxs", 256, 98), ("iq4_nl", 32, 18), ("iq3_s", 256, 110),
    ("iq4_xs", 256, 136),
]
# Types added later draw from their own stream, seeded by their name, and
# add the families of OWN_FAMILIES: the cases of the types above (one stream,
# in this order) stay byte for byte what they were, whatever is added.
OWN_STREAM = [
    ("tq1_0", 256, 54), ("tq2_0", 256, 66), ("mxfp4", 32, 17),
    ("nvfp4", 64, 36), ("q1_0", 128, 18), ("q2_0", 64, 18),
    ("iq2_xxs", 256, 66), ("iq2_xs", 256, 74), ("iq1_s", 256, 50),
    ("iq2_s", 256, 82), ("iq1_m", 256, 56),
]
TYPES += OWN_STREAM
# ggml's ids of the types that need ggml_quantize_init (their lattices).
INIT = {"iq3_xxs": 18, "iq3_s": 21, "iq2_xxs": 16, "iq2_xs": 17, "iq1_s": 19,
        "iq2_s": 22, "iq1_m": 29}
# The types ggml quantizes only with importance (no quantize_row_<type>_ref):
# their cases without importance are left out.
NEEDS_IMPORTANCE = {"iq2_xxs", "iq2_xs", "iq1_s"}
# The types whose quantize_<type>(.., NULL) is not quantize_row_<type>_ref:
# they get cases with importance "unweighted" too.
UNWEIGHTED_DIFFERS = {"iq4_nl"}
# The types without a quantize_row_<type>_ref that quantize without
# importance all the same: their cases without importance come from
# quantize_<type>(.., NULL).
NO_REF = {"iq1_m"}

lib = ctypes.CDLL(os.path.abspath(LIB))
lib.ggml_version.restype = ctypes.c_char_p
lib.ggml_commit.restype = ctypes.c_char_p
VERSION = lib.ggml_version().decode()
COMMIT = lib.ggml_commit().decode()

fptr = ctypes.POINTER(ctypes.c_float)


def fn(name, restype, argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


lib.ggml_quantize_init.argtypes = [ctypes.c_int]
for _t, _id in INIT.items():
    lib.ggml_quantize_init(_id)

QREF, QUANT, DEQ = {}, {}, {}
for t, _, _ in TYPES:
    if t not in NEEDS_IMPORTANCE and t not in NO_REF:
        QREF[t] = fn(f"quantize_row_{t}_ref", None,
                     [fptr, ctypes.c_void_p, ctypes.c_int64])
    QUANT[t] = fn(f"quantize_{t}", ctypes.c_size_t,
                  [fptr, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, fptr])
    DEQ[t] = fn(f"dequantize_row_{t}", None,
                [ctypes.c_void_p, fptr, ctypes.c_int64])


def as_fptr(a):
    return a.ctypes.data_as(fptr)


def undefined_iq4_nl(x, q):
    """quantize_row_iq4_nl_ref leaves the codes of a block whose |x| stays
    below 1e-15 uninitialised; they are set to 0x88 (code 8 twice), what
    sqlite-quant writes there (ext/kernels/ggml_iq4.c)."""
    q = bytearray(q)
    for b in range(len(x) // 32):
        if float(np.max(np.abs(x[32 * b:32 * b + 32]))) < 1e-15:
            q[18 * b + 2:18 * b + 18] = b"\x88" * 16
    return bytes(q)


def quantize_or_none(*args):
    """quantize(*args), or None where ggml aborts (its iq3 searches assert
    on some rows of huge values or weights): run in a child process."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.environ["GGML_NO_BACKTRACE"] = "1"
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        q = quantize(*args)
        with os.fdopen(w, "wb") as f:
            f.write(q)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        q = f.read()
    _, status = os.waitpid(pid, 0)
    return q if status == 0 else None


def quantize(t, block, nbytes, x, rows, cols, imp):
    x = np.ascontiguousarray(x, dtype="<f4")
    size = rows * (cols // block) * nbytes
    out = ctypes.create_string_buffer(size)
    if isinstance(imp, str):            # "unweighted": quantize_<type>(NULL)
        wrote = QUANT[t](as_fptr(x), out, rows, cols, None)
        assert wrote == size, t
    elif imp is None and t in NO_REF:
        wrote = QUANT[t](as_fptr(x), out, rows, cols, None)
        assert wrote == size, t
    elif imp is None:
        for r in range(rows):
            row = np.ascontiguousarray(x[r * cols:(r + 1) * cols])
            QREF[t](as_fptr(row), ctypes.byref(out, r * (size // rows)), cols)
        if t == "iq4_nl":
            return undefined_iq4_nl(x, out.raw)
        other = ctypes.create_string_buffer(size)
        wrote = QUANT[t](as_fptr(x), other, rows, cols, None)
        assert wrote == size and other.raw == out.raw, t
    else:
        imp = np.ascontiguousarray(imp, dtype="<f4")
        wrote = QUANT[t](as_fptr(x), out, rows, cols, as_fptr(imp))
        assert wrote == size, t
    return out.raw


def dequantize(t, q, n):
    y = np.zeros(n, dtype="<f4")
    DEQ[t](q, as_fptr(y), n)
    return y


rng = np.random.default_rng(SEED)


def f32(a):
    with np.errstate(over="ignore", under="ignore"):
        return np.asarray(a, dtype=np.float64).astype("<f4")


# ---- data families: (rows*cols floats, block) -> float32 array -------------
def fam_random(n, block):
    s = 10.0 ** rng.uniform(-2, 2)
    return f32(rng.normal(0, s, n))


def fam_heavy(n, block):
    s = 10.0 ** rng.uniform(-2, 2)
    v = rng.standard_t(1.5, n) * s
    return f32(np.clip(v, -1e30, 1e30))


def fam_zero(n, block):
    v = np.zeros(n)
    v[rng.random(n) < 0.2] = -0.0
    return f32(v)


def fam_constant(n, block):
    c = rng.choice([1.0, -3.0, 0.1, -1234.5, 7.0])
    return f32(np.full(n, c))


def fam_tiny(n, block):
    return f32(rng.normal(0, 1e-30, n))


def fam_subnormal(n, block):
    # Every value a float32 subnormal (or zero).
    return f32(rng.normal(0, 1e-40, n))


def fam_huge(n, block):
    return f32(rng.normal(0, 1e30, n))


def fam_hugemax(n, block):
    # Up to FLT_MAX/4, which every block reaches.
    fmax4 = float(np.finfo(np.float32).max) / 4
    v = rng.uniform(-fmax4, fmax4, n)
    for b in range(0, n, block):
        v[b + rng.integers(block)] = fmax4 * rng.choice([-1, 1])
    return f32(v)


def fam_ties(n, block):
    # Per block a power of two d; values (j/2)*d for j in [-2L, 2L] and an
    # extreme +-L*d, L one of the formats' level counts: ggml's x*id lands on
    # exact halves.
    v = np.zeros(n)
    for b in range(0, n, block):
        d = 2.0 ** int(rng.integers(-8, 9))
        L = int(rng.choice([1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127]))
        v[b:b + block] = rng.integers(-2 * L, 2 * L + 1, block) * (d / 2)
        v[b + rng.integers(block)] = L * d * rng.choice([-1, 1])
        if block == 256:
            for sb in range(b, b + block, 16):
                if rng.random() < 0.5:
                    v[sb + rng.integers(16)] = L * d * rng.choice([-1, 1])
    return f32(v)


def fam_nearpow2(n, block):
    # Per block an extreme 0..100 float steps below a power of two 2^k (k
    # anywhere in float32's normal range), the rest smaller: where
    # floor(log2f(amax)) (mxfp4) and the power-of-two scales turn.
    v = np.zeros(n, dtype="<f4")
    for b in range(0, n, block):
        k = int(rng.integers(-125, 128))
        top = np.array([2.0 ** k], dtype="<f4").view("<u4")[0]
        a = np.array([top - int(rng.integers(0, 101))], dtype="<u4").view("<f4")[0]
        blk = f32(rng.uniform(-1, 1, block) * float(a))
        blk[rng.integers(block)] = a * rng.choice([-1, 1])
        v[b:b + block] = blk
    return v


FAMILIES = [
    ("random", fam_random), ("heavy", fam_heavy), ("zero", fam_zero),
    ("constant", fam_constant), ("tiny", fam_tiny),
    ("subnormal", fam_subnormal), ("huge", fam_huge), ("hugemax", fam_hugemax),
    ("ties", fam_ties),
]
OWN_FAMILIES = [("nearpow2", fam_nearpow2)]


# ---- importance families: cols -> float32 array ----------------------------
def imp_random(cols):
    return f32(rng.uniform(0.01, 2.0, cols) * 10.0 ** rng.uniform(-2, 2))


def imp_some_zeros(cols):
    v = rng.uniform(0.01, 2.0, cols)
    v[rng.random(cols) < 0.3] = 0.0
    v[16:32] = 0.0                      # one whole 16-weight sub-block
    return f32(v)


def imp_zeros(cols):
    return f32(np.zeros(cols))


def imp_huge_tiny(cols):
    v = rng.uniform(0.5, 1.0, cols)
    scale = np.where(rng.random(cols) < 0.5, 1e30, 1e-30)
    scale[rng.random(cols) < 0.1] = 1e-40
    return f32(v * scale)


IMPORTANCE = [
    ("imp", imp_random), ("impzeros", imp_some_zeros),
    ("impallzero", imp_zeros), ("imphugetiny", imp_huge_tiny),
]


def shapes(t, block):
    """(rows, cols) per case, in turn: legacy types a few blocks per row,
    K-quants one or two super-blocks; every third case has 2 rows."""
    if block == 32:
        return [(1, 96), (2, 64), (1, 128), (1, 64), (2, 96), (1, 160)]
    if block in (64, 128):
        return [(1, 2 * block), (2, block), (1, 3 * block), (1, block)]
    return [(1, 256), (1, 512), (2, 256)]


def hexs(b):
    return b.hex().upper()


cases = []
for t, block, nbytes in TYPES:
    sh = shapes(t, block)
    k = 0
    families = FAMILIES
    if (t, block, nbytes) in OWN_STREAM:
        rng = np.random.default_rng([SEED, zlib.crc32(t.encode())])
        families = FAMILIES + OWN_FAMILIES
    for fi, (fname, fam) in enumerate(families):
        # Without importance, then with one importance family (rotating, so
        # every type meets all four), each on its own data.
        for with_imp in (False, True):
            rows, cols = sh[k % len(sh)]
            k += 1
            x = fam(rows * cols, block)
            if with_imp:
                iname, ifam = IMPORTANCE[(fi + TYPES.index((t, block, nbytes))) % len(IMPORTANCE)]
                imp = ifam(cols)
            else:
                iname, imp = "noimp", None
                if t in NEEDS_IMPORTANCE:
                    continue
            q = quantize_or_none(t, block, nbytes, x, rows, cols, imp)
            if q is None:
                continue
            dq = dequantize(t, q, rows * cols) if imp is None else None
            cases.append((f"{t}-{fname}-{iname}", t, rows, cols, x, imp, q, dq))
            if imp is None and t in UNWEIGHTED_DIFFERS:
                q = quantize(t, block, nbytes, x, rows, cols, "unweighted")
                cases.append((f"{t}-{fname}-unweighted", t, rows, cols, x,
                              "unweighted", q, None))
    # Random data under every importance family.
    for iname, ifam in IMPORTANCE:
        rows, cols = sh[k % len(sh)]
        k += 1
        x = fam_random(rows * cols, block)
        imp = ifam(cols)
        q = quantize_or_none(t, block, nbytes, x, rows, cols, imp)
        if q is not None:
            cases.append((f"{t}-random2-{iname}", t, rows, cols, x, imp, q, None))

names = [c[0] for c in cases]
assert len(names) == len(set(names)), "duplicate case names"

with open(OUT, "w", newline="\n") as f:
    f.write("# Generated by tests/ggml/gen_vectors.py -- do not edit by hand.\n")
    f.write(f"# ggml {VERSION} (commit {COMMIT}), libggml-base.so of "
            "@node-llama-cpp/linux-x64@3.22.1; seed %d.\n" % SEED)
    f.write("# Format: see gen_vectors.py; replayed by tests/ggml.test.\n")
    f.write(f"cases {len(cases)}\n")
    for name, t, rows, cols, x, imp, q, dq in cases:
        f.write(f"case {name} {t} {rows} {cols}\n")
        f.write(f"x {hexs(x.tobytes())}\n")
        f.write(f"imp {'none' if imp is None else imp if isinstance(imp, str) else hexs(imp.tobytes())}\n")
        f.write(f"q {hexs(q)}\n")
        f.write(f"dq {'-' if dq is None else hexs(dq.tobytes())}\n")
        f.write("end\n")

size = os.path.getsize(OUT)
print(f"{OUT}: {len(cases)} cases, {size} bytes (ggml {VERSION}, {COMMIT})")
