#!/usr/bin/python3
"""gen_tflite.py: TFLite test files, valid and invalid, with the rows or the
exact error the reader must give (docs/FORMATS.md#tflite).

    /usr/bin/python3 tests/gen_tflite.py
        writes, deterministically (the outputs are committed; the suite needs
        no Python):
          tests/data/tflite/<case>.tflite   every case's file
          tests/data/tflite/cases.tcl       per case the expected q_tensors
                                            rows and q_tensor_metadata rows,
                                            or the exact error
    /usr/bin/python3 tests/gen_tflite.py --check-mediapipe EXT MODEL
        loads the extension EXT into Python's sqlite3 and requires every
        tensor that tests/import_models_ref.py imports from the MediaPipe
        model MODEL to equal q_tensors_file's row (name, shape, dtype, bytes).

The FlatBuffer writer here is independent of the C reader: it lays objects
out front to back as the FlatBuffers binary format describes (root uoffset,
file identifier, each table preceded by its vtable, uoffsets pointing
forward, vectors as a u32 count and the elements, strings NUL-terminated),
following TFLite's schema.fbs field numbers.  Objects that are the same
Python object are written once and shared, as FlatBuffers allows.  Invalid
files break one rule each, at a position the writer recorded, and their
messages are composed here from those positions.
"""
import os
import struct
import sys

OUT = "tests/data/tflite"

# TensorType (schema.fbs)
FLOAT32, FLOAT16, INT32, UINT8, INT64, STRING, BOOL, INT16, COMPLEX64, INT8, \
    FLOAT64, COMPLEX128, UINT64, RESOURCE, VARIANT, UINT32, UINT16, INT4, \
    BFLOAT16 = range(19)


# ---- a minimal FlatBuffer writer ----------------------------------------------

class Table:
    """fields: {index: (kind, value)}; kinds: u8 i8 bool u16 u32 i32 u64 i64
    f32 (scalars), table, tables (vector of tables), str, bytes (vector of
    ubyte), vi32 vi64 vf32 (vectors).  label names the table for positions;
    raw_vtable/raw_tsize override what the writer computes."""

    def __init__(self, fields, label=None, align_data=16):
        self.fields = fields
        self.label = label
        self.align_data = align_data


SCALAR = {"u8": "<B", "i8": "<b", "bool": "<B", "u16": "<H", "u32": "<I",
          "i32": "<i", "u64": "<Q", "i64": "<q", "f32": "<f"}
VEC = {"vi32": "<i", "vi64": "<q", "vf32": "<f", "vu8": "<B"}


