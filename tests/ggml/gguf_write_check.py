#!/usr/bin/python3
"""GGUF files against ggml's own gguf code, both ways (make test-gguf-write).

1. Files written by q_gguf_agg and q_gguf_write load with ggml's
   gguf_init_from_file (libggml-base.so, fetched by `make ggml-lib`) with
   the same tensors (name, ggml type, ne, data bytes) and metadata (key,
   type, value; floats bit for bit) as the SQL readers report and as were
   written, and ggml's own serialization of the header it read
   (gguf_get_meta_data) equals the file's header byte for byte.
2. Files written by ggml's gguf_write_to_file (gguf_init_empty, gguf_set_*,
   gguf_add_tensor; tests/gen_gguf.py's builder) read back in SQL
   (q_tensors_file, q_tensor_metadata_file) exactly as ggml reads them, and
   q_gguf_agg writes them again byte for byte.

Usage: /usr/bin/python3 tests/ggml/gguf_write_check.py --lib LIB --ext EXT
"""
import ctypes as C
import json
import math
import os
import random
import sqlite3
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gen_gguf as G  # noqa: E402  (its --lib argument loads the library)

L = G.L
vp, cp = C.c_void_p, C.c_char_p
for name, rt in [("u8", C.c_uint8), ("i8", C.c_int8), ("u16", C.c_uint16),
                 ("i16", C.c_int16), ("u32", C.c_uint32), ("i32", C.c_int32),
                 ("f32", C.c_float), ("bool", C.c_bool), ("u64", C.c_uint64),
                 ("i64", C.c_int64), ("f64", C.c_double), ("str", cp)]:
    f = getattr(L, "gguf_get_val_" + name)
    f.restype = rt
    f.argtypes = [vp, C.c_int64]
L.gguf_get_arr_n.restype = C.c_size_t
L.gguf_get_arr_n.argtypes = [vp, C.c_int64]
L.gguf_get_arr_data.restype = vp
L.gguf_get_arr_data.argtypes = [vp, C.c_int64]
L.gguf_get_arr_str.restype = cp
L.gguf_get_arr_str.argtypes = [vp, C.c_int64, C.c_size_t]
L.gguf_get_meta_size.restype = C.c_size_t
L.gguf_get_meta_size.argtypes = [vp]
L.gguf_get_meta_data.argtypes = [vp, vp]


class Tensor(C.Structure):
    """The head of struct ggml_tensor: type, buffer, ne[4]."""
    _fields_ = [("type", C.c_int), ("buffer", C.c_void_p),
                ("ne", C.c_int64 * 4)]


EXT = sys.argv[sys.argv.index("--ext") + 1]
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(os.path.abspath(EXT))

# ggml type id by the readers' name.
TYPE_ID = {}
for i in range(43):  # ids this ggml knows (0.25.1's GGML_TYPE_COUNT is 43)
    n = L.ggml_type_name(i)
    if n and n.isascii():
        TYPE_ID[G.RENAME.get(n.decode(), n.decode())] = i

SCALAR_FMT = {G.GU8: "<B", G.GI8: "<b", G.GU16: "<H", G.GI16: "<h",
              G.GU32: "<I", G.GI32: "<i", G.GF32: "<f", G.GBOOL: "<?",
              G.GU64: "<Q", G.GI64: "<q", G.GF64: "<d"}
GETTER = {G.GU8: "u8", G.GI8: "i8", G.GU16: "u16", G.GI16: "i16",
          G.GU32: "u32", G.GI32: "i32", G.GF32: "f32", G.GBOOL: "bool",
          G.GU64: "u64", G.GI64: "i64", G.GF64: "f64", G.GSTR: "str"}
failures = []
headers_compared = 0
checked = 0


def canon(t, v):
    """A value in a form compared exactly: floats by their bits (NaN as
    'nan', whatever its payload: the readers print every NaN as "NaN")."""
    if t in (G.GF32, G.GF64):
        if isinstance(v, str):
            v = {"NaN": math.nan, "Infinity": math.inf,
                 "-Infinity": -math.inf}[v]
        if v != v:
            return "nan"
        return struct.pack(SCALAR_FMT[t], v).hex()
    if t == G.GBOOL:
        return bool(v)
    return v


