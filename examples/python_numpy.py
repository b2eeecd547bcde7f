#!/usr/bin/python3
"""sqlite-quant from Python with numpy in and out.  From the repo root:
    /usr/bin/python3 examples/python_numpy.py
The extension is dist/quant unless SQLITE_QUANT_EXT names another build.
Exits 77 ("skipped") when this Python cannot load extensions or lacks numpy."""
import os, sqlite3, sys

db = sqlite3.connect(":memory:")
if not hasattr(db, "enable_load_extension"):  # e.g. pyenv's default build
    print(f"skipped: {sys.executable} is built without sqlite3 extension loading;"
          " use Debian's /usr/bin/python3")
    sys.exit(77)
try:
    import numpy as np
except ImportError:
    print(f"skipped: {sys.executable} has no numpy (Debian: apt-get install python3-numpy)")
    sys.exit(77)
db.enable_load_extension(True)
db.load_extension(os.environ.get("SQLITE_QUANT_EXT", "dist/quant"))

# A conv weight [out=16, in=8, 3, 3] whose output channels differ in range.
rng = np.random.default_rng(0)
w = (rng.normal(size=(16, 8, 3, 3)) * np.linspace(0.02, 1.0, 16)[:, None, None, None]).astype("<f4")
db.execute("CREATE TABLE tensors(name TEXT, shape TEXT, data BLOB)")
db.execute("INSERT INTO tensors VALUES ('conv1', ?, ?)", (str(list(w.shape)), w.tobytes()))

# Per-channel int8 parameters along axis 0, back as numpy arrays.
s_blob, zp_blob = db.execute("SELECT q_per_channel_scales(data, shape, 0),"
                             " q_per_channel_zero_points(data, shape, 0) FROM tensors").fetchone()
scales, zps = np.frombuffer(s_blob, dtype="<f4"), np.frombuffer(zp_blob, dtype="<i4")

# Quantize in SQL; the int8 codes come back as a numpy array of w's shape.
codes, back = db.execute("SELECT quantize_per_channel_blob(data, :s, :z, shape, 0),"
                         " q_fake_quantize_per_channel(data, :s, :z, shape, 0) FROM tensors",
                         {"s": s_blob, "z": zp_blob}).fetchone()
q = np.frombuffer(codes, dtype=np.int8).reshape(w.shape)

# The same codes in numpy (docs/NUMERICS.md#quantize): q = clip(rint(x * (1/scale)) + zp), in float32.
inv = (np.float32(1) / scales)[:, None, None, None]
expect = np.clip(np.rint(w * inv) + zps[:, None, None, None], -128, 127).astype(np.int8)
assert np.array_equal(q, expect), "codes differ from the numpy re-computation"
x_back = np.frombuffer(back, dtype="<f4").reshape(w.shape)
assert np.array_equal(x_back, ((q.astype("<i4") - zps[:, None, None, None]).astype("<f4")
                               * scales[:, None, None, None]))

sqnr_c, = db.execute("SELECT q_sqnr(data, ?) FROM tensors", (back,)).fetchone()
sqnr_t, = db.execute("SELECT q_sqnr(data, q_fake_quantize(data, q_scale(data),"
                     " q_zero_point(data))) FROM tensors").fetchone()
print("weight", w.shape, w.dtype, "->", q.dtype, len(codes), "bytes")
print("scales[:4]", " ".join(f"{v:.6g}" for v in scales[:4]), "zero points[:4]", zps[:4].tolist())
print("codes[0,0]", q[0, 0].ravel().tolist())
print(f"sqnr per-tensor {sqnr_t:.2f} dB, per-channel {sqnr_c:.2f} dB")
print("codes match numpy: ok")
