#!/usr/bin/python3
"""gen_onnx.py: the ONNX fixtures of tests/onnx.test and what they must read as.

    /usr/bin/python3 tests/gen_onnx.py              writes tests/data/onnx/
    /usr/bin/python3 tests/gen_onnx.py --check-model EXT MODEL

Needs Debian's python3-onnx and numpy.  The first form writes small .onnx
files (with onnx's own helper and serializer where it can express the case,
by hand in the wire format where it cannot: unpacked repeated fields, mixed
packed and unpacked runs, dtypes newer than the installed onnx, broken
files) into tests/data/onnx/, and tests/data/onnx/expected.tcl: per valid
file every row q_tensors must give (name, dtype, shape, hex of the data,
scope) and every q_tensor_metadata row, all computed from the file as onnx
parses it (onnx.load_from_string, numpy_helper.to_array), so the suite needs
no Python.  Every hand-made valid file is parsed back by onnx's protobuf
first, so the hand encoding is checked too.

The second form loads the extension EXT into Python's sqlite3 and compares
q_tensors_file(MODEL) with the same walk over MODEL (every initializer and
Constant of every graph and subgraph), tensor for tensor, and q_tensors of
the file's bytes with q_tensors_file (models without external data); it prints
"onnx-check: N tensors equal" or each difference, and exits non-zero on any.
"""
import json
import os
import sqlite3
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnx_wire import f_bytes, f_fixed32, f_fixed64, f_varint, varint

OUT = "tests/data/onnx"

# ---- the wire format, by hand -------------------------------------------------


# varint, f_varint, f_bytes, f_fixed32, f_fixed64: tests/onnx_wire.py.


def model_bytes(graph, ir_version=8, opset=17):
    return (f_varint(1, ir_version) +
            f_bytes(8, f_bytes(1, b"") + f_varint(2, opset)) +
            f_bytes(7, graph))


def graph_bytes(name, initializers=(), nodes=()):
    return (b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name) +
            b"".join(f_bytes(5, t) for t in initializers))


def tensor_bytes(name, dtype, dims, body=b"", packed_dims=False):
    if packed_dims:
        d = f_bytes(1, b"".join(varint(x) for x in dims)) if dims else b""
    else:
        d = b"".join(f_varint(1, x) for x in dims)
    return d + f_varint(2, dtype) + f_bytes(8, name) + body


def node_bytes(op, outputs, attrs=(), name=None, inputs=()):
    b = b"".join(f_bytes(1, i) for i in inputs)
    b += b"".join(f_bytes(2, o) for o in outputs)
    if name is not None:
        b += f_bytes(3, name)
    b += f_bytes(4, op)
    b += b"".join(f_bytes(5, a) for a in attrs)
    return b


def attr_graph(name, graph):
    return f_bytes(1, name) + f_varint(20, 5) + f_bytes(6, graph)


# ---- what q_tensors must give -------------------------------------------------

# data_type -> our dtype name
DTYPE_NAMES = {1: "f32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16",
               6: "int32", 7: "int64", 9: "bool", 10: "f16", 11: "f64",
               12: "uint32", 13: "uint64", 16: "bf16", 17: "f8_e4m3fn",
               18: "f8_e4m3fnuz", 19: "f8_e5m2", 20: "f8_e5m2fnuz",
               21: "uint4", 22: "int4", 23: "f4_e2m1", 24: "f8_e8m0"}


def tensor_data(t, base_dir):
    """The little-endian bytes of TensorProto t, as onnx reads it."""
    dt = t.data_type
    if dt >= 17 or dt == 16:
        # Types numpy_helper of this onnx (1.12) cannot give as bytes: the
        # stored bytes, or the int32_data values one byte (or two) each.
        if t.HasField("raw_data"):
            return bytes(t.raw_data)
        width = 2 if dt == 16 else 1
        return b"".join(int(v).to_bytes(width, "little") for v in t.int32_data)
    a = numpy_helper.to_array(t, base_dir)
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<")).tobytes()


