#!/usr/bin/python3
"""Every GGUF file of a registry's exports table, loaded by ggml itself.

For each exports row of format 'gguf' (examples/export_gguf.sh writes them)
this loads the file with ggml's own reader, gguf_init_from_file of
libggml-base.so (tests/ggml/fetch_ggml.sh puts the pinned build in
build/ggml/), through ctypes, and checks it against the registry, not
against the SQL that wrote it:

  recorded   the file's size and SHA-256 are the exports row's;
  loads      ggml reads the file, tensor data included;
  tensors    ggml's tensors are, in order, what the policy's choices say
             (docs/FORMATS.md#the-registrys-gguf-export): name, ggml type,
             ne and bytes, one check per tensor of the file;
  metadata   ggml's keys, types and values are the model's metadata, the
             policy's and sqlite-quant's keys and the per-tensor keys;
  values     each model tensor dequantized as a consumer of the file would,
             equals, bit for bit, what the registry's own row dequantizes
             to: ggml types and f16/bf16 through ggml's to_float (its type
             traits) against q_ggml_dequantize / q_f32 of the stored data;
             integer codes with numpy, from the file's codes, scales, zero
             points and keys alone, against the extension's dequantize
             function of the row (one check per model tensor).

Prints one line per file and "check_gguf: N passed, N failed" last; exits
1 on any failure.  When the library is missing it says so and exits 77
(not run), which is never a pass.

Usage: /usr/bin/python3 examples/check_gguf.py --db DB --lib LIBGGML [--ext EXT]
  DB       the registry (build/demo.db); exports paths are relative to the
           working directory, as export_gguf.sh records them
  LIBGGML  libggml-base.so (build/ggml/libggml-base.so)
  EXT      the extension (dist/quant.so, the default)
"""
import argparse
import ctypes as C
import hashlib
import json
import math
import os
import sqlite3
import struct
import sys

import numpy as np

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--db", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--ext", default="dist/quant.so")
args = ap.parse_args()

if not os.path.isfile(args.lib):
    print("check_gguf: not run: ggml's library %s is missing; fetch it with "
          "`sh tests/ggml/fetch_ggml.sh %s` (npm and the network, once)"
          % (args.lib, args.lib))
    sys.exit(77)
for what, path in (("registry", args.db), ("extension", args.ext)):
    if not os.path.isfile(path):
        sys.exit("check_gguf: no %s at '%s'" % (what, path))

# ---- ggml, through ctypes ---------------------------------------------------
L = C.CDLL(os.path.abspath(args.lib))
vp, cp = C.c_void_p, C.c_char_p


class GgufInitParams(C.Structure):
    _fields_ = [("no_alloc", C.c_bool), ("ctx", C.POINTER(C.c_void_p))]


class TensorHead(C.Structure):
    """The head of struct ggml_tensor: type, buffer, ne[4]."""
    _fields_ = [("type", C.c_int), ("buffer", C.c_void_p), ("ne", C.c_int64 * 4)]


TO_FLOAT = C.CFUNCTYPE(None, vp, C.POINTER(C.c_float), C.c_int64)


class TypeTraits(C.Structure):
    """struct ggml_type_traits (ggml.h)."""
    _fields_ = [("type_name", cp), ("blck_size", C.c_int64),
                ("blck_size_interleave", C.c_int64), ("type_size", C.c_size_t),
                ("is_quantized", C.c_bool), ("to_float", vp),
                ("from_float_ref", vp)]


def fn(name, restype, *argtypes):
    f = getattr(L, name)
    f.restype, f.argtypes = restype, list(argtypes)


fn("gguf_init_from_file", vp, cp, GgufInitParams)
fn("gguf_free", None, vp)
fn("ggml_free", None, vp)
fn("gguf_get_n_tensors", C.c_int64, vp)
fn("gguf_get_tensor_name", cp, vp, C.c_int64)
fn("gguf_get_tensor_type", C.c_int, vp, C.c_int64)
fn("ggml_get_tensor", vp, vp, cp)
fn("ggml_get_data", vp, vp)
fn("ggml_nbytes", C.c_size_t, vp)
fn("ggml_nelements", C.c_int64, vp)
fn("ggml_type_name", cp, C.c_int)
fn("ggml_get_type_traits", C.POINTER(TypeTraits), C.c_int)
fn("gguf_get_n_kv", C.c_int64, vp)
fn("gguf_get_key", cp, vp, C.c_int64)
fn("gguf_get_kv_type", C.c_int, vp, C.c_int64)
fn("gguf_get_arr_type", C.c_int, vp, C.c_int64)
fn("gguf_get_arr_n", C.c_size_t, vp, C.c_int64)
fn("gguf_get_arr_data", vp, vp, C.c_int64)
fn("gguf_get_arr_str", cp, vp, C.c_int64, C.c_size_t)
fn("gguf_get_val_str", cp, vp, C.c_int64)
fn("gguf_get_val_data", vp, vp, C.c_int64)