def ggml_read(path):
    """What ggml reads: tensors (name, type id, ne[4], bytes) and metadata
    (key, type name, canonical value), and its header bytes."""
    meta = C.c_void_p()
    g = L.gguf_init_from_file(path.encode(),
                              G.GgufInitParams(False, C.pointer(meta)))
    if not g:
        return None
    tensors = []
    for i in range(L.gguf_get_n_tensors(g)):
        name = L.gguf_get_tensor_name(g, i).decode()
        t = L.ggml_get_tensor(meta, name.encode())
        head = Tensor.from_address(t)
        tensors.append((name, L.gguf_get_tensor_type(g, i), tuple(head.ne),
                        C.string_at(L.ggml_get_data(t), L.ggml_nbytes(t))))
    kvs = []
    for i in range(L.gguf_get_n_kv(g)):
        key = L.gguf_get_key(g, i).decode()
        kt = L.gguf_get_kv_type(g, i)
        if kt == G.GARR:
            at = L.gguf_get_arr_type(g, i)
            n = L.gguf_get_arr_n(g, i)
            if at == G.GSTR:
                vals = [L.gguf_get_arr_str(g, i, j).decode() for j in range(n)]
            else:
                size = struct.calcsize(SCALAR_FMT[at])
                raw = C.string_at(L.gguf_get_arr_data(g, i), size * n) if n else b""
                vals = [canon(at, x[0]) for x in struct.iter_unpack(SCALAR_FMT[at], raw)]
            kvs.append((key, "array[%s]" % G.TYPE_NAMES[at], vals))
        else:
            v = getattr(L, "gguf_get_val_" + GETTER[kt])(g, i)
            if kt == G.GSTR:
                v = v.decode()
            kvs.append((key, G.TYPE_NAMES[kt], canon(kt, v)))
    size = L.gguf_get_meta_size(g)
    buf = C.create_string_buffer(size)
    L.gguf_get_meta_data(g, buf)
    header = buf.raw[:size]
    L.gguf_free(g)
    L.ggml_free(meta)
    return tensors, kvs, header


def sql_read(path):
    """What q_tensors_file and q_tensor_metadata_file read, in ggml's terms."""
    tensors = []
    for name, dtype, shape, data in db.execute(
            "SELECT name, dtype, shape, data FROM q_tensors_file(?)", (path,)):
        ne = list(reversed(json.loads(shape))) + [1] * 4
        tensors.append((name, TYPE_ID[dtype], tuple(ne[:4]), bytes(data)))
    kvs = []
    for key, tname, value in db.execute(
            "SELECT key, type, value FROM q_tensor_metadata_file(?)", (path,)):
        v = json.loads(value)
        if tname.startswith("array["):
            et = G.TYPE_NAMES.index(tname[6:-1])
            v = [canon(et, x) for x in v]
        else:
            v = canon(G.TYPE_NAMES.index(tname), v)
        kvs.append((key, tname, v))
    return tensors, kvs


def check(label, path):
    global checked
    checked += 1
    got = ggml_read(path)
    if got is None:
        failures.append("%s: ggml's gguf_init_from_file refused it" % label)
        return
    tensors, kvs, header = got
    st, skv = sql_read(path)
    with open(path, "rb") as f:
        blob = f.read()
    if tensors != st:
        failures.append("%s: tensors differ\n  ggml: %r\n  sql:  %r"
                        % (label, [t[:3] for t in tensors], [t[:3] for t in st]))
    if kvs != skv:
        failures.append("%s: metadata differs\n  ggml: %r\n  sql:  %r"
                        % (label, kvs, skv))
    # ggml serializes a tensor with ggml_n_dims dims, dropping trailing ne of
    # 1 (numpy's leading 1s), which the writer keeps as given: the header is
    # ggml's byte for byte when no shape has a leading 1.
    trimmed = any(len(json.loads(r[0])) > 1 and json.loads(r[0])[0] == 1
                  for r in db.execute("SELECT shape FROM q_tensors_file(?)", (path,)))
    if not trimmed and blob[:len(header)] != header:
        failures.append("%s: the header differs from ggml's serialization" % label)
    global headers_compared
    headers_compared += not trimmed