def shape_text(dims):
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def walk(graph, scope, rows, base_dir):
    for t in graph.initializer:
        if t.data_type == TensorProto.STRING:
            continue
        rows.append((t.name, DTYPE_NAMES[t.data_type], shape_text(t.dims),
                     tensor_data(t, base_dir), scope))
    for i, node in enumerate(graph.node):
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            out = node.output[0]
            for a in node.attribute:
                if a.name == "value":
                    if a.t.data_type != TensorProto.STRING:
                        rows.append((out, DTYPE_NAMES[a.t.data_type],
                                     shape_text(a.t.dims),
                                     tensor_data(a.t, base_dir), scope))
                elif a.name == "value_float":
                    rows.append((out, "f32", "[]",
                                 np.float32(a.f).astype("<f4").tobytes(), scope))
                elif a.name == "value_floats":
                    rows.append((out, "f32", "[%d]" % len(a.floats),
                                 np.array(a.floats, "<f4").tobytes(), scope))
                elif a.name == "value_int":
                    rows.append((out, "int64", "[]",
                                 np.int64(a.i).astype("<i8").tobytes(), scope))
                elif a.name == "value_ints":
                    rows.append((out, "int64", "[%d]" % len(a.ints),
                                 np.array(a.ints, "<i8").tobytes(), scope))
                else:
                    continue
                break
        label = node.name if node.name else "%s#%d" % (node.op_type, i)
        for a in node.attribute:
            here = label + "/" + a.name
            if a.HasField("g"):
                walk(a.g, (scope + "/" if scope else "") + here, rows, base_dir)
            for j, g in enumerate(a.graphs):
                walk(g, (scope + "/" if scope else "") + "%s[%d]" % (here, j),
                     rows, base_dir)


def expected_rows(model, base_dir):
    rows = []
    walk(model.graph, "", rows, base_dir)
    return rows


def expected_meta(m):
    js = lambda s: json.dumps(s, ensure_ascii=False)
    rows = []
    if m.HasField("ir_version"):
        rows.append(("ir_version", "int64", str(m.ir_version)))
    for k in ("producer_name", "producer_version", "domain"):
        if m.HasField(k):
            rows.append((k, "string", js(getattr(m, k))))
    if m.HasField("model_version"):
        rows.append(("model_version", "int64", str(m.model_version)))
    if m.HasField("doc_string"):
        rows.append(("doc_string", "string", js(m.doc_string)))
    if m.HasField("graph") and m.graph.HasField("name"):
        rows.append(("graph.name", "string", js(m.graph.name)))
    for o in m.opset_import:
        rows.append(("opset_import." + (o.domain or "ai.onnx"), "int64",
                     str(o.version)))
    for p in m.metadata_props:
        rows.append((p.key, "string", js(p.value)))
    return rows


# ---- the fixtures -------------------------------------------------------------

def make_model(graph, **kw):
    opsets = kw.pop("opsets", [helper.make_opsetid("", 17)])
    m = helper.make_model(graph, opset_imports=opsets, **kw)
    m.ir_version = 8
    return m


