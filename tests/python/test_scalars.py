"""numpy scalars bind as SQL numbers once sqlite_quant is imported."""
import sqlite3
import subprocess
import sys

import numpy as np

import sqlite_quant

X = np.array([0.1, -0.25, 1.27, -1.3], dtype=np.float32)

# Without the package, in a fresh interpreter: the BLOBs the trial met.
BEFORE = """
import sqlite3, sys, numpy as np
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
x = np.array([0.1, -0.25, 1.27, -1.3], dtype=np.float32).tobytes()
for args in [(np.float32(0.01), 0), (0.01, np.int64(0))]:
    try:
        db.execute("SELECT quantize_blob(?, ?, ?)", (x,) + args)
    except sqlite3.OperationalError as e:
        print(e)
"""

# A program's own adapter, registered before the import, is kept.
OWN_ADAPTER = """
import sqlite3, numpy as np
sqlite3.register_adapter(np.float32, lambda v: "mine")
import sqlite_quant
print(sqlite3.connect(":memory:").execute("SELECT ?", (np.float32(1),)).fetchone()[0])
"""


def bound(db, value):
    return db.execute("SELECT typeof(?1), ?1", (value,)).fetchone()


def run(t, env):
    out = subprocess.run([sys.executable, "-c", BEFORE, env.ext], check=True,
                         capture_output=True, text=True).stdout
    t.eq("before-import", out, "quantize_blob: scale must be a number, got blob\n"
                               "quantize_blob: zero_point must be an integer, got blob\n")

    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    for value, want in [
        (np.int8(-128), -128), (np.uint8(255), 255), (np.int16(-32768), -32768),
        (np.uint16(65535), 65535), (np.int32(-2**31), -2**31), (np.uint32(2**32 - 1), 2**32 - 1),
        (np.int64(-2**63), -2**63), (np.uint64(2**63 - 1), 2**63 - 1),
        (np.longlong(-7), -7), (np.ulonglong(7), 7), (np.intc(3), 3), (np.uintc(3), 3),
        (np.bool_(True), 1), (np.bool_(False), 0),
    ]:
        t.eq(f"bind-{type(value).__name__}-{value}", bound(db, value), ("integer", want))
    for value, want in [
        (np.float16(0.1), 0.0999755859375),          # the float16 nearest 0.1, exactly
        (np.float32(0.01), 0.009999999776482582),    # the float32 nearest 0.01, exactly
        (np.float64(0.1), 0.1),
        (np.longdouble(0.5), 0.5),
    ]:
        t.eq(f"bind-{type(value).__name__}-{value}", bound(db, value), ("real", want))
    t.raises("bind-longdouble-inexact", TypeError,
             "sqlite_quant: a float128 scalar that no double holds exactly has no SQL number,"
             " got 0.1",
             bound, db, np.longdouble(1) / np.longdouble(10))
    t.raises("bind-complex", TypeError,
             "sqlite_quant: a complex64 scalar has no SQL number (bind its .real or .imag),"
             " got (1+2j)",
             bound, db, np.complex64(1 + 2j))
    t.raises("bind-uint64-overflow", OverflowError,
             "Python int too large to convert to SQLite INTEGER",
             bound, db, np.uint64(2**64 - 1))

    # The trial's query: a float32 scale and an int64 zero point give the
    # bytes of the same numbers as Python's, codes rint(x / 0.01) computed in
    # numpy as docs/NUMERICS.md says (x times the float32 reciprocal).
    x = sqlite_quant.f32_blob(X)
    scale = np.float32(0.01)
    codes = db.execute("SELECT quantize_blob(?, ?, ?)", (x, scale, np.int64(0))).fetchone()[0]
    plain = db.execute("SELECT quantize_blob(?, ?, ?)", (x, float(scale), 0)).fetchone()[0]
    t.eq("quantize-numpy-scalars", codes, plain)
    expect = np.clip(np.rint(X * (np.float32(1) / scale)), -128, 127).astype(np.int8)
    t.eq("quantize-numpy-scalars-codes", codes, expect.tobytes())
    t.eq("quantize-numpy-scalars-hex", codes.hex(), "0ae77f80")

    out = subprocess.run([sys.executable, "-c", OWN_ADAPTER], check=True,
                         capture_output=True, text=True).stdout
    t.eq("own-adapter-kept", out, "mine\n")