class Writer:
    """Lays every object out once, parents before children (a topological
    order of the object graph), so that every uoffset points forward even
    when objects are shared; then patches the uoffsets."""

    def __init__(self):
        self.buf = bytearray(b"\0\0\0\0TFL3")
        self.done = {}          # id(obj) -> position
        self.pos = {}           # label -> table position, label.i -> field position
        self.vpos = {}          # label.i -> position of the vector/string count
        self.patches = []       # (uoffset position, object)

    def pad(self, align, extra=0):
        while (len(self.buf) + extra) % align:
            self.buf.append(0)

    @staticmethod
    def children(kind, val):
        if kind == "table":
            return [val]
        if kind == "tables":
            return [("table", t) for t in val]
        return []

    def order(self, root):
        """Reverse post-order of the graph from root (iterative: chains of
        thousands of tables are fine)."""
        seen, post = set(), []
        stack = [(("table", root), False)]
        while stack:
            (kind, val), expanded = stack.pop()
            if expanded:
                post.append((kind, val))
                continue
            if id(val) in seen:
                continue
            seen.add(id(val))
            stack.append(((kind, val), True))
            if kind == "table":
                for i, (k, v) in sorted(val.fields.items(), reverse=True):
                    if k not in SCALAR:
                        stack.append(((k, v), False))
            elif kind == "tables":
                for t in reversed(val):
                    stack.append((("table", t), False))
        return post[::-1]

    def place_table(self, t):
        items = sorted(t.fields.items())
        nslots = (items[-1][0] + 1) if items else 0

        def size(kind):
            return struct.calcsize(SCALAR[kind]) if kind in SCALAR else 4
        order = sorted(items, key=lambda kv: -size(kv[1][0]))
        body = bytearray(4)
        offs = {}
        for i, (kind, val) in order:
            sz = size(kind)
            while len(body) % sz:
                body.append(0)
            offs[i] = len(body)
            body += struct.pack(SCALAR[kind], val) if kind in SCALAR else b"\0" * 4
        while len(body) % 4:
            body.append(0)
        vt = struct.pack("<HH", 4 + 2 * nslots, len(body))
        for i in range(nslots):
            vt += struct.pack("<H", offs.get(i, 0))
        self.pad(2)
        vt_pos = len(self.buf)
        self.buf += vt
        self.pad(8)
        tpos = len(self.buf)
        struct.pack_into("<i", body, 0, tpos - vt_pos)
        self.buf += body
        if t.label:
            self.pos[t.label] = tpos
            self.pos[t.label + ".vtable"] = vt_pos
            for i in offs:
                self.pos["%s.%d" % (t.label, i)] = tpos + offs[i]
        for i, (kind, val) in items:
            if kind not in SCALAR:
                self.patches.append((tpos + offs[i], val))
                if t.label and kind != "table":
                    self.vkeys[id(val)] = "%s.%d" % (t.label, i)
        return tpos

    def place(self, kind, val, align_data):
        if kind == "table":
            return self.place_table(val)
        if kind == "str":
            raw = val.encode() if isinstance(val, str) else val
            self.pad(4)
            p = len(self.buf)
            self.buf += struct.pack("<I", len(raw)) + raw + b"\0"
        elif kind == "bytes":
            # align_data 1: deliberately misaligned (16k + 1)
            self.pad(16, 4)
            if align_data.get(id(val)) == 1:
                self.buf.append(0)
            p = len(self.buf)
            self.buf += struct.pack("<I", len(val)) + val
        elif kind in VEC:
            self.pad(8, 4)
            p = len(self.buf)
            self.buf += struct.pack("<I", len(val))
            self.buf += b"".join(struct.pack(VEC[kind], x) for x in val)
        elif kind == "tables":
            self.pad(4)
            p = len(self.buf)
            self.buf += struct.pack("<I", len(val))
            for k, sub in enumerate(val):
                self.patches.append((p + 4 + 4 * k, sub))
                self.buf += b"\0" * 4
        else:
            raise ValueError(kind)
        return p

    def finish(self, root):
        self.vkeys = {}
        nodes = self.order(root)
        align_data = {}
        for kind, val in nodes:
            if kind == "table" and 0 in val.fields and val.fields[0][0] == "bytes":
                align_data[id(val.fields[0][1])] = val.align_data
        for kind, val in nodes:
            self.done[id(val)] = self.place(kind, val, align_data)
            if id(val) in self.vkeys:
                self.vpos[self.vkeys[id(val)]] = self.done[id(val)]
        for at, val in self.patches:
            struct.pack_into("<I", self.buf, at, self.done[id(val)] - at)
        struct.pack_into("<I", self.buf, 0, self.done[id(root)])
        self.pad(4)
        return bytes(self.buf)


def build(model):
    w = Writer()
    data = w.finish(model)
    return data, w


# ---- TFLite tables --------------------------------------------------------------

def tensor(name, ttype, shape, buf, quant=None, label=None, extra=None):
    f = {0: ("vi32", shape), 1: ("i8", ttype), 2: ("u32", buf)}
    if name is not None:
        f[3] = ("str", name)
    if quant is not None:
        f[4] = ("table", quant)
    if extra:
        f.update(extra)
    return Table(f, label)


def buffer(data=None, offset=None, size=None, label=None, align=16):
    f = {}
    if data is not None:
        f[0] = ("bytes", data)
    if offset is not None:
        f[1] = ("u64", offset)
    if size is not None:
        f[2] = ("u64", size)
    return Table(f, label, align)


def subgraph(tensors, name=None, label=None):
    f = {0: ("tables", tensors), 1: ("vi32", []), 2: ("vi32", [])}
    if name is not None:
        f[4] = ("str", name)
    return Table(f, label)


def model(subgraphs, buffers, version=3, description=None, metadata=None,
          opcodes=None, metadata_buffer=None, label="model"):
    f = {0: ("u32", version), 2: ("tables", subgraphs), 4: ("tables", buffers)}
    if opcodes is not None:
        f[1] = ("tables", opcodes)
    if description is not None:
        f[3] = ("str", description)
    if metadata_buffer is not None:
        f[5] = ("vi32", metadata_buffer)
    if metadata is not None:
        f[6] = ("tables", [Table({0: ("str", n), 1: ("u32", b)})
                           for n, b in metadata])
    return Table(f, label)


