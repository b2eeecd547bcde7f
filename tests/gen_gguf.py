#!/usr/bin/python3
"""Writes the GGUF test files of tests/data/gguf/ with ggml's own writer.

The files are made by libggml-base.so (`make ggml-lib` fetches it into
build/ggml/), called through ctypes: gguf_init_empty, gguf_set_val_* and
gguf_set_arr_*, ggml tensors added with gguf_add_tensor, gguf_write_to_file.
Each file is then read back with ggml's gguf_init_from_file, and what ggml
reads (per tensor: name, type name, ne, absolute offset, size) is written to
<file>.expected, one tensor a line, shape already in numpy's order:

    name<TAB>dtype<TAB>[d0,d1,...]<TAB>offset<TAB>nbytes

and its metadata keys with their types to <file>.meta (key<TAB>type).

tests/gguf_core_test.c requires the reader to produce exactly these entries.
Tensor bytes are a fixed pattern: byte j of tensor i is (i * 31 + j * 7) % 251.

Usage: python3 tests/gen_gguf.py [--lib path/to/libggml-base.so]
"""
import ctypes as C
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "gguf")

lib_path = os.path.join(HERE, "..", "build", "ggml", "libggml-base.so")
if "--lib" in sys.argv:
    lib_path = sys.argv[sys.argv.index("--lib") + 1]
L = C.CDLL(lib_path)


class InitParams(C.Structure):
    _fields_ = [("mem_size", C.c_size_t), ("mem_buffer", C.c_void_p),
                ("no_alloc", C.c_bool)]


class GgufInitParams(C.Structure):
    _fields_ = [("no_alloc", C.c_bool), ("ctx", C.POINTER(C.c_void_p))]


vp, cp = C.c_void_p, C.c_char_p
L.ggml_init.restype = vp
L.ggml_init.argtypes = [InitParams]
L.ggml_free.argtypes = [vp]
L.ggml_new_tensor.restype = vp
L.ggml_new_tensor.argtypes = [vp, C.c_int, C.c_int, C.POINTER(C.c_int64)]
L.ggml_set_name.restype = vp
L.ggml_set_name.argtypes = [vp, cp]
L.ggml_get_data.restype = vp
L.ggml_get_data.argtypes = [vp]
L.ggml_nbytes.restype = C.c_size_t
L.ggml_nbytes.argtypes = [vp]
L.ggml_type_name.restype = cp
L.ggml_type_name.argtypes = [C.c_int]
L.gguf_init_empty.restype = vp
L.gguf_free.argtypes = [vp]
L.gguf_add_tensor.argtypes = [vp, vp]
L.gguf_write_to_file.restype = C.c_bool
L.gguf_write_to_file.argtypes = [vp, cp, C.c_bool]
for t, ct in [("u8", C.c_uint8), ("i8", C.c_int8), ("u16", C.c_uint16),
              ("i16", C.c_int16), ("u32", C.c_uint32), ("i32", C.c_int32),
              ("f32", C.c_float), ("bool", C.c_bool), ("u64", C.c_uint64),
              ("i64", C.c_int64), ("f64", C.c_double), ("str", cp)]:
    getattr(L, "gguf_set_val_" + t).argtypes = [vp, cp, ct]
L.gguf_set_arr_data.argtypes = [vp, cp, C.c_int, vp, C.c_size_t]
L.gguf_set_arr_str.argtypes = [vp, cp, C.POINTER(cp), C.c_size_t]
L.gguf_init_from_file.restype = vp
L.gguf_init_from_file.argtypes = [cp, GgufInitParams]
L.gguf_get_n_tensors.restype = C.c_int64
L.gguf_get_n_tensors.argtypes = [vp]
L.gguf_get_n_kv.restype = C.c_int64
L.gguf_get_n_kv.argtypes = [vp]
L.gguf_get_data_offset.restype = C.c_size_t
L.gguf_get_data_offset.argtypes = [vp]
L.gguf_get_tensor_name.restype = cp
L.gguf_get_tensor_name.argtypes = [vp, C.c_int64]
L.gguf_get_tensor_offset.restype = C.c_size_t
L.gguf_get_tensor_offset.argtypes = [vp, C.c_int64]
L.gguf_get_tensor_size.restype = C.c_size_t
L.gguf_get_tensor_size.argtypes = [vp, C.c_int64]
L.gguf_get_tensor_type.restype = C.c_int
L.gguf_get_tensor_type.argtypes = [vp, C.c_int64]
L.ggml_get_tensor.restype = vp
L.ggml_get_tensor.argtypes = [vp, cp]
L.ggml_n_dims.restype = C.c_int
L.ggml_n_dims.argtypes = [vp]