# enum gguf_type, and the struct format of each fixed-size value type.
GGUF_TYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
              "bool", "string", "array", "uint64", "int64", "float64"]
FMT = {"uint8": "<B", "int8": "<b", "uint16": "<H", "int16": "<h",
       "uint32": "<I", "int32": "<i", "float32": "<f", "bool": "<?",
       "uint64": "<Q", "int64": "<q", "float64": "<d"}

# ggml type ids by the registry's names (ggml's own, but i8/i16/i32 spelled
# int8/int16/int32 as the extension spells them).
TYPE_ID = {}
for i in range(43):  # GGML_TYPE_COUNT of the pinned build; past it, no entry
    n = L.ggml_type_name(i)
    if n and n.isascii():
        TYPE_ID[{"i8": "int8", "i16": "int16", "i32": "int32"}
                .get(n.decode(), n.decode())] = i


def canon(type_name, v):
    """A metadata value compared exactly: floats by their bits (the readers'
    "NaN" and "Infinity" strings as the floats they stand for)."""
    if type_name in ("float32", "float64"):
        if isinstance(v, str):
            v = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
        return "nan" if v != v else struct.pack(FMT[type_name], v).hex()
    return v


def ggml_read(path):
    """What ggml reads: [(name, type id, ne, bytes)], [(key, type, value)],
    and ggml's float32 of each tensor its type traits can convert."""
    ctx = C.c_void_p()
    g = L.gguf_init_from_file(path.encode(), GgufInitParams(False, C.pointer(ctx)))
    if not g:
        return None
    tensors, floats = [], {}
    for i in range(L.gguf_get_n_tensors(g)):
        name = L.gguf_get_tensor_name(g, i).decode()
        t = L.ggml_get_tensor(ctx, name.encode())
        head = TensorHead.from_address(t)
        ttype = L.gguf_get_tensor_type(g, i)
        data = L.ggml_get_data(t)
        tensors.append((name, ttype, tuple(head.ne),
                        C.string_at(data, L.ggml_nbytes(t))))
        to_float = L.ggml_get_type_traits(ttype).contents.to_float
        if to_float:
            n = L.ggml_nelements(t)
            out = (C.c_float * n)()
            TO_FLOAT(to_float)(data, out, n)
            floats[name] = bytes(out)
    kvs = []
    for i in range(L.gguf_get_n_kv(g)):
        key = L.gguf_get_key(g, i).decode()
        kt = GGUF_TYPES[L.gguf_get_kv_type(g, i)]
        if kt == "array":
            at = GGUF_TYPES[L.gguf_get_arr_type(g, i)]
            n = L.gguf_get_arr_n(g, i)
            if at == "string":
                v = [L.gguf_get_arr_str(g, i, j).decode() for j in range(n)]
            else:
                size = struct.calcsize(FMT[at])
                raw = C.string_at(L.gguf_get_arr_data(g, i), size * n) if n else b""
                v = [canon(at, x) for (x,) in struct.iter_unpack(FMT[at], raw)]
            kvs.append((key, "array[%s]" % at, v))
        elif kt == "string":
            kvs.append((key, kt, L.gguf_get_val_str(g, i).decode()))
        else:
            raw = C.string_at(L.gguf_get_val_data(g, i), struct.calcsize(FMT[kt]))
            kvs.append((key, kt, canon(kt, struct.unpack(FMT[kt], raw)[0])))
    L.gguf_free(g)
    L.ggml_free(ctx)
    return tensors, kvs, floats


# ---- the registry -------------------------------------------------------------
db = sqlite3.connect(args.db)
db.enable_load_extension(True)
db.load_extension(os.path.abspath(args.ext))
db.row_factory = sqlite3.Row

GGUF_VALUE_TYPES = {"uint8", "int8", "uint16", "int16", "uint32", "int32",
                    "uint64", "int64", "float32", "float64", "bool", "string"}
CODE_TYPE = {"int8": "int8", "uint8": "int8", "int4": "int8", "uint4": "int8",
             "int16": "int16", "uint16": "int16", "int32": "int32"}


def ne(shape):
    return tuple(reversed(shape)) + (1,) * (4 - len(shape))