def raw_tensor(name, dtype, dims, raw):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def fixture_raw():
    """raw_data for every dtype, a scalar, an empty tensor, and a STRING
    tensor (skipped)."""
    ar = np.arange
    inits = [
        numpy_helper.from_array(ar(6, dtype=np.float32).reshape(2, 3) - 2.5, "f32"),
        numpy_helper.from_array(ar(250, 256, dtype=np.uint8), "uint8"),
        numpy_helper.from_array(np.array([-128, -1, 0, 127], np.int8), "int8"),
        numpy_helper.from_array(np.array([0, 1, 65535], np.uint16), "uint16"),
        numpy_helper.from_array(np.array([-32768, 5, 32767], np.int16), "int16"),
        numpy_helper.from_array(np.array([[-2147483648], [7]], np.int32), "int32"),
        numpy_helper.from_array(np.array([-(2**63), 2**63 - 1], np.int64), "int64"),
        numpy_helper.from_array(np.array([True, False, True]), "bool"),
        numpy_helper.from_array(np.array([0.5, -2, 65504], np.float16), "f16"),
        numpy_helper.from_array(np.array([0.1, -1e300], np.float64), "f64"),
        numpy_helper.from_array(np.array([0, 4294967295], np.uint32), "uint32"),
        numpy_helper.from_array(np.array([2**64 - 1, 3], np.uint64), "uint64"),
        raw_tensor("bf16", TensorProto.BFLOAT16, [2], b"\x80\x3f\x00\xc0"),
        raw_tensor("f8_e4m3", 17, [3], b"\x38\x40\xb8"),
        raw_tensor("f8_e4m3fnuz", 18, [2], b"\x40\x80"),
        raw_tensor("f8_e5m2", 19, [2], b"\x3c\x7c"),
        raw_tensor("f8_e5m2fnuz", 20, [1], b"\x40"),
        raw_tensor("uint4", 21, [5], b"\x21\x43\x05"),
        raw_tensor("int4", 22, [2, 2], b"\xf1\x87"),
        raw_tensor("f4_e2m1", 23, [3], b"\x21\x0f"),
        raw_tensor("f8_e8m0", 24, [2], b"\x7f\x80"),
        numpy_helper.from_array(np.float32(3.25), "scalar"),
        numpy_helper.from_array(np.zeros((0, 3), np.float32), "empty"),
        helper.make_tensor("text", TensorProto.STRING, [2], [b"a", b"bc"]),
    ]
    g = helper.make_graph([], "raw", [], [], initializer=inits)
    return make_model(g).SerializeToString()


# (name, data_type, dims, field, kind, values): typed-field tensors
TYPED = [
    ("f32", 1, [2, 2], 4, "f32", [1.5, -0.25, 3e38, -0.0]),
    ("f64", 11, [3], 10, "f64", [0.1, -2.0, 1e-300]),
    ("int64", 7, [3], 7, "varint", [-(2**63), -1, 2**63 - 1]),
    ("int32", 6, [2], 5, "varint", [-2147483648, 2147483647]),
    ("int16", 5, [3], 5, "varint", [-32768, -1, 32767]),
    ("int8", 3, [3], 5, "varint", [-128, -5, 127]),
    ("uint16", 4, [2], 5, "varint", [0, 65535]),
    ("uint8", 2, [3], 5, "varint", [0, 128, 255]),
    ("bool", 9, [2], 5, "varint", [1, 0]),
    ("f16", 10, [2], 5, "varint", [0x3C00, 0xC000]),
    ("bf16", 16, [2], 5, "varint", [0x3F80, 0xC000]),
    ("f8_e4m3", 17, [2], 5, "varint", [0x38, 0xB8]),
    ("f8_e5m2", 19, [2], 5, "varint", [0x3C, 0xFC]),
    ("int4", 22, [3], 5, "varint", [0x1F, 0x07]),
    ("uint32", 12, [2], 11, "varint", [0, 4294967295]),
    ("uint64", 13, [2], 11, "varint", [2**64 - 1, 5]),
    ("scalar_i64", 7, [], 7, "varint", [42]),
    ("empty_f32", 1, [0], 4, "f32", []),
]


def typed_body(field, kind, values, packed):
    enc = {"f32": lambda v: struct.pack("<f", v),
           "f64": lambda v: struct.pack("<d", v),
           "varint": varint}[kind]
    if packed:
        return f_bytes(field, b"".join(enc(v) for v in values)) if values else b""
    wire = {"f32": 5, "f64": 1, "varint": 0}[kind]
    return b"".join(varint(field << 3 | wire) + enc(v) for v in values)