# GGUF value types (enum gguf_type).
GU8, GI8, GU16, GI16, GU32, GI32, GF32, GBOOL, GSTR, GARR, GU64, GI64, GF64 = \
    range(13)

TYPE_NAMES = ["uint8", "int8", "uint16", "int16", "uint32", "int32",
              "float32", "bool", "string", "array", "uint64", "int64",
              "float64"]
L.gguf_get_key.restype = cp
L.gguf_get_key.argtypes = [vp, C.c_int64]
L.gguf_get_kv_type.restype = C.c_int
L.gguf_get_kv_type.argtypes = [vp, C.c_int64]
L.gguf_get_arr_type.restype = C.c_int
L.gguf_get_arr_type.argtypes = [vp, C.c_int64]

# ggml type names as the reader reports them (docs/FORMATS.md#gguf).
RENAME = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}


def write(fname, kvs, tensors):
    """kvs: (setter, key, value) or ("arr", key, gguf_type, ctype, values) or
    ("arrstr", key, [str]); tensors: (name, ggml type id, ne list)."""
    ctx = L.ggml_init(InitParams(16 << 20, None, False))
    g = L.gguf_init_empty()
    keep = []
    for kv in kvs:
        if kv[0] == "arr":
            _, key, gt, ct, vals = kv
            arr = (ct * max(len(vals), 1))(*vals)
            keep.append(arr)
            L.gguf_set_arr_data(g, key.encode(), gt, C.cast(arr, vp), len(vals))
        elif kv[0] == "arrstr":
            _, key, vals = kv
            arr = (cp * max(len(vals), 1))(*[v.encode() for v in vals])
            keep.append(arr)
            L.gguf_set_arr_str(g, key.encode(), arr, len(vals))
        else:
            setter, key, val = kv
            if setter == "str":
                val = val.encode()
            getattr(L, "gguf_set_val_" + setter)(g, key.encode(), val)
    if any(kv[1] == "general.alignment" for kv in kvs):
        # ggml's writer pads with the alignment its context was read with,
        # not the general.alignment set since: read the metadata back first.
        tmp = os.path.join(OUT, fname + ".tmp")
        assert L.gguf_write_to_file(g, tmp.encode(), True)
        L.gguf_free(g)
        g = L.gguf_init_from_file(tmp.encode(), GgufInitParams(True, None))
        os.unlink(tmp)
        assert g
    for i, (name, gtype, ne) in enumerate(tensors):
        t = L.ggml_new_tensor(ctx, gtype, len(ne), (C.c_int64 * 4)(*ne))
        L.ggml_set_name(t, name.encode())
        nb = L.ggml_nbytes(t)
        C.memmove(L.ggml_get_data(t),
                  bytes((i * 31 + j * 7) % 251 for j in range(nb)), nb)
        L.gguf_add_tensor(g, t)
    path = os.path.join(OUT, fname)
    assert L.gguf_write_to_file(g, path.encode(), False), fname
    L.gguf_free(g)
    L.ggml_free(ctx)
    validate(path, tensors)


def validate(path, tensors):
    """Reads the file back with ggml; writes what it read to .expected."""
    meta = C.c_void_p()
    g = L.gguf_init_from_file(path.encode(), GgufInitParams(False, C.pointer(meta)))
    assert g, path
    n = L.gguf_get_n_tensors(g)
    assert n == len(tensors)
    base = L.gguf_get_data_offset(g)
    lines = []
    with open(path, "rb") as f:
        blob = f.read()
    for i in range(n):
        name = L.gguf_get_tensor_name(g, i).decode()
        gt = L.gguf_get_tensor_type(g, i)
        dtype = L.ggml_type_name(gt).decode()
        dtype = RENAME.get(dtype, dtype)
        ne = tensors[i][2]
        assert name == tensors[i][0] and gt == tensors[i][1]
        off = base + L.gguf_get_tensor_offset(g, i)
        size = L.gguf_get_tensor_size(g, i)
        # ggml's loaded tensor holds the bytes at [off, off + size).
        t = L.ggml_get_tensor(meta, name.encode())
        assert C.string_at(L.ggml_get_data(t), size) == blob[off:off + size]
        assert blob[off:off + size] == bytes((i * 31 + j * 7) % 251
                                             for j in range(size))
        shape = "[" + ",".join(str(d) for d in reversed(ne)) + "]"
        lines.append("%s\t%s\t%s\t%d\t%d\n" % (name, dtype, shape, off, size))
    # The metadata as ggml reads it: key and type name, in file order.
    kv_lines = []
    for i in range(L.gguf_get_n_kv(g)):
        key = L.gguf_get_key(g, i).decode()
        kt = L.gguf_get_kv_type(g, i)
        tname = TYPE_NAMES[kt]
        if kt == GARR:
            tname = "array[%s]" % TYPE_NAMES[L.gguf_get_arr_type(g, i)]
        kv_lines.append("%s\t%s\n" % (key, tname))
    L.gguf_free(g)
    L.ggml_free(meta)
    with open(path + ".expected", "w") as f:
        f.writelines(lines)
    with open(path + ".meta", "w") as f:
        f.writelines(kv_lines)