def quant(scale=None, zero_point=None, qdim=None, mn=None, mx=None,
          extra=None):
    f = {}
    if mn is not None:
        f[0] = ("vf32", mn)
    if mx is not None:
        f[1] = ("vf32", mx)
    if scale is not None:
        f[2] = ("vf32", scale)
    if zero_point is not None:
        f[3] = ("vi64", zero_point)
    if qdim is not None:
        f[6] = ("i32", qdim)
    if extra:
        f.update(extra)
    return Table(f)


def opcode(builtin, version=1, deprecated=None, custom=None):
    f = {2: ("i32", version), 3: ("i32", builtin)}
    f[0] = ("i8", min(builtin, 127) if deprecated is None else deprecated)
    if custom is not None:
        f[1] = ("str", custom)
    return Table(f)


def f32s(*v):
    return struct.pack("<%df" % len(v), *v)


# ---- expected rows ----------------------------------------------------------------

def shape_json(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def fmt_f32(x):
    """The shortest decimal that reads back as the same float32, as the
    extension prints it (docs/NUMERICS.md); only plain decimals are used
    here (no exponent forms)."""
    f = struct.unpack("<f", struct.pack("<f", x))[0]
    for digits in range(1, 10):
        s = "%.*g" % (digits, f)
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == f:
            break
    assert "e" not in s, s
    return s


def json_str(s):
    out = '"'
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out += '\\"'
        elif ch == "\\":
            out += "\\\\"
        elif ch == "\n":
            out += "\\n"
        elif ch == "\r":
            out += "\\r"
        elif ch == "\t":
            out += "\\t"
        elif c < 0x20 or c == 0x7F:
            out += "\\u%04x" % c
        else:
            out += ch
    return out + '"'


def tcl(s):
    """A Tcl word that reads back as s, whatever it holds."""
    out = '"'
    for ch in str(s):
        c = ord(ch)
        if ch in '\\"$[]{}':
            out += "\\" + ch
        elif c < 0x20 or c >= 0x7F:
            out += "\\u%04x" % c if c < 0x10000 else ch
        else:
            out += ch
    return out + '"'


def tcl_list(items):
    return "[list " + " ".join(items) + "]"


CASES = []  # (name, bytes, ("ok", rows, meta) | ("error", message))


def ok(name, data, rows, meta):
    CASES.append((name, data, ("ok", rows, meta)))


def err(name, data, message):
    CASES.append((name, data, ("error", message)))


def row(name, dtype, shape, off, data, scope=None):
    return (name, dtype, shape_json(shape), off, len(data), scope, data.hex().upper())


# ---- valid files ---------------------------------------------------------------

def case_dtypes():
    payload = [
        ("f32", FLOAT32, "f32", [2, 2], f32s(1, -2, 0.5, 3.25)),
        ("f16", FLOAT16, "f16", [3], struct.pack("<3e", 1, -2, 0.5)),
        ("bf16", BFLOAT16, "bf16", [2], bytes.fromhex("803F00C0")),
        ("f64", FLOAT64, "f64", [2], struct.pack("<2d", 1.5, -0.25)),
        ("i8", INT8, "int8", [3], bytes([1, 0xFE, 0x7F])),
        ("u8", UINT8, "uint8", [2], bytes([0, 255])),
        ("i16", INT16, "int16", [2], struct.pack("<2h", -32768, 32767)),
        ("u16", UINT16, "uint16", [2], struct.pack("<2H", 0, 65535)),
        ("i32", INT32, "int32", [1, 2], struct.pack("<2i", -1, 7)),
        ("u32", UINT32, "uint32", [2], struct.pack("<2I", 1, 0xFFFFFFFF)),
        ("i64", INT64, "int64", [2], struct.pack("<2q", -2, 1 << 40)),
        ("u64", UINT64, "uint64", [1], struct.pack("<Q", 1 << 63)),
        ("flag", BOOL, "bool", [3], bytes([1, 0, 1])),
        # int4: two per byte, element 2i in the low nibble; 5 elements -> 3 bytes
        ("i4", INT4, "int4", [5], bytes([0x21, 0x43, 0x05])),
        ("scalar", FLOAT32, "f32", [], f32s(7)),
        ("caf\u00e9 \"q\"", UINT8, "uint8", [1], bytes([9])),
    ]
    bufs = [buffer()]
    tensors = []
    for name, tt, dtype, shape, data in payload:
        bufs.append(buffer(data, align=1 if name == "i16" else 16))
        tensors.append(tensor(name, tt, shape, len(bufs) - 1,
                              label="t_" + name))
    # activations: buffer 0, and a buffer whose data is empty
    bufs.append(buffer(b""))
    tensors.insert(2, tensor("act0", FLOAT32, [1, 4], 0))
    tensors.append(tensor("act_empty", FLOAT32, [2], len(bufs) - 1))
    m = model([subgraph(tensors, name="main")], bufs,
              description="dtypes test")
    data, w = build(m)
    rows = []
    for name, tt, dtype, shape, payload_bytes in payload:
        k = [p[0] for p in payload].index(name) + 1
        # the data vector's elements follow its count
        off = w.done[id(bufs[k].fields[0][1])] + 4
        rows.append(row(name, dtype, shape, off, payload_bytes))
    meta = [("version", "uint32", "3"),
            ("description", "string", json_str("dtypes test"))]
    ok("dtypes", data, rows, meta)
    # the i16 buffer was written unaligned on purpose
    assert rows[6][3] % 2 == 1, rows[6]


def case_subgraphs():
    w_data = f32s(0.5, -1)
    q_data = bytes([0x80, 0x00, 0x7F, 0x01])
    bufs = [buffer(), buffer(w_data), buffer(q_data),
            buffer(b"1.5.0\0\0\0\0\0\0\0\0\0\0\0"),
            buffer(bytes([0, 1, 0xFE, 0x41])), buffer(struct.pack("<i", 3))]
    q1 = quant(scale=[0.5, 0.25], zero_point=[0, -3], qdim=1,
               mn=[-1.5, -2], mx=[1, 2.5])
    q_act = quant(scale=[0.1], zero_point=[5])
    sg0 = subgraph([
        tensor("w", FLOAT32, [2], 1),
        tensor("q", INT8, [2, 2], 2, quant=q1),
        tensor("x", INT8, [1, 2], 0, quant=q_act),
        tensor("minmax_only", FLOAT32, [1], 0, quant=quant(mn=[0], mx=[6])),
        tensor("empty_quant", FLOAT32, [1], 0, quant=quant()),
    ])
    # subgraph 1 shares buffer 1 with subgraph 0's w, twice
    sg1 = subgraph([tensor("w", FLOAT32, [2], 1, quant=quant(scale=[2], zero_point=[0])),
                    tensor("w_again", FLOAT32, [1, 2], 1)], name="cond")
    sg2 = subgraph([tensor("k", INT32, [], 5)])
    m = model([sg0, sg1, sg2], bufs, description="two \"sub\"graphs\n",
              metadata=[("min_runtime_version", 3), ("blob", 4)],
              metadata_buffer=[3, 4],
              opcodes=[opcode(3), opcode(32, custom="TFLite_Detection_PostProcess"),
                       opcode(150, version=2, deprecated=127)])
    data, w = build(m)
    off = lambda b: w.done[id(bufs[b].fields[0][1])] + 4
    rows = [row("w", "f32", [2], off(1), w_data),
            row("q", "int8", [2, 2], off(2), q_data),
            row("w", "f32", [2], off(1), w_data, "cond"),
            row("w_again", "f32", [1, 2], off(1), w_data, "cond"),
            row("k", "int32", [], off(5), struct.pack("<i", 3), "subgraph#2")]
    meta = [("version", "uint32", "3"),
            ("description", "string", json_str("two \"sub\"graphs\n")),
            ("metadata.min_runtime_version", "string", json_str("1.5.0")),
            ("metadata.blob", "bytes", '"0001fe41"'),
            ("metadata_buffer", "array[int32]", "[3,4]"),
            ("operator_codes", "array[operator_code]",
             '[{"builtin_code":3,"version":1},'
             '{"builtin_code":32,"custom_code":"TFLite_Detection_PostProcess","version":1},'
             '{"builtin_code":150,"version":2}]'),
            ("tensor.q.min", "array[float32]", "[-1.5,-2]"),
            ("tensor.q.max", "array[float32]", "[1,2.5]"),
            ("tensor.q.scale", "array[float32]", "[0.5,0.25]"),
            ("tensor.q.zero_point", "array[int64]", "[0,-3]"),
            ("tensor.q.quantized_dimension", "int32", "1"),
            ("tensor.x.scale", "array[float32]", "[%s]" % fmt_f32(0.1)),
            ("tensor.x.zero_point", "array[int64]", "[5]"),
            ("tensor.x.quantized_dimension", "int32", "0"),
            ("tensor.minmax_only.min", "array[float32]", "[0]"),
            ("tensor.minmax_only.max", "array[float32]", "[6]"),
            ("cond.tensor.w.scale", "array[float32]", "[2]"),
            ("cond.tensor.w.zero_point", "array[int64]", "[0]"),
            ("cond.tensor.w.quantized_dimension", "int32", "0")]
    ok("subgraphs", data, rows, meta)


def case_large():
    """The form TFLite writes for models over 2 GB: Buffer.offset/size point
    at bytes after the flatbuffer, from the start of the file."""
    ext1 = f32s(1, 2, 3)
    ext2 = struct.pack("<4e", 1, 2, 3, 4)
    inline = bytes([7, 8])
    for placeholder in (True, False):
        if placeholder:
            o1 = o2 = 0
        bufs = [buffer(), buffer(offset=o1, size=len(ext1)),
                buffer(inline), buffer(offset=o2, size=len(ext2)),
                buffer(offset=1, size=0)]
        sg = subgraph([tensor("a", FLOAT32, [3], 1), tensor("b", UINT8, [2], 2),
                       tensor("c", FLOAT16, [2, 2], 3),
                       tensor("placeholder", FLOAT32, [1], 4)])
        fb, w = build(model([sg], bufs))
        base = len(fb) + (-len(fb) % 16)
        o1, o2 = base, base + 16
    data = fb + b"\0" * (base - len(fb)) + ext1 + b"\0" * 4 + ext2
    assert len(data) == o2 + len(ext2)
    rows = [row("a", "f32", [3], o1, ext1),
            row("b", "uint8", [2], w.done[id(bufs[2].fields[0][1])] + 4, inline),
            row("c", "f16", [2, 2], o2, ext2)]
    ok("large_model", data, rows, [("version", "uint32", "3")])
    # the same with the second external buffer cut short by the file's end
    err("large_model_past_end", data[:-1],
        "tflite: buffers[3]: offset %d and size 8 are past the end of the "
        "%d-byte file" % (o2, len(data) - 1))


def case_empty():
    fb, _ = build(model([], [buffer()]))
    ok("no_subgraphs", fb, [], [("version", "uint32", "3")])
    fb, _ = build(model([subgraph([])], []))
    ok("no_tensors", fb, [], [("version", "uint32", "3")])


def case_long_scope():
    """A subgraph name of 300 bytes is the scope, whole."""
    long_name = "sg_" + "x" * 297
    bufs = [buffer(), buffer(bytes([5]))]
    sg1 = subgraph([tensor("t", INT8, [1], 1, quant=quant(scale=[0.5], zero_point=[1]))],
                   name=long_name)
    fb, w = build(model([subgraph([]), sg1], bufs))
    off = w.done[id(bufs[1].fields[0][1])] + 4
    ok("long_scope", fb, [row("t", "int8", [1], off, bytes([5]), long_name)],
       [("version", "uint32", "3"),
        (long_name + ".tensor.t.scale", "array[float32]", "[0.5]"),
        (long_name + ".tensor.t.zero_point", "array[int64]", "[1]"),
        (long_name + ".tensor.t.quantized_dimension", "int32", "0")])
    fb, _ = build(model([subgraph([]), subgraph([tensor("t", INT8, [1], 1)],
                                                name="a\0b")], bufs))
    err("scope_nul", fb, "tflite: subgraphs[1].name: the name contains a NUL "
        "byte")


def case_deep():
    """A chain of 1000 nested tables hangs under a quantization's details
    union; the reader walks only the schema's fixed depth and never follows
    it."""
    inner = Table({})
    for _ in range(1000):
        inner = Table({0: ("table", inner)})
    q = quant(scale=[1], zero_point=[0], extra={4: ("u8", 1), 5: ("table", inner)})
    bufs = [buffer(), buffer(bytes([3, 4]))]
    fb, w = build(model([subgraph([tensor("d", INT8, [2], 1, quant=q)])], bufs))
    off = w.done[id(bufs[1].fields[0][1])] + 4
    ok("deep_nesting", fb, [row("d", "int8", [2], off, bytes([3, 4]))],
       [("version", "uint32", "3"),
        ("tensor.d.scale", "array[float32]", "[1]"),
        ("tensor.d.zero_point", "array[int64]", "[0]"),
        ("tensor.d.quantized_dimension", "int32", "0")])


# ---- invalid files ---------------------------------------------------------------

def simple(name="w", ttype=FLOAT32, shape=(2,), data=None, extra=None,
           nbufs=None, bufidx=1, version=3, sg_name=None):
    data = f32s(1, 2) if data is None else data
    bufs = [buffer(), buffer(data, label="buf")]
    t = tensor(name, ttype, list(shape), bufidx, label="tensor", extra=extra)
    sg = subgraph([t], name=sg_name, label="sg")
    return build(model([sg], bufs, version=version))


def patch(data, pos, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, pos, value)
    return bytes(b)


def case_errors():
    fb, w = simple()
    n = len(fb)
    root = w.pos["model"]
    err("short", fb[:6], "tflite: the file is 6 bytes, too short for a "
        "flatbuffer (a 4-byte root offset and a 4-byte file identifier)")
    err("empty_file", b"", "tflite: the file is 0 bytes, too short for a "
        "flatbuffer (a 4-byte root offset and a 4-byte file identifier)")
    err("truncated_root", fb[:root + 2], "tflite: the root table: table at "
        "byte %d is past the end of the %d-byte file" % (root, root + 2))
    # cut inside the buffer's data vector: the writer put the subgraphs after
    # it, so the first thing the reader finds missing is the subgraph vector
    vec = w.vpos["buf.0"]
    f = w.pos["model.2"]
    assert w.vpos["model.2"] > vec + 6
    err("truncated_data", fb[:vec + 6], "tflite: subgraphs: the offset %d at "
        "byte %d points past the end of the %d-byte file"
        % (w.vpos["model.2"] - f, f, vec + 6))
    # cut inside the tensor's shape, the last object
    sp = w.vpos["tensor.0"]
    assert sp + 8 == n
    err("truncated_shape", fb[:sp + 7], "tflite: subgraphs[0].tensors[0]."
        "shape: the vector at byte %d has 1 element of 4 bytes, past the end "
        "of the %d-byte file" % (sp, sp + 7))
    err("identifier", fb[:4] + b"TFL2" + fb[8:],
        'tflite: the file identifier at byte 4 is not "TFL3"')
    err("root_into_header", patch(fb, 0, "<I", 4), "tflite: the root table "
        "offset 4 points into the file header (it must be at least 8)")
    err("root_past_end", patch(fb, 0, "<I", 0xFFFFFF00), "tflite: the root "
        "table: table at byte 4294967040 is past the end of the %d-byte file" % n)
    err("vtable_past_end", patch(fb, root, "<i", -0x10000), "tflite: the root "
        "table: the vtable of the table at byte %d lies at byte %d, outside "
        "the %d-byte file" % (root, root + 0x10000, n))
    err("vtable_before_start", patch(fb, root, "<i", root + 1), "tflite: the "
        "root table: the vtable of the table at byte %d lies at byte -1, "
        "outside the %d-byte file" % (root, n))
    vt = w.pos["model.vtable"]
    err("vtable_odd", patch(fb, vt, "<H", 7), "tflite: the root table: the "
        "vtable at byte %d has size 7 (it must be even and at least 4)" % vt)
    err("vtable_runs_past", patch(fb, vt, "<H", 0xFFF0), "tflite: the root "
        "table: the vtable at byte %d (65520 bytes) runs past the end of the "
        "%d-byte file" % (vt, n))
    err("table_size_past", patch(fb, vt + 2, "<H", 0xFFF0), "tflite: the root "
        "table: the table at byte %d has size 65520, past the end of the "
        "%d-byte file" % (root, n))
    # the version field's vtable slot pointing beyond the table's size
    tsize = struct.unpack_from("<H", fb, vt + 2)[0]
    err("field_outside_table", patch(fb, vt + 4, "<H", tsize - 2), "tflite: "
        "version: field at offset %d (4 bytes) of the table at byte %d lies "
        "outside its %d bytes" % (tsize - 2, root, tsize))
    f = w.pos["model.2"]
    err("offset_past_end", patch(fb, f, "<I", 0x7FFFFFFF), "tflite: "
        "subgraphs: the offset 2147483647 at byte %d points past the end of "
        "the %d-byte file" % (f, n))
    err("offset_zero", patch(fb, f, "<I", 0), "tflite: subgraphs: the offset "
        "at byte %d is 0 (it points at itself)" % f)
    tv = w.vpos["sg.0"]
    err("vector_absurd", patch(fb, tv, "<I", 0xFFFFFFFF), "tflite: "
        "subgraphs[0].tensors: the vector at byte %d has 4294967295 elements "
        "of 4 bytes, past the end of the %d-byte file" % (tv, n))
    sv = w.vpos["model.2"]
    err("subgraphs_absurd", patch(fb, sv, "<I", 0x40000000), "tflite: "
        "subgraphs: the vector at byte %d has 1073741824 elements of 4 bytes, "
        "past the end of the %d-byte file" % (sv, n))
    sp = w.vpos["tensor.0"]
    err("shape_absurd", patch(fb, sp, "<I", 0x3FFFFFFF), "tflite: "
        "subgraphs[0].tensors[0].shape: the vector at byte %d has 1073741823 "
        "elements of 4 bytes, past the end of the %d-byte file" % (sp, n))
    s = w.vpos["tensor.3"]
    err("string_absurd", patch(fb, s, "<I", 0xFFFFFFF0), "tflite: "
        "subgraphs[0].tensors[0].name: the string at byte %d has length "
        "4294967280, past the end of the %d-byte file" % (s, n))
    err("string_no_nul", patch(fb, s + 5, "<B", 0x41), "tflite: "
        "subgraphs[0].tensors[0].name: the string at byte %d does not "
        "end with a NUL byte" % s)
    err("string_not_utf8", patch(fb, s + 4, "<B", 0xFF), "tflite: "
        "subgraphs[0].tensors[0].name: the string at byte %d is not "
        "valid UTF-8 (byte 0xff at byte %d)" % (s, s + 4))
    fb2, w2 = simple(name="a\0b")
    err("name_nul", fb2, "tflite: subgraphs[0].tensors[0].name: the name "
        "contains a NUL byte")
    fb2, _ = simple(data=f32s(1, 2), shape=(3,))
    err("size_mismatch", fb2, "tflite: tensor 'w': its buffer 1 holds 8 "
        "bytes, its shape [3] of f32 needs 12")
    fb2, _ = simple(data=bytes([1, 2]), ttype=INT4, shape=(5,))
    err("size_mismatch_int4", fb2, "tflite: tensor 'w': its buffer 1 holds 2 "
        "bytes, its shape [5] of int4 needs 3")
    fb2, _ = simple(shape=(2, 1 << 30, 1 << 30, 1 << 30))
    err("size_overflow", fb2, "tflite: tensor 'w': its buffer 1 holds 8 "
        "bytes, its shape [2,1073741824,1073741824,1073741824] has over 2^60 "
        "elements")
    fb2, _ = simple(bufidx=9)
    err("buffer_index_past", fb2, "tflite: subgraphs[0].tensors[0] ('w'): "
        "buffer 9 is past the model's 2 buffers")
    fb2, _ = simple(ttype=STRING)
    err("type_string", fb2, "tflite: tensor 'w': type STRING is not read (it "
        "has no dtype here)")
    fb2, _ = simple(ttype=COMPLEX64)
    err("type_complex", fb2, "tflite: tensor 'w': type COMPLEX64 is not read "
        "(it has no dtype here)")
    fb2, _ = simple(ttype=RESOURCE)
    err("type_resource", fb2, "tflite: tensor 'w': type RESOURCE is not read "
        "(it has no dtype here)")
    fb2, _ = simple(ttype=40)
    err("type_unknown", fb2, "tflite: tensor 'w': unknown tensor type 40")
    fb2, _ = simple(extra={6: ("table", Table({0: ("vi32", [0])}))})
    err("sparse", fb2, "tflite: tensor 'w': sparse tensors are not read")
    fb2, _ = simple(shape=(2, -1))
    err("negative_dim", fb2, "tflite: tensor 'w': dimension 1 of its shape is -1")
    fb2, _ = simple(shape=[1] * 33)
    err("too_many_dims", fb2, "tflite: tensor 'w': its shape has 33 "
        "dimensions (at most 32)")
    fb2, _ = simple(version=2)
    err("version_2", fb2, "tflite: schema version 2 is not read (only version 3)")
    # a Metadata entry naming a buffer that does not exist
    fb2, _ = build(model([], [buffer()], metadata=[("m", 5)]))
    CASES.append(("metadata_buffer_past", fb2, ("meta_error",
                  "tflite: metadata[0] ('m'): buffer 5 is past the model's 1 "
                  "buffers")))


def case_shared_expansion():
    """Shared parts: 200 subgraphs that are one table, each with 200 tensors
    that are one table with a 1000-byte name: 40 MB of names from a file of
    a few kilobytes.  The budget stops it."""
    t = tensor("n" * 1000, UINT8, [1], 1)
    sg = subgraph([t] * 200)
    fb, _ = build(model([sg] * 200, [buffer(), buffer(bytes([1]))]))
    n = len(fb)
    err("shared_expansion", fb, "tflite: the model's shared parts expand to "
        "more than %d bytes of names and metadata (32 bytes per byte of the "
        "%d-byte file, plus 65536)" % (32 * n + 65536, n))


# ---- output ------------------------------------------------------------------------

def write_all():
    case_dtypes()
    case_subgraphs()
    case_large()
    case_empty()
    case_deep()
    case_long_scope()
    case_errors()
    case_shared_expansion()
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".tflite"):
            os.remove(os.path.join(OUT, f))
    lines = ["# cases.tcl: generated by tests/gen_tflite.py; do not edit.",
             "# One case per element: {name ok {rows} {meta}}, {name error message}",
             "# (both q_tensors and q_tensor_metadata fail) or {name meta_error",
             "# message} (only q_tensor_metadata fails: q_tensors has no rows).",
             "# The file is tests/data/tflite/<name>.tflite.  A row is {name dtype",
             "# shape offset nbytes quote(scope) hex(data)}; a meta row {key type",
             "# value}; messages have no SQL function prefix.",
             "set tflite_cases {}"]
    for name, data, exp in CASES:
        with open(os.path.join(OUT, name + ".tflite"), "wb") as f:
            f.write(data)
        if exp[0] == "ok":
            rows = [tcl_list([tcl(r[0]), tcl(r[1]), tcl(r[2]), str(r[3]),
                              str(r[4]),
                              tcl("NULL" if r[5] is None else "'%s'" % r[5]),
                              tcl(r[6])]) for r in exp[1]]
            meta = [tcl_list([tcl(k), tcl(t), tcl(v)]) for k, t, v in exp[2]]
            lines.append("lappend tflite_cases [list %s ok %s %s]" % (
                name, tcl_list(rows), tcl_list(meta)))
        else:
            lines.append("lappend tflite_cases [list %s %s %s]" % (
                name, exp[0], tcl(exp[1])))
    with open(os.path.join(OUT, "cases.tcl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("gen_tflite: %d cases in %s" % (len(CASES), OUT))


# ---- the MediaPipe model against tests/import_models_ref.py ---------------------------

def check_mediapipe(ext, path):
    import sqlite3
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import import_models_ref
    skipped = []
    theirs = list(import_models_ref.tflite_tensors(path, skipped))
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    ours = {}
    for name, dtype, shape, data, scope in db.execute(
            "SELECT name, dtype, shape, data, scope FROM q_tensors_file(?)",
            (path,)):
        if scope is None:
            ours.setdefault(name, []).append((dtype, shape, bytes(data)))
    bad = []
    for name, shape, dtype, data, _axis in theirs:
        got = ours.get(name, [])
        want = (dtype, "[" + ",".join(str(d) for d in shape) + "]", data)
        if got != [want]:
            bad.append(name)
    total = sum(len(v) for v in ours.values())
    if bad:
        print("differ: " + " ".join(bad[:10]))
        return 1
    print("%d of %d imported tensors equal q_tensors_file's rows (%d rows, "
          "%d tensors skipped by the importer)" % (len(theirs), len(theirs),
                                                  total, len(skipped)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check-mediapipe":
        sys.exit(check_mediapipe(sys.argv[2], sys.argv[3]))
    write_all()
