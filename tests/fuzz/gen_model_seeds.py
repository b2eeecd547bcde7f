#!/usr/bin/env python3
"""gen_model_seeds.py: the committed seeds of build/fuzz_models
(tests/fuzz/corpus/models): valid files of every format the extension
reads, each in the input layout of tests/fuzz/model_mutate.h (control
bytes, then the model file and the files beside it).

The files are the readers' own fixtures (tests/data/, written by
tests/gen_safetensors.py, gen_gguf.py, gen_npy.py, gen_npz.py, gen_onnx.py
and gen_tflite.py) and a few written here (with the small writers of
gen_file_seeds.py) for what those lack: tensors large enough to come in
chunks under small length limits, GGUF tensors whose offsets are out of
order, NaN and infinite GGUF metadata, a .npz deflated as stored blocks,
ONNX external data large enough to chunk and inside a subgraph, Constant
nodes of every value form.  Each file gets two seeds with different control
bytes (which write table, which transaction, which limit, which q_compare
options), so the seeds alone already reach every table from every format.
Standard library only.  Run from the repository root."""
import io
import json
import os
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from gen_file_seeds import gstr, npy, safetensors  # noqa: E402
import gen_tflite as tfl  # noqa: E402

OUT = "tests/fuzz/corpus/models"
SAFETENSORS, GGUF, NPY, NPZ, ONNX, TFLITE = range(6)


def f32s(values):
    return struct.pack("<%df" % len(values), *values)


def ramp(n, scale=0.25):
    return [((i * 37) % 101 - 50) * scale for i in range(n)]


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- files written here ------------------------------------------------------


def st_chunky():
    """Tensors that chunk under small limits, metadata and a name with
    escapes (ensure_ascii: \\u00e9, \\", \\\\, \\n in the header)."""
    return safetensors(
        [("w", "F32", [32, 8], f32s(ramp(256))),
         ("caf\u00e9 \"q\" \\", "BF16", [64], b"\x80\x3f" * 64),
         ("e", "I8", [0, 4], b""),
         ("s", "F64", [], struct.pack("<d", -1.5))],
        {"format": "pt", "k\u00e9": "line1\nline2 \"q\" \\ \U0001F600"})


def gguf_unsorted():
    """Three tensors whose offsets come in reverse order (the overlap check
    sorts them), a q8_0 matrix, NaN and infinite metadata."""
    blobs = [f32s(ramp(64)), f32s(ramp(32, 0.5)), f32s(ramp(16, 2.0))]
    q8 = b"".join(b"\x00\x3c" + bytes((i * 7 + k) & 0x7F for k in range(32))
                  for i in range(4))
    kv = [("general.architecture", 8, gstr("llama")),
          ("t.nan", 6, struct.pack("<I", 0x7FC00000)),
          ("t.ninf", 12, struct.pack("<Q", 0xFFF0000000000000)),
          ("t.arr", 9, struct.pack("<IQ", 6, 2) + struct.pack("<2I", 0x7FC00000, 0x3F800000)),
          ("t.s", 8, gstr("a\"b\\c\n\x01"))]
    # the data in the order c, b, a, q; the infos in the order a, b, c, q
    names = [("c", [16], blobs[2]), ("b", [32], blobs[1]), ("a", [64], blobs[0])]
    out = b"GGUF" + struct.pack("<IQQ", 3, 4, len(kv))
    for key, vtype, payload in kv:
        out += gstr(key) + struct.pack("<I", vtype) + payload
    offs, off = [], 0
    for _, _, b in names:
        offs.append(off)
        off += len(b) + (-len(b) % 32)
    q8_off = off
    infos = [("a", [64], offs[2]), ("b", [32], offs[1]), ("c", [16], offs[0])]
    for n, dims, o in infos:
        out += gstr(n) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", 0, o)
    out += gstr("q") + struct.pack("<IQQIQ", 2, 32, 4, 8, q8_off)
    out += b"\0" * (-len(out) % 32)
    data = b""
    for _, _, b in names:
        data += b + b"\0" * (-len(b) % 32)
    data += q8
    return out + data


def npy_rows():
    return npy("<f4", (64, 4), f32s(ramp(256)))


