"""f32_blob, npy_blob and array: exact bytes in, exact arrays out, and every
refusal with its message."""
import json
import sqlite3

import numpy as np

import sqlite_quant
from sqlite_quant import array, f32_blob, npy_blob

ROUNDING = "float32 cannot hold every value of this dtype exactly (pass allow_downcast=True to round to nearest)"
DTYPES = ("f32, f16, bf16, int8, uint8, int16, uint16, int32, int4, uint4, int2, uint2,"
          " f8_e4m3fn, f8_e5m2, f8_e4m3fnuz, f8_e5m2fnuz"
          " (or qint8, quint8, qint32, quint4x2, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,"
          " float8_e5m2fnuz, or numpy's float32, float16, bfloat16,"
          " int8, uint8, int16, uint16, int32)")


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def run(t, env):
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)

    # ---- f32_blob ------------------------------------------------------------
    v = np.array([0.5, -1, 2e-3], dtype=np.float32)
    t.eq("f32-bytes", f32_blob(v).hex().upper(), "0000003F000080BF6F12033B")
    t.eq("f32-as-sql", f32_blob(v), one(db, "SELECT q_f32('[0.5, -1, 2e-3]')"))
    t.eq("f32-big-endian", f32_blob(v.astype(">f4")), f32_blob(v))
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    t.eq("f32-fortran-order", f32_blob(np.asfortranarray(m)), m.tobytes())
    t.eq("f32-transposed", f32_blob(m.T), np.array([0, 3, 1, 4, 2, 5], np.float32).tobytes())
    t.eq("f32-strided", f32_blob(m[:, ::2]), np.array([0, 2, 3, 5], np.float32).tobytes())
    t.eq("f32-scalar", f32_blob(np.float32(1.5)).hex(), "0000c03f")
    # Dtypes float32 holds exactly pass as they are.
    t.eq("f32-from-f16", f32_blob(np.array([0.1], np.float16)).hex(), "00c0cc3d")
    t.eq("f32-from-int16", f32_blob(np.array([-32768, 32767], np.int16)).hex(), "000000c700feff46")
    t.eq("f32-from-bool", f32_blob(np.array([True, False])).hex(), "0000803f00000000")
    # Rounding is refused unless asked for: numpy's float64 default, Python
    # floats and ints, integers wider than 16 bits.
    t.raises("f32-refuses-f64", TypeError, f"f32_blob: {ROUNDING}, got float64",
             f32_blob, np.array([0.1, 0.2]))
    t.raises("f32-refuses-list", TypeError, f"f32_blob: {ROUNDING}, got float64",
             f32_blob, [0.1, 0.2])
    t.raises("f32-refuses-int32", TypeError, f"f32_blob: {ROUNDING}, got int32",
             f32_blob, np.array([16777217], np.int32))
    t.raises("f32-refuses-complex", TypeError,
             "f32_blob: the array must hold numbers (bool, integer or float), got complex64",
             f32_blob, np.array([1j], np.complex64))
    t.raises("f32-refuses-text", TypeError,
             "f32_blob: the array must hold numbers (bool, integer or float), got <U3",
             f32_blob, ["0.1"])
    # Asked for: round to nearest (0.1 -> 0x3DCCCCCD; 16777217 -> 2^24; a
    # value above FLT_MAX that still rounds to it), but never to infinity:
    # 2^128 - 2^103, halfway between FLT_MAX and 2^128, rounds to even, 2^128.
    t.eq("f32-downcast", f32_blob(np.array([0.1, 1e-50]), allow_downcast=True).hex(),
         "cdcccc3d00000000")
    t.eq("f32-downcast-int", f32_blob(np.array([16777217], np.int32), allow_downcast=True).hex(),
         "0000804b")
    t.eq("f32-downcast-max", f32_blob(np.array([3.4028235e38]), allow_downcast=True).hex(),
         "ffff7f7f")
    t.raises("f32-downcast-halfway", ValueError,
             "f32_blob: element 0 is out of float32 range, got 3.4028235677973366e+38",
             f32_blob, np.array([2.0**128 - 2.0**103]), allow_downcast=True)
    t.raises("f32-downcast-overflow", ValueError,
             "f32_blob: element 3 is out of float32 range, got -1e+39",
             f32_blob, np.array([[0.0, 1.0], [2.0, -1e39]]), allow_downcast=True)
    t.eq("f32-downcast-inf-stays", f32_blob(np.array([np.inf]), allow_downcast=True).hex(),
         "0000807f")

    # The extension's own guard against float64 bytes read as float32
    # (docs/NUMERICS.md#float-tensors), what f32_blob spares the caller.
    raw = np.random.default_rng(0).normal(size=64).tobytes()
    t.raises("sql-float64-bytes", sqlite3.OperationalError,
             "q_scale: x looks like float64 data (numpy's default dtype; convert with"
             " .astype(np.float32) or pass the .npy bytes), got 512 bytes",
             one, db, "SELECT q_scale(?)", raw)

    # ---- npy_blob ------------------------------------------------------------
    n = npy_blob(m)
    t.eq("npy-q_tensors", db.execute("SELECT name, dtype, shape, data FROM q_tensors(?)", (n,)).fetchall(),
         [("", "f32", "[2,3]", m.tobytes())])
    t.eq("npy-as-x", one(db, "SELECT q_f32(?)", n), m.tobytes())
    t.eq("npy-fortran-order", db.execute("SELECT shape, data FROM q_tensors(?)",
                                         (npy_blob(np.asfortranarray(m)),)).fetchall(),
         [("[2,3]", m.tobytes())])
    t.eq("npy-transposed", one(db, "SELECT q_f32(?)", npy_blob(m.T)), f32_blob(m.T))
    t.eq("npy-big-endian", one(db, "SELECT q_f32(?)", npy_blob(m.astype(">f4"))), m.tobytes())
    t.eq("npy-f16", db.execute("SELECT dtype, shape FROM q_tensors(?)",
                               (npy_blob(m.astype(np.float16)),)).fetchall(), [("f16", "[2,3]")])
    t.eq("npy-0d", db.execute("SELECT shape, hex(data) FROM q_tensors(?)",
                              (npy_blob(np.float32(1.5)),)).fetchall(), [("[]", "0000C03F")])
    t.raises("npy-refuses-f64", TypeError, f"npy_blob: {ROUNDING}, got float64",
             npy_blob, np.array([0.1]))
    # Asked for, the .npy keeps float64 and the extension rounds it.
    d = npy_blob(np.array([0.1, -3.0]), allow_downcast=True)
    t.eq("npy-downcast", db.execute("SELECT dtype, hex(q_f32(?1)) FROM q_tensors(?1)", (d,)).fetchall(),
         [("f64", "CDCCCC3D000040C0")])
    t.raises("npy-refuses-longdouble", TypeError,
             "npy_blob: the extension reads .npy floats of at most 8 bytes, got float128",
             npy_blob, np.array([1], np.longdouble), allow_downcast=True)

    # ---- array ---------------------------------------------------------------
    codes = one(db, "SELECT quantize_blob('[-1, 0.5, 2, 3]', 0.015686275, 64, 'uint8')")
    t.eq("array-uint8", array(codes, "uint8"), np.array([0, 96, 191, 255], np.uint8))
    t.eq("array-alias", array(codes, "QUINT8", (2, 2)), np.array([[0, 96], [191, 255]], np.uint8))
    t.eq("array-int4", array(bytes.fromhex("E103"), "int4", [3]), np.array([1, -2, 3], np.int8))
    t.eq("array-uint4", array(bytes.fromhex("E103"), "quint4x2", "[3]"), np.array([1, 14, 3], np.uint8))
    t.eq("array-int4-even", array(bytes.fromhex("E18F"), "int4", (2, 2)),
         np.array([[1, -2], [-1, -8]], np.int8))

    # Every code dtype against the extension's own q_json, on random data.
    x = f32_blob(np.random.default_rng(1).normal(size=(5, 7)).astype(np.float32))
    for dtype, numpy_dtype in [("int8", np.int8), ("uint8", np.uint8), ("int16", np.int16),
                               ("uint16", np.uint16), ("int32", np.int32), ("int4", np.int8),
                               ("uint4", np.uint8), ("int2", np.int8), ("uint2", np.uint8)]:
        q, text = db.execute("SELECT q, q_json(q, ?2, 35) FROM (SELECT quantize_blob(?1,"
                             " q_scale(?1, ?2), q_zero_point(?1, ?2), ?2) AS q)", (x, dtype)).fetchone()
        got = array(q, dtype, (5, 7))
        t.eq(f"array-{dtype}", got, np.array(json.loads(text), numpy_dtype).reshape(5, 7))
        t.eq(f"array-{dtype}-writable", got.flags.writeable, True)

    # 2-bit codes, four per byte, element 4i in the low two bits: 0xE4 is
    # codes 0, 1, 2, 3 (int2: 0, 1, -2, -1).
    t.eq("array-int2", array(bytes.fromhex("E403"), "int2", [5]), np.array([0, 1, -2, -1, -1], np.int8))
    t.eq("array-uint2", array(bytes.fromhex("E403"), "uint2", (5,)), np.array([0, 1, 2, 3, 3], np.uint8))
    t.eq("array-int2-full", array(bytes.fromhex("1BE4"), "int2", "[2, 4]"),
         np.array([[-1, -2, 1, 0], [0, 1, -2, -1]], np.int8))
    t.raises("array-int2-no-shape", ValueError,
             "array: int2 codes need a shape (a byte holds four codes, so 2 bytes are 5 to 8 codes),"
             " got shape=None",
             array, bytes(2), "int2")
    t.raises("array-int2-length", ValueError,
             "array: shape [5] is 5 int2 codes, which take 2 bytes, got 1",
             array, bytes(1), "int2", [5])
    t.raises("array-uint2-high-bits", ValueError,
             "array: the last byte of 5 uint2 codes has 0 in its 6 unused high bits, got 0x13",
             array, bytes.fromhex("E413"), "uint2", [5])

    # float8 codes: exact values worked out from each format's definition
    # (docs/NUMERICS.md#float8-codes), NaN as the extension writes it.
    def bits(a):
        return [int(v) for v in a.view(np.uint32).reshape(-1)]
    t.eq("array-e4m3fn", bits(array(bytes.fromhex("7E3801807FFF"), "f8_e4m3fn")),
         [0x43E00000, 0x3F800000, 0x3B000000, 0x80000000, 0x7FC00000, 0xFFC00000])  # 448 1 2^-9 -0 NaN -NaN
    t.eq("array-e5m2", bits(array(bytes.fromhex("7B7CFC7D01"), "float8_e5m2")),
         [0x47600000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x37800000])  # 57344 inf -inf NaN 2^-16
    t.eq("array-e4m3fnuz", bits(array(bytes.fromhex("7F014080"), "f8_e4m3fnuz", (2, 2))),
         [0x43700000, 0x3A800000, 0x3F800000, 0xFFC00000])  # 240 2^-10 1 NaN
    t.eq("array-e5m2fnuz", bits(array(bytes.fromhex("7F01FF80"), "f8_e5m2fnuz")),
         [0x47600000, 0x37000000, 0xC7600000, 0xFFC00000])  # 57344 2^-17 -57344 NaN
    t.eq("array-f8-type", array(bytes(3), "f8_e5m2").dtype, np.dtype(np.float32))
    t.raises("array-f8-shape", ValueError,
             "array: shape [4] is 4 elements, but the BLOB holds 3 f8_e4m3fn elements",
             array, bytes(3), "f8_e4m3fn", [4])
    # All 256 codes of each against the extension's dequantize_blob at scale 1.
    codes = bytes(range(256))
    for dtype in ("f8_e4m3fn", "f8_e5m2", "f8_e4m3fnuz", "f8_e5m2fnuz"):
        want = one(db, "SELECT dequantize_blob(?, 1.0, 0, ?)", codes, dtype)
        t.eq(f"array-{dtype}-all-codes", array(codes, dtype).tobytes(), want)

    t.eq("array-f16", array(one(db, "SELECT q_f16('[1, 65504, 65520]')"), "f16"),
         np.array([1, 65504, np.inf], np.float16))
    t.eq("array-bf16", array(one(db, "SELECT q_bf16('[0.1, -2]')"), "bf16"),
         np.array([0.10009765625, -2], np.float32))
    t.eq("array-f32-shape", array(m.tobytes(), shape="[2, 3]"), m)
    t.eq("array-scales", array(one(db, "SELECT q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0)")),
         np.array([0.0019607844, 0.047058824], np.float32))

    t.raises("array-ragged", ValueError, "array: f32 BLOBs are whole 4-byte elements, got 6 bytes",
             array, bytes(6))
    t.raises("array-ragged-int16", ValueError, "array: int16 BLOBs are whole 2-byte elements, got 3 bytes",
             array, bytes(3), "int16")
    t.raises("array-shape-mismatch", ValueError,
             "array: shape [3] is 3 elements, but the BLOB holds 2 f32 elements",
             array, bytes(8), "f32", (3,))
    t.raises("array-int4-no-shape", ValueError,
             "array: int4 codes need a shape (a byte holds two codes, so 2 bytes are 4 or 3 codes),"
             " got shape=None",
             array, bytes(2), "int4")
    t.raises("array-int4-length", ValueError,
             "array: shape [3] is 3 int4 codes, which take 2 bytes, got 1",
             array, bytes(1), "int4", [3])
    t.raises("array-int4-high-nibble", ValueError,
             "array: the last byte of an odd count of int4 codes has 0 in its high nibble, got 0x13",
             array, bytes.fromhex("E113"), "int4", [3])
    t.raises("array-dtype", ValueError, f"array: dtype must be one of {DTYPES}, got 'int9'",
             array, bytes(1), "int9")
    t.raises("array-dtype-type", TypeError,
             "array: dtype must be a name such as 'int8' or a numpy dtype, got int",
             array, bytes(1), 8)
    t.raises("array-dtype-none", TypeError,
             "array: dtype must be a name such as 'int8' or a numpy dtype, got NoneType",
             array, bytes(4), None)
    # numpy's own names of the same elements read exactly as the extension's
    # (0.2.0 refused all but the extension's names).
    blob = bytes.fromhex("0000003F000080BF")
    for names, want in (
            (("f32", np.float32, np.dtype("float32"), "float32", "f4", "<f4", "=f4", "single"),
             np.array([0.5, -1], np.float32)),
            (("f16", np.float16, np.dtype("float16"), "float16", "f2", "<f2", "half"),
             np.frombuffer(blob, "<f2")),
            (("bf16", "bfloat16", "BFloat16"), np.array([0, 0.5, 0, -1], np.float32)),
            (("int8", np.int8, "i1", "b", "byte"), np.frombuffer(blob, "i1")),
            (("uint8", np.uint8, "u1", "B", "ubyte"), np.frombuffer(blob, "u1")),
            (("int16", np.int16, "i2", "<i2", "short"), np.frombuffer(blob, "<i2")),
            (("uint16", np.uint16, "u2", "<u2", "ushort"), np.frombuffer(blob, "<u2")),
            (("int32", np.int32, "i4", "<i4", "intc"), np.frombuffer(blob, "<i4"))):
        for name in names:
            t.eq(f"array-numpy-name-{name!r}", array(blob, name), want)
    t.raises("array-dtype-big-endian", ValueError, "array: the extension's BLOBs are little-endian, got '>f4'",
             array, blob, ">f4")
    t.raises("array-dtype-float64", ValueError, f"array: dtype must be one of {DTYPES}, got 'float64'",
             array, blob, np.float64)
    t.raises("array-dtype-f8", ValueError, f"array: dtype must be one of {DTYPES}, got 'f8'",
             array, blob, "f8")
    t.raises("array-blob-type", TypeError, "array: blob must be bytes, got str",
             array, "[1, 2]")
    t.raises("array-shape-text", ValueError,
             "array: shape text must be a JSON array of integers, got '[2,'",
             array, bytes(8), "f32", "[2,")
    t.raises("array-shape-negative", ValueError, "array: shape must be non-negative integers, got (-1, 2)",
             array, bytes(8), "f32", (-1, 2))
    t.raises("array-shape-float", TypeError, "array: shape must be a sequence of integers, got [2.0]",
             array, bytes(8), "f32", [2.0])
    t.raises("array-shape-bool", TypeError, "array: shape must be a sequence of integers, got [True, 2]",
             array, bytes(8), "f32", [True, 2])
