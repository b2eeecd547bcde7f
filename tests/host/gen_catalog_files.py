#!/usr/bin/env python3
"""gen_catalog_files.py: model files of the SQL catalog (tests/host/queries.sql)
that take the readers into paths no other fixture there reaches, written into
tests/host/files/ (committed; run from the repository root to write them
again, byte for byte):

  stored.npz       a member deflated as three DEFLATE stored blocks (written
                   here block by block, the way zlib's level 0 does) and a
                   member stored without compression
  unsorted.gguf    three tensors whose infos list their data in the reverse
                   of file order (the overlap check sorts them), NaN and
                   infinite float metadata, an array with a NaN
  overlap.gguf     two tensors whose data overlap
  external.onnx    raw data beside external data in external.bin: a
  external.bin     [32,4] f32 in the main graph and a [16] f32 in an If's
                   branch, so a small length limit cuts them into chunks,
                   each read from its offset in external.bin

Standard library only."""
import io
import os
import struct
import sys
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fuzz"))
from gen_file_seeds import gstr, npy  # noqa: E402
from gen_model_seeds import external, fb, fv, model, ramp, tensor  # noqa: E402

OUT = os.path.join(HERE, "files")


def f32s(values):
    return struct.pack("<%df" % len(values), *values)


def stored_blocks(data, sizes):
    """Raw DEFLATE of stored blocks of the given sizes (the last takes the
    rest and is final)."""
    out, i = b"", 0
    for k, n in enumerate(sizes + [len(data)]):
        part = data[i:i + n] if k < len(sizes) else data[i:]
        final = k == len(sizes)
        out += bytes([1 if final else 0]) + struct.pack("<HH", len(part), len(part) ^ 0xFFFF) + part
        i += len(part)
    return out


def npz_stored_blocks():
    w = npy("<f4", (40, 8), f32s(ramp(320)))
    s = npy("<i2", (3,), struct.pack("<3h", 7, -8, 9))
    members = []
    raw = stored_blocks(w, [500, 700])
    assert zlib.decompress(raw, -15) == w
    members.append((b"w.npy", 8, raw, w))
    members.append((b"s.npy", 0, s, s))
    out, central = b"", b""
    for name, method, body, plain in members:
        crc = zlib.crc32(plain)
        off = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, method, 0, 0x21, crc,
                           len(body), len(plain), len(name), 0) + name + body
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x0314, 20, 0, method, 0,
                               0x21, crc, len(body), len(plain), len(name), 0, 0, 0, 0,
                               0x81800000, off) + name
    end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members), len(members),
                      len(central), len(out), 0)
    data = out + central + end
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.read("w.npy") == members[0][3] and z.testzip() is None
    return data


def gguf_file(infos, blobs, kv):
    """infos: (name, dims, ggml type, index of its blob); the blobs are laid
    out in order, 32-aligned, and each info points at its blob."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kv))
    for key, vtype, payload in kv:
        out += gstr(key) + struct.pack("<I", vtype) + payload
    offs, off = [], 0
    for b in blobs:
        offs.append(off)
        off += len(b) + (-len(b) % 32)
    for name, dims, ggtype, k in infos:
        out += gstr(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggtype, offs[k] if isinstance(k, int) else k[0])
    out += b"\0" * (-len(out) % 32)
    for b in blobs:
        out += b + b"\0" * (-len(b) % 32)
    return out


NAN32 = struct.pack("<I", 0x7FC00000)


def gguf_unsorted():
    blobs = [f32s(ramp(8, 2.0)), f32s(ramp(16, 0.5)), f32s(ramp(24))]
    kv = [("general.architecture", 8, gstr("llama")),
          ("t.nan", 6, NAN32),
          ("t.inf", 6, struct.pack("<f", float("inf"))),
          ("t.ninf", 12, struct.pack("<d", float("-inf"))),
          ("t.arr", 9, struct.pack("<IQ", 6, 3) + NAN32 + struct.pack("<ff", 1.5, float("-inf")))]
    # the infos name the last blob first
    return gguf_file([("a", [24], 0, 2), ("b", [16], 0, 1), ("c", [8], 0, 0)], blobs, kv)


def gguf_overlap():
    blobs = [f32s(ramp(16))]
    # b starts 32 bytes into a's 64
    return gguf_file([("a", [16], 0, 0), ("b", [4], 0, (32,))], blobs, [])


def onnx_external():
    ext = f32s(ramp(128)) + f32s(ramp(16, 3.0))
    inner = (fb(5, tensor("inner_ext", 1, [16], external("external.bin", 512, 64))) +
             fb(2, "then"))
    if_node = (fb(1, "cond") + fb(2, "out") + fb(3, "If_0") + fb(4, "If") +
               fb(5, fb(1, "then_branch") + fv(20, 5) + fb(6, inner)))
    graph = (fb(1, if_node) + fb(2, "ext") +
             fb(5, tensor("w_ext", 1, [32, 4], external("external.bin", 0, 512))) +
             fb(5, tensor("w_raw", 1, [4, 2], fb(9, f32s(ramp(8))))))
    return model(graph), ext


def main():
    files = {
        "stored.npz": npz_stored_blocks(),
        "unsorted.gguf": gguf_unsorted(),
        "overlap.gguf": gguf_overlap(),
    }
    files["external.onnx"], files["external.bin"] = onnx_external()
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print("%d files in %s" % (len(files), OUT))


if __name__ == "__main__":
    main()