def npz_stored_blocks():
    """Deflate at level 0: zlib writes stored blocks."""
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED, compresslevel=0) as z:
        for name, blob in (("w", npy("<f4", (32, 8), f32s(ramp(256)))),
                           ("i", npy("<i2", (3,), struct.pack("<3h", 1, -2, 3)))):
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, blob, compresslevel=0)
    return b.getvalue()


def npz_deflated_rows():
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("m.npy", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, npy(">f8", (16, 8), struct.pack(">128d", *ramp(128))))
    return b.getvalue()


# ONNX in the wire format (the field numbers of onnx.proto)
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fv(field, v):
    return varint(field << 3) + varint(v)


def fb(field, b):
    b = b.encode() if isinstance(b, str) else b
    return varint(field << 3 | 2) + varint(len(b)) + b


def tensor(name, dtype, dims, body):
    return b"".join(fv(1, d) for d in dims) + fv(2, dtype) + fb(8, name) + body


def external(location, offset, length):
    return (fv(14, 1) + fb(13, fb(1, "location") + fb(2, location)) +
            fb(13, fb(1, "offset") + fb(2, str(offset))) +
            fb(13, fb(1, "length") + fb(2, str(length))))


def constant(output, attr):
    return fb(2, output) + fb(4, "Constant") + fb(5, attr)


def model(graph):
    return fv(1, 8) + fb(8, fb(1, "") + fv(2, 17)) + fb(7, graph)


def onnx_external_chunks():
    """External data of 512 and 64 bytes (one inside an If's branch), raw
    data beside them, Constants of every value form; external.bin holds the
    bytes."""
    ext = f32s(ramp(128)) + f32s(ramp(16, 3.0))
    inner = (fb(5, tensor("inner_ext", 1, [16], external("external.bin", 512, 64))) +
             fb(2, "then"))
    if_node = (fb(1, "cond") + fb(2, "out") + fb(3, "If_0") + fb(4, "If") +
               fb(5, fb(1, "then_branch") + fv(20, 5) + fb(6, inner)))
    consts = [
        constant("c_value", fb(1, "value") + fv(20, 4) +
                 fb(5, tensor("c_value", 1, [4, 2], fb(9, f32s(ramp(8)))))),
        constant("c_float", fb(1, "value_float") + fv(20, 1) + varint(2 << 3 | 5) +
                 struct.pack("<f", 0.5)),
        constant("c_floats", fb(1, "value_floats") + fv(20, 6) + fb(7, f32s([1, -2.5, 3]))),
        constant("c_int", fb(1, "value_int") + fv(20, 2) + fv(3, 7)),
        constant("c_ints", fb(1, "value_ints") + fv(20, 7) + fb(8, varint(1) + varint(2 ** 64 - 3))),
    ]
    graph = (b"".join(fb(1, c) for c in consts) + fb(1, if_node) + fb(2, "ext") +
             fb(5, tensor("w_ext", 1, [32, 4], external("external.bin", 0, 512))) +
             fb(5, tensor("w_raw", 1, [16, 2], fb(9, f32s(ramp(32))))))
    return model(graph), ext


def tflite_chunky():
    """Tensors that chunk (an f32 matrix, an int8 one with per-channel
    quantization, a 1-D f16) in two subgraphs, a description and metadata."""
    w = tfl.buffer(f32s(ramp(256)))
    q = tfl.buffer(bytes((i * 13) & 0xFF for i in range(128)))
    h = tfl.buffer(b"\x00\x3c" * 48)
    g0 = tfl.subgraph([tfl.tensor("w", tfl.FLOAT32, [32, 8], 1),
                       tfl.tensor("q", tfl.INT8, [4, 32], 2,
                                  tfl.quant(scale=[0.5, 0.25, 0.125, 1.0],
                                            zero_point=[0, 1, -1, 0], qdim=0))])
    g1 = tfl.subgraph([tfl.tensor("h", tfl.FLOAT16, [48], 3)], name="second \"graph\"")
    m = tfl.model([g0, g1], [tfl.buffer(), w, q, h], description="chunks\n\x01",
                  metadata=[("min_runtime_version", 3)], opcodes=[tfl.opcode(9)])
    return tfl.build(m)[0]


# ---- the seeds ------------------------------------------------------------------