def fixture_typed(packed):
    inits = [tensor_bytes(n, dt, dims, typed_body(field, kind, vals, packed),
                          packed_dims=packed)
             for n, dt, dims, field, kind, vals in TYPED]
    if not packed:
        # Packed runs and single values of one field, mixed (parsers merge
        # them in order).
        body = (f_bytes(4, struct.pack("<2f", 1, 2)) + f_fixed32(4, 3) +
                f_bytes(4, struct.pack("<f", 4)))
        inits.append(tensor_bytes("mixed_f32", 1, [4], body))
        body = f_varint(7, 1) + f_bytes(7, varint(2) + varint(-3)) + f_varint(7, 4)
        inits.append(tensor_bytes("mixed_i64", 7, [2, 2], body))
    return model_bytes(graph_bytes("typed_packed" if packed else "typed_unpacked",
                                   inits))


def fixture_constants():
    nodes = [
        helper.make_node("Constant", [], ["c_tensor"], name="const_t",
                         value=numpy_helper.from_array(
                             np.array([[1, 2], [3, 4]], np.int32), "ignored")),
        helper.make_node("Constant", [], ["c_float"], value_float=0.1),
        helper.make_node("Constant", [], ["c_floats"], value_floats=[1, -2.5, 1e-3]),
        helper.make_node("Constant", [], ["c_int"], value_int=-7),
        helper.make_node("Constant", [], ["c_ints"], value_ints=[1, -1, 2**40]),
        helper.make_node("Constant", [], ["c_string"], value_string="text"),
        helper.make_node("Constant", [], ["c_typed"], value=helper.make_tensor(
            "v", TensorProto.FLOAT, [3], [0.5, 1.5, 2.5])),
        helper.make_node("Relu", ["c_typed"], ["r"]),
    ]
    g = helper.make_graph(nodes, "constants", [], [], initializer=[
        numpy_helper.from_array(np.array([9, 8], np.int64), "init")])
    return make_model(g).SerializeToString()


def const(out, arr, name=None):
    return helper.make_node("Constant", [], [out], name=name,
                            value=numpy_helper.from_array(arr, out + "_v"))


def fixture_control_flow():
    """If (named) with Constants in both branches, and inside then_branch an
    unnamed If whose else_branch holds a Constant; an unnamed Loop whose body
    has an initializer and a Constant; a custom node with a GRAPHS
    attribute."""
    inner_then = helper.make_graph([const("deep_then", np.array([1], np.int8))],
                                   "inner_then", [], [])
    inner_else = helper.make_graph([const("deep_else", np.array([2.5], np.float16))],
                                   "inner_else", [], [])
    then_g = helper.make_graph([
        const("then_c", np.array([1, 2, 3], np.float32)),
        helper.make_node("If", ["cond"], ["x"], then_branch=inner_then,
                         else_branch=inner_else)], "then", [], [])
    else_g = helper.make_graph([const("else_c", np.array([[4.0]], np.float64))],
                               "else", [], [])
    body = helper.make_graph(
        [const("body_c", np.array(5, np.int64)),
         helper.make_node("Identity", ["body_init"], ["y"])], "body", [], [],
        initializer=[numpy_helper.from_array(np.array([6, 7], np.int32), "body_init")])
    g1 = helper.make_graph([const("g1_c", np.array([1], np.uint8))], "b1", [], [])
    g2 = helper.make_graph([const("g2_c", np.array([2], np.uint8))], "b2", [], [])
    nodes = [
        const("top_c", np.array([0.25], np.float32)),
        helper.make_node("If", ["cond"], ["out"], name="If_0",
                         then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["", "cond"], ["l"], body=body),
        helper.make_node("Custom", [], ["z"], domain="test", branches=[g1, g2]),
    ]
    g = helper.make_graph(nodes, "control_flow", [], [], initializer=[
        numpy_helper.from_array(np.array([True]), "cond")])
    return make_model(g, opsets=[helper.make_opsetid("", 17),
                                 helper.make_opsetid("test", 1)]).SerializeToString()