def main():
    os.makedirs(OUT, exist_ok=True)
    kvs = [
        ("str", "general.architecture", "llama"),
        ("u8", "t.u8", 255), ("i8", "t.i8", -128), ("u16", "t.u16", 65535),
        ("i16", "t.i16", -32768), ("u32", "t.u32", 4294967295),
        ("i32", "t.i32", -2147483648), ("f32", "t.f32", 0.1),
        ("bool", "t.bool", True), ("bool", "t.false", False),
        ("str", "t.str", 'quote " backslash \\ newline \n tab \t ctl \x01 é ✓'),
        ("u64", "t.u64", 18446744073709551615),
        ("i64", "t.i64", -9223372036854775808), ("f64", "t.f64", 0.1),
        ("f32", "t.f32_big", 1e20), ("f32", "t.f32_whole", 50.0),
        ("f64", "t.f64_tiny", 5e-324), ("f32", "t.f32_nan", math.nan),
        ("f64", "t.f64_neginf", -math.inf), ("f64", "t.f64_big", 1e20),
        ("f64", "t.f64_whole", 50.0), ("f64", "t.f64_small", -1.5e-7),
        ("f64", "t.f64_pi", math.pi),
        ("arr", "t.arr_i32", GI32, C.c_int32, [1, -2, 3]),
        ("arr", "t.arr_f32", GF32, C.c_float, [0.5, -1.25, 1e-7]),
        ("arr", "t.arr_u8", GU8, C.c_uint8, []),
        ("arr", "t.arr_bool", GBOOL, C.c_bool, [True, False]),
        ("arrstr", "tokenizer.ggml.tokens", ["<s>", "a\"b", ""]),
    ]
    tensors = [
        ("f32.2x3", 0, [3, 2]),
        ("f16.vec", 1, [5]),
        ("bf16.3d", 30, [2, 3, 4]),
        ("f64.4d", 28, [1, 2, 1, 3]),
        ("i8", 24, [7]), ("i16", 25, [3]), ("i32", 26, [2, 2]),
        ("i64", 27, [1]),
        ("q4_0", 2, [64, 2]), ("q4_1", 3, [32]), ("q5_0", 6, [32]),
        ("q5_1", 7, [32]), ("q8_0", 8, [32, 3]),
        ("q2_K", 10, [256]), ("q3_K", 11, [256]), ("q4_K", 12, [256, 2]),
        ("q5_K", 13, [256]), ("q6_K", 14, [256]),
        ("iq4_xs", 23, [256]), ("q8_K", 15, [256]), ("iq4_nl", 20, [32]),
    ]
    write("basic.gguf", kvs, tensors)
    write("align64.gguf", [("u32", "general.alignment", 64),
                           ("str", "general.name", "aligned")],
          [("a", 0, [3]), ("b", 1, [5]), ("c", 8, [32])])
    write("empty.gguf", [], [])
    # Every block type the reader learned after basic.gguf: a row of each
    # (the fuzz_models seed gguf-blocks starts from this file).
    write("blocks.gguf", [("str", "general.architecture", "llama")],
          [("iq2_xxs", 16, [256]), ("iq2_xs", 17, [256]), ("iq3_xxs", 18, [256]),
           ("iq1_s", 19, [256]), ("iq3_s", 21, [256]), ("iq2_s", 22, [256]),
           ("iq1_m", 29, [256]), ("tq1_0", 34, [256]), ("tq2_0", 35, [256]),
           ("mxfp4", 39, [32, 2]), ("nvfp4", 40, [64]), ("q1_0", 41, [128]),
           ("q2_0", 42, [64])])


if __name__ == "__main__":
    main()