def files():
    d = "tests/data"
    out = []
    for n in ("basic", "all_dtypes", "names_escaped", "meta_values", "empty_tensor", "scalar"):
        out.append((SAFETENSORS, "st-" + n, [("m",
                                              read("%s/safetensors/%s.safetensors" % (d, n)))]))
    out.append((SAFETENSORS, "st-chunky", [("m", st_chunky())]))
    for n in ("basic", "align64"):
        out.append((GGUF, "gguf-" + n, [("m", read("%s/gguf/%s.gguf" % (d, n)))]))
    out.append((GGUF, "gguf-unsorted", [("m", gguf_unsorted())]))
    for n in ("f32", "be_f4", "fortran", "scalar", "v2", "v3", "f16", "bool", "i8", "empty", "i64"):
        out.append((NPY, "npy-" + n, [("m", read("%s/npy/%s.npy" % (d, n)))]))
    out.append((NPY, "npy-rows", [("m", npy_rows())]))
    for n in ("types", "descriptor", "fortran", "zip64"):
        out.append((NPZ, "npz-" + n, [("m", read("%s/npz/%s.npz" % (d, n)))]))
    for n in ("zip64", "savez", "compressed"):
        out.append((NPZ, "npz-npy-" + n, [("m", read("%s/npy/%s.npz" % (d, n)))]))
    out.append((NPZ, "npz-stored-blocks", [("m", npz_stored_blocks())]))
    out.append((NPZ, "npz-deflated-rows", [("m", npz_deflated_rows())]))
    for n in ("constants", "control_flow", "metadata", "nested_32", "raw_dtypes",
              "typed_packed", "typed_unpacked"):
        out.append((ONNX, "onnx-" + n, [("m", read("%s/onnx/%s.onnx" % (d, n)))]))
    out.append((ONNX, "onnx-external", [("m", read("%s/onnx/external.onnx" % d)),
                                        ("external.bin", read("%s/onnx/external.bin" % d))]))
    m, ext = onnx_external_chunks()
    out.append((ONNX, "onnx-external-chunks", [("m", m), ("external.bin", ext)]))
    for n in ("dtypes", "subgraphs", "large_model", "deep_nesting", "long_scope",
              "shared_expansion"):
        out.append((TFLITE, "tflite-" + n, [("m", read("%s/tflite/%s.tflite" % (d, n)))]))
    out.append((TFLITE, "tflite-chunky", [("m", tflite_chunky())]))
    # Appended (a seed's control bytes follow its place in this list): a
    # row of every block type basic.gguf lacks, iq*, tq*, mxfp4, nvfp4, q1_0, q2_0.
    out.append((GGUF, "gguf-blocks", [("m", read("%s/gguf/blocks.gguf" % d))]))
    return out


def control(fmt, k, variant):
    """The control bytes (tests/fuzz/model_mutate.h, fuzz_models.c) of the
    k-th seed: a small limit, a write table and transaction, q_compare's
    options; the first variant a limit of 512 bytes or less and good
    metadata into a table that takes only the dtypes it stores, the second
    any limit and any metadata."""
    limit = (k * 3) % 8 if variant == 0 else (k * 5 + 7) % 16
    ctl0 = fmt | (8 if k % 3 == 0 else 0) | limit << 4
    table = 1 + (k + variant) % 3
    mode = (k % 2) if variant == 0 else (k // 2) % 4
    at_small = (k + variant) % 2
    scoped = 1 if fmt in (ONNX, TFLITE) else (k // 2) % 2
    old = (k // 3) % 2
    temp = (k // 5) % 2
    ctl1 = table | mode << 2 | at_small << 4 | scoped << 5 | old << 6 | temp << 7
    ctl2 = (k + variant * 5) % 16 | (k % 3) << 4 | ((k + variant) % 4) << 6
    ctl3 = ((k % 2) + 1) | 16 if variant == 0 else (k * 3 + 1) % 32
    return bytes([ctl0, ctl1, ctl2, ctl3])


def container(ctl, fs):
    b = bytearray(ctl)
    for name, data in fs:
        assert len(name) < 32
        b += bytes([len(name)]) + name.encode() + struct.pack("<I", len(data)) + data
    return bytes(b)


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    n = 0
    for k, (fmt, name, fs) in enumerate(files()):
        for variant in (0, 1):
            with open(os.path.join(OUT, "%s-%d" % (name, variant)), "wb") as f:
                f.write(container(control(fmt, k, variant), fs))
            n += 1
    print("%d seeds in %s" % (n, OUT))


if __name__ == "__main__":
    main()