def fixture_metadata():
    g = helper.make_graph([], "meta \"graph\"", [], [], initializer=[
        numpy_helper.from_array(np.array([1], np.float32), "w")])
    m = make_model(g, producer_name="gen_onnx", producer_version="1.0",
                   domain="org.example", model_version=42,
                   doc_string="line 1\nline 2 \"quoted\" \\ tab\t caf\u00e9",
                   opsets=[helper.make_opsetid("", 17),
                           helper.make_opsetid("com.microsoft", 1)])
    helper.set_model_props(m, {"author": "me", "license": "MIT",
                               "empty": "", "ctl": "a\x01b"})
    return m.SerializeToString()


def fixture_nested(levels):
    """levels graphs nested by unnamed If nodes, each level's then_branch
    holding the next; a Constant at the deepest level."""
    g = graph_bytes("leaf", nodes=[node_bytes("Constant", ["deepest"], [
        f_bytes(1, "value") + f_varint(20, 4) +
        f_bytes(5, tensor_bytes("v", 1, [1], f_bytes(9, struct.pack("<f", 7))))])])
    for i in range(levels):
        g = graph_bytes("level%d" % i, nodes=[
            node_bytes("If", ["x"], [attr_graph("then_branch", g)], inputs=["c"])])
    return model_bytes(g)


def fixture_external(location, body_bin=True):
    w = np.arange(4, dtype=np.float32) * 1.5
    b = np.array([-1, 2], np.int64)
    t1 = numpy_helper.from_array(w, "w_ext")
    t2 = numpy_helper.from_array(b, "b_ext")
    for t, off, length in ((t1, 0, 16), (t2, 16, None)):
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", str(off)),
                     ("length", None if length is None else str(length))):
            if v is not None:
                e = t.external_data.add()
                e.key, e.value = k, v
    inside = numpy_helper.from_array(np.array([3], np.int16), "inside")
    g = helper.make_graph([], "external", [], [], initializer=[t1, t2, inside])
    return make_model(g).SerializeToString(), w.tobytes() + b.tobytes()


def replace_once(data, old, new):
    assert data.count(old) == 1, old
    return data.replace(old, new)