# ---- 1. written here, loaded by ggml ----------------------------------------
rng = random.Random(12)
META = json.dumps({
    "general.architecture": {"type": "string", "value": "llama"},
    "u8": {"type": "uint8", "value": 255}, "i8": {"type": "int8", "value": -128},
    "u16": {"type": "uint16", "value": 65535},
    "i16": {"type": "int16", "value": -32768},
    "u32": {"type": "uint32", "value": 4294967295},
    "i32": {"type": "int32", "value": -2147483648},
    "u64": {"type": "uint64", "value": 18446744073709551615},
    "i64": {"type": "int64", "value": -9223372036854775808},
    "f32": {"type": "float32", "value": 0.1},
    "f32.nan": {"type": "float32", "value": "NaN"},
    "f64": {"type": "float64", "value": 5e-324},
    "f64.inf": {"type": "float64", "value": "-Infinity"},
    "t": {"type": "bool", "value": True}, "f": {"type": "bool", "value": False},
    "s": {"type": "string", "value": "é ✓ \"q\" \\ \n \u0001 😀"},
    "s.empty": {"type": "string", "value": ""},
    "a.u8": {"type": "array[uint8]", "value": [0, 255]},
    "a.i16": {"type": "array[int16]", "value": [-1, 2]},
    "a.u64": {"type": "array[uint64]", "value": [18446744073709551615]},
    "a.f32": {"type": "array[float32]", "value": [0.5, -1.25, 1e-7, "Infinity"]},
    "a.f64": {"type": "array[float64]", "value": [3.141592653589793]},
    "a.bool": {"type": "array[bool]", "value": [True, False]},
    "a.str": {"type": "array[string]", "value": ["<s>", "", "a\"b"]},
    "a.empty": {"type": "array[int32]", "value": []},
}, ensure_ascii=False)

# (name, dtype, numpy shape); block types' last dim a multiple of the block.
CASES = [("f32.2x3", "f32", [2, 3]), ("f16", "f16", [5]),
         ("bf16.3d", "bf16", [4, 3, 2]), ("f64.4d", "f64", [3, 1, 2, 1]),
         ("i8", "int8", [7]), ("i16", "int16", [3]), ("i32", "int32", [2, 2]),
         ("i64", "int64", [1]), ("q4_0", "q4_0", [2, 64]),
         ("q4_1", "q4_1", [32]), ("q5_0", "q5_0", [32]),
         ("q5_1", "q5_1", [3, 32]), ("q8_0", "q8_0", [3, 32]),
         ("q2_K", "q2_K", [256]), ("q3_K", "q3_K", [2, 256]),
         ("q4_K", "q4_K", [2, 256]), ("q5_K", "q5_K", [256]),
         ("q6_K", "q6_K", [1, 2, 256]), ("iq4_nl", "iq4_nl", [32]),
         ("iq4_xs", "iq4_xs", [256]), ("tq1_0", "tq1_0", [256]),
         ("tq2_0", "tq2_0", [2, 256]), ("mxfp4", "mxfp4", [3, 32]),
         ("nvfp4", "nvfp4", [2, 64]), ("q1_0", "q1_0", [128]),
         ("q2_0", "q2_0", [3, 64])]


def nbytes(dtype, shape):
    block, size = BLOCKS[dtype]
    n = 1
    for d in shape:
        n *= d
    return n // block * size


BLOCKS = {"f32": (1, 4), "f16": (1, 2), "bf16": (1, 2), "f64": (1, 8),
          "int8": (1, 1), "int16": (1, 2), "int32": (1, 4), "int64": (1, 8),
          "q4_0": (32, 18), "q4_1": (32, 20), "q5_0": (32, 22),
          "q5_1": (32, 24), "q8_0": (32, 34), "q2_K": (256, 84),
          "q3_K": (256, 110), "q4_K": (256, 144), "q5_K": (256, 176),
          "q6_K": (256, 210), "iq4_nl": (32, 18), "iq4_xs": (256, 136),
          "tq1_0": (256, 54), "tq2_0": (256, 66), "mxfp4": (32, 17),
          "nvfp4": (64, 36), "q1_0": (128, 18), "q2_0": (64, 18)}

tmp = tempfile.mkdtemp(prefix="gguf-write-check-")
db.execute("CREATE TEMP TABLE rows(k INTEGER PRIMARY KEY, name, data, dtype, shape)")
k = 0
for name, dtype, shape in CASES:
    data = bytes(rng.randrange(256) for _ in range(nbytes(dtype, shape)))
    # The f32 tensor comes in two rows (the chunk rule).
    if name == "f32.2x3":
        db.execute("INSERT INTO rows VALUES (?, ?, ?, ?, ?)",
                   (k, name, data[:12], dtype, json.dumps(shape)))
        k += 1
        data = data[12:]
    db.execute("INSERT INTO rows VALUES (?, ?, ?, ?, ?)",
               (k, name, data, dtype, json.dumps(shape)))
    k += 1