def expected(policy_id, model_id):
    """What the file must hold, from the registry's rows: tensors
    [(name, type id, ne, bytes)], keys [(key, type, value)], and per model
    tensor the registry's float32 values (its rows dequantized, or its
    float data widened)."""
    rows = db.execute("""
        SELECT t.tensor_id, t.name, t.shape, t.dtype AS stored, t.data,
               q.dtype, q.scheme, q.granularity, q.view_shape, q.axis,
               q.block_size, q.scale, q.zero_point, q.scales, q.zero_points,
               q.codes, coalesce(f.x, q_f32(t.data, t.dtype)) AS values_f32
        FROM tensors t
        LEFT JOIN policy_choices c ON c.tensor_id = t.tensor_id AND c.policy_id = ?
        LEFT JOIN quantizations q ON q.quantization_id = c.quantization_id
        LEFT JOIN quantization_floats f ON f.quantization_id = q.quantization_id
        WHERE t.model_id = ?
        ORDER BY min(t.tensor_id) OVER (PARTITION BY t.name), t.chunk""",
                      (policy_id, model_id)).fetchall()
    tensors, keys, values = [], [], {}
    for r in db.execute("SELECT key, type, value FROM model_metadata "
                        "WHERE model_id = ? ORDER BY rowid", (model_id,)):
        elem = r["type"][6:-1] if r["type"].startswith("array[") else r["type"]
        if elem in GGUF_VALUE_TYPES:
            v = json.loads(r["value"])
            v = [canon(elem, x) for x in v] if elem != r["type"] else canon(elem, v)
            keys.append((r["key"], r["type"], v))
    pol = db.execute("SELECT name, description FROM policies WHERE policy_id = ?",
                     (policy_id,)).fetchone()
    mod = db.execute("SELECT name, version FROM models WHERE model_id = ?",
                     (model_id,)).fetchone()
    version = db.execute("SELECT q_version()").fetchone()[0]
    for k, v in (("version", version), ("policy", pol["name"]),
                 ("policy.description", pol["description"]),
                 ("model", mod["name"]), ("model.version", mod["version"])):
        keys.append(("sqlite_quant." + k, "string", v))
    tensor_keys = []
    for r in rows:
        shape = json.loads(r["shape"])
        g = r["granularity"]
        value = bytes(r["values_f32"])
        prefix = "sqlite_quant.tensor.%s." % r["name"]
        if g is None and tensors and tensors[-1][0] == r["name"]:
            # The next chunk of a float tensor stored in chunks: one tensor.
            tensors[-1] = tensors[-1][:3] + (tensors[-1][3] + bytes(r["data"]),)
            values[r["name"]] += value
            continue
        values[r["name"]] = value
        if g is None:
            tensors.append((r["name"], TYPE_ID[r["stored"]], ne(shape), bytes(r["data"])))
        elif g == "ggml":
            vs = json.loads(r["view_shape"] or r["shape"])
            tensors.append((r["name"], TYPE_ID[r["dtype"]], ne(vs), bytes(r["codes"])))
            if r["view_shape"] is not None:
                tensor_keys.append((prefix + "shape", "array[int64]", shape))
        else:
            codes = bytes(r["codes"])
            vs = json.loads(r["view_shape"] or r["shape"])
            ax = None if r["axis"] is None else r["axis"] % len(vs)
            cshape = [len(codes)] if r["dtype"] in ("int4", "uint4") else shape
            if g == "tensor":
                grid = [1]
                scales = struct.pack("<f", r["scale"])
                zps = struct.pack("<i", r["zero_point"])
            else:
                if g == "channel":
                    grid = [vs[ax]]
                else:
                    grid = list(vs)
                    grid[ax] = -(-vs[ax] // r["block_size"])
                scales, zps = bytes(r["scales"]), bytes(r["zero_points"])
            tensors += [(r["name"], TYPE_ID[CODE_TYPE[r["dtype"]]], ne(cshape), codes),
                        (r["name"] + ".scales", TYPE_ID["f32"], ne(grid), scales),
                        (r["name"] + ".zero_points", TYPE_ID["int32"], ne(grid), zps)]
            tensor_keys += [(prefix + "dtype", "string", r["dtype"]),
                            (prefix + "scheme", "string", r["scheme"]),
                            (prefix + "granularity", "string", g),
                            (prefix + "shape", "array[int64]", shape)]
            if r["view_shape"] is not None:
                tensor_keys.append((prefix + "view_shape", "array[int64]", vs))
            if ax is not None:
                tensor_keys.append((prefix + "axis", "int32", ax))
            if g == "block":
                tensor_keys.append((prefix + "block_size", "uint32", r["block_size"]))
    return tensors, keys + tensor_keys, values


# ---- a consumer's dequantization of integer codes, from the file alone ---------
def dequantize_from_file(name, file_tensors, kv):
    """The float32 bytes of integer-coded tensor `name`, from its codes,
    '.scales' and '.zero_points' tensors and its sqlite_quant.tensor keys."""
    key = lambda f: kv.get("sqlite_quant.tensor.%s.%s" % (name, f))
    dtype, g = key("dtype"), key("granularity")
    shape = key("shape")
    vs = key("view_shape") or shape
    numel = int(np.prod(vs))
    raw = file_tensors[name]
    if dtype in ("int4", "uint4"):
        b = np.frombuffer(raw, dtype=np.uint8)
        q = np.empty(2 * len(b), dtype=np.int64)
        q[0::2], q[1::2] = b & 0xF, b >> 4
        q = q[:numel]
        if dtype == "int4":
            q = np.where(q >= 8, q - 16, q)
    else:
        q = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).astype(np.int64)
    s = np.frombuffer(file_tensors[name + ".scales"], dtype="<f4")
    z = np.frombuffer(file_tensors[name + ".zero_points"], dtype="<i4").astype(np.int64)
    if g != "tensor":
        ax = key("axis")
        outer, n, inner = int(np.prod(vs[:ax])), vs[ax], int(np.prod(vs[ax + 1:]))
        q = q.reshape(outer, n, inner)
        if g == "channel":
            s, z = s.reshape(1, n, 1), z.reshape(1, n, 1)
        else:
            bsz = key("block_size")
            nb = -(-n // bsz)
            s = np.repeat(s.reshape(outer, nb, inner), bsz, axis=1)[:, :n, :]
            z = np.repeat(z.reshape(outer, nb, inner), bsz, axis=1)[:, :n, :]
    # x = (float)(q - zp) * scale: one float32 rounding of the product.
    x = (q - z).astype(np.float32) * s.astype(np.float32)
    return x.astype("<f4").tobytes()


# ---- the checks ---------------------------------------------------------------
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("  FAILED " + what)
    return ok


exports = db.execute("""
    SELECT e.export_id, e.policy_id, e.model_id, e.path, e.bytes, e.sha256,
           p.name AS policy, m.name AS model
    FROM exports e JOIN policies p USING (policy_id) JOIN models m USING (model_id)
    WHERE e.format = 'gguf' ORDER BY e.export_id""").fetchall()
if not exports:
    check(False, "%s has no GGUF exports (run examples/export_gguf.sh first)" % args.db)

for e in exports:
    path = e["path"]
    before = failed
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as err:
        check(False, "%s: %s" % (path, err.strerror))
        continue
    check(len(blob) == e["bytes"] and hashlib.sha256(blob).hexdigest() == e["sha256"],
          "%s: size %d and sha256 differ from the exports row's" % (path, len(blob)))
    got = ggml_read(path)
    if not check(got is not None, "%s: ggml's gguf_init_from_file refused it" % path):
        continue
    tensors, kvs, floats = got
    want, want_keys, values = expected(e["policy_id"], e["model_id"])
    for i in range(max(len(tensors), len(want))):
        g = tensors[i] if i < len(tensors) else None
        w = want[i] if i < len(want) else None
        if g and w and g[:3] == w[:3]:
            at = next((j for j, (a, b) in enumerate(zip(g[3], w[3])) if a != b),
                      min(len(g[3]), len(w[3])))
            check(g[3] == w[3], "%s: tensor %d '%s': its bytes differ from the "
                  "registry's from byte %d" % (path, i, g[0], at))
        else:
            check(g == w, "%s: tensor %d is %r, expected %r"
                  % (path, i, g and g[:3], w and w[:3]))
    check(kvs == want_keys, "%s: metadata differs:\n    ggml: %r\n    want: %r"
          % (path, kvs, want_keys))
    kv = {k: v for k, _, v in kvs}
    file_tensors = {t[0]: t[3] for t in tensors}
    file_types = {t[0]: L.ggml_type_name(t[1]).decode() for t in tensors}
    kinds = {}
    for name, value in values.items():
        if name not in file_tensors:
            check(False, "%s: tensor '%s' is missing" % (path, name))
            continue
        if ("sqlite_quant.tensor.%s.dtype" % name) in kv:
            kind = "%s %s" % (kv["sqlite_quant.tensor.%s.dtype" % name],
                              kv["sqlite_quant.tensor.%s.granularity" % name])
            got_f32 = dequantize_from_file(name, file_tensors, kv)
        elif file_types[name] == "f32":   # no conversion: the bytes are the values
            kind, got_f32 = "f32", file_tensors[name]
        else:
            kind, got_f32 = file_types[name], floats.get(name)
        kinds[kind] = kinds.get(kind, 0) + 1
        check(got_f32 == value, "%s: tensor '%s' (%s) dequantizes to other values "
              "than the registry's" % (path, name, kind))
    print("check_gguf: %s: %d bytes, %d tensors (%s), %d keys: %s"
          % (path, len(blob), len(values),
             ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())),
             len(kvs), "ok" if failed == before else "FAILED"))

print("check_gguf: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