def bad_files(raw):
    """name -> bytes, each breaking one rule."""
    bad = {}
    bad["bad_truncated"] = raw[: len(raw) // 2]
    # An 11-byte varint where ir_version's value begins.
    bad["bad_varint_overflow"] = b"\x08" + b"\xff" * 10 + b"\x01"
    # A graph field whose length runs past the end.
    bad["bad_length_past_end"] = f_varint(1, 8) + varint(7 << 3 | 2) + varint(1000) + b"\x0a\x00"
    bad["bad_raw_count"] = model_bytes(graph_bytes("g", [
        tensor_bytes("w", 1, [2, 2], f_bytes(9, bytes(12)))]))
    bad["bad_typed_count"] = model_bytes(graph_bytes("g", [
        tensor_bytes("w", 1, [2, 2], typed_body(4, "f32", [1, 2, 3], True))]))
    bad["bad_nesting"] = fixture_nested(33)
    bad["bad_group"] = f_varint(1, 8) + varint(9 << 3 | 3)
    bad["bad_no_ir_version"] = f_bytes(7, graph_bytes("g"))
    bad["bad_sparse"] = model_bytes(graph_bytes("g") + f_bytes(15, b""))
    bad["bad_complex"] = model_bytes(graph_bytes("g", [
        tensor_bytes("c", 14, [1], f_bytes(9, bytes(8)))]))
    bad["bad_dtype"] = model_bytes(graph_bytes("g", [
        tensor_bytes("u", 99, [1], f_bytes(9, bytes(1)))]))
    bad["bad_int32_range"] = model_bytes(graph_bytes("g", [
        tensor_bytes("u8", 2, [2], typed_body(5, "varint", [1, 300], True))]))
    bad["bad_wrong_field"] = model_bytes(graph_bytes("g", [
        tensor_bytes("w", 1, [1], typed_body(7, "varint", [1], True))]))
    bad["bad_escape"], _ = fixture_external("../outside.bin")
    bad["bad_absolute"], _ = fixture_external("/etc/hostname")
    bad["ext_missing"], _ = fixture_external("missing.bin")
    return bad


def tcl_quote(s):
    return "{" + s + "}" if s else "{}"


def main():
    os.makedirs(OUT, exist_ok=True)
    valid = {
        "raw_dtypes": fixture_raw(),
        "typed_packed": fixture_typed(True),
        "typed_unpacked": fixture_typed(False),
        "constants": fixture_constants(),
        "control_flow": fixture_control_flow(),
        "metadata": fixture_metadata(),
        "nested_32": fixture_nested(32),
    }
    ext, ext_bin = fixture_external("external.bin")
    valid["external"] = ext
    with open(os.path.join(OUT, "external.bin"), "wb") as f:
        f.write(ext_bin)
    files = dict(valid)
    files.update(bad_files(valid["control_flow"]))
    for name, blob in files.items():
        with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
            f.write(blob)

    lines = ["# Generated by tests/gen_onnx.py from onnx %s: per file the rows "
             "q_tensors" % onnx.__version__,
             "# gives (name dtype shape hex-of-data scope) and q_tensor_metadata "
             "(key type value).",
             "set onnx_expected {"]
    for name, blob in valid.items():
        sys.setrecursionlimit(10000)
        m = onnx.load_from_string(blob)
        rows = expected_rows(m, OUT)
        lines.append("  %s {" % name)
        lines.append("    tensors {")
        for n, dt, shp, data, scope in rows:
            lines.append("      {%s %s %s %s %s}" % (
                tcl_quote(n), dt, shp, tcl_quote(data.hex().upper()),
                tcl_quote(scope)))
        lines.append("    }")
        lines.append("    meta {")
        for k, t, v in expected_meta(m):
            assert "{" not in v and "}" not in v
            lines.append("      {%s %s %s}" % (tcl_quote(k), t, tcl_quote(v)))
        lines.append("    }")
        lines.append("  }")
    lines.append("}")
    with open(os.path.join(OUT, "expected.tcl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("gen_onnx: %d files in %s" % (len(files), OUT))


def check_model(ext, path):
    m = onnx.load(path)
    want = expected_rows(m, os.path.dirname(path))
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    got = db.execute("SELECT name, dtype, shape, data, scope FROM "
                     "q_tensors_file(?)", (path,)).fetchall()
    bad = 0
    if not any(t.data_location == TensorProto.EXTERNAL
               for t in m.graph.initializer):
        with open(path, "rb") as f:
            blob = f.read()
        from_blob = db.execute("SELECT name, dtype, shape, data, scope FROM "
                               "q_tensors(?)", (blob,)).fetchall()
        if from_blob != got:
            print("onnx-check: q_tensors(bytes) differs from q_tensors_file")
            bad += 1
    if len(got) != len(want):
        print("onnx-check: %d rows, expected %d" % (len(got), len(want)))
        bad += 1
    for g, w in zip(got, want):
        g = (g[0], g[1], g[2], bytes(g[3]), g[4] or "")
        if g != w:
            bad += 1
            print("onnx-check: differs: %r %r %r scope %r vs expected %r %r %r "
                  "scope %r" % (g[0], g[1], g[2], g[4], w[0], w[1], w[2], w[4]))
    if bad:
        sys.exit(1)
    print("onnx-check: %d tensors equal (%d bytes)" % (
        len(got), sum(len(w[3]) for w in want)))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check-model":
        check_model(sys.argv[2], sys.argv[3])
    else:
        main()