written = 0
db.execute("CREATE TEMP TABLE all_rows AS SELECT * FROM rows")
for label, meta in [("every type", META),
                    ("alignment 64", json.dumps({"general.alignment": {"type": "uint32", "value": 64}})),
                    ("alignment 1", json.dumps({"general.alignment": {"type": "uint32", "value": 1}, "x": {"type": "string", "value": "y"}})),
                    ("no metadata", None)]:
    path = os.path.join(tmp, "agg.gguf")
    (blob,) = db.execute("SELECT q_gguf_agg(name, data, dtype, shape, ?) FROM (SELECT * FROM rows ORDER BY k)",
                         (meta,)).fetchone()
    with open(path, "wb") as f:
        f.write(blob)
    check("q_gguf_agg, " + label, path)
    # The input itself, as ggml has it.
    tensors, kvs, _ = ggml_read(path)
    checked += 1
    want = []
    for name, dtype, shape in CASES:
        data = b"".join(bytes(r[0]) for r in db.execute(
            "SELECT data FROM rows WHERE name = ? ORDER BY k", (name,)))
        want.append((name, TYPE_ID[dtype], tuple(list(reversed(shape)) + [1] * (4 - len(shape))), data))
    if tensors != want:
        failures.append("q_gguf_agg, %s: ggml's tensors are not the input" % label)
    fpath = os.path.join(tmp, "write.gguf")
    with db:
        db.execute("INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) "
                   "SELECT ?, name, data, dtype, shape, ? FROM (SELECT * FROM rows ORDER BY k)",
                   (fpath, meta))
    checked += 1
    with open(fpath, "rb") as f:
        if f.read() != blob:
            failures.append("q_gguf_write, %s: not the bytes of q_gguf_agg" % label)
    check("q_gguf_write, " + label, fpath)
    written += 2
# Again without the tensors whose shape starts with 1, so that the header is
# compared with ggml's serialization too.
db.execute("DELETE FROM rows WHERE json_extract(shape, '$[0]') = 1 AND json_array_length(shape) > 1")
path = os.path.join(tmp, "agg.gguf")
(blob,) = db.execute("SELECT q_gguf_agg(name, data, dtype, shape, ?) FROM (SELECT * FROM rows ORDER BY k)",
                     (META,)).fetchone()
with open(path, "wb") as f:
    f.write(blob)
check("q_gguf_agg, no leading 1s", path)
written += 1

# ---- 2. written by ggml, read here ------------------------------------------
G.OUT = tmp
G.main()   # basic.gguf (every metadata and many tensor types), align64, empty
G.write("blocks4d.gguf", [("u32", "general.alignment", 256),
                          ("arr", "a", G.GI64, C.c_int64, [-5, 7])],
        [("w", 12, [256, 2, 3, 2]), ("v", 8, [32, 1, 1, 1]), ("s", 0, [1])])
read = 0
for f in ["basic.gguf", "align64.gguf", "empty.gguf", "blocks4d.gguf"]:
    path = os.path.join(tmp, f)
    check("ggml's " + f, path)
    read += 1
    if f == "empty.gguf":
        continue  # no tensors: no rows to write it again from
    (blob,) = db.execute(
        "SELECT q_gguf_agg(name, data, dtype, shape, (SELECT json_group_object(key, "
        "json_object('type', type, 'value', json(value))) FROM q_tensor_metadata_file(?1))) "
        "FROM q_tensors_file(?1)", (path,)).fetchone()
    checked += 1
    with open(path, "rb") as fh:
        if fh.read() != blob:
            failures.append("ggml's %s written again: the bytes differ" % f)

for name in os.listdir(tmp):
    os.unlink(os.path.join(tmp, name))
os.rmdir(tmp)
for f in failures:
    print("FAILED " + f)
print("gguf_write_check: %d files written by sqlite-quant loaded by ggml, "
      "%d files written by ggml read back, %d headers equal to ggml's "
      "serialization, %d failures"
      % (written, read, headers_compared, len(failures)))
# The CI's summary line: each comparison above is one test.
print("gguf-write: %d passed, %d failed" % (checked - len(failures), len(failures)))
sys.exit(1 if failures else 0)
