#!/usr/bin/env python3
"""gen_file_seeds.py: the committed seeds of build/fuzz_files
(tests/fuzz/corpus/files): tiny valid files of every format, written here by
hand (no numpy, safetensors or gguf package), each prefixed by the byte that
picks the reader (tests/fuzz/fuzz_files.c: bits 0-2 the format, 0-5 a reader, 6-7 detect;
bit 3 the metadata too).  Run from the repository root; its writers of
small files are imported by gen_model_seeds.py."""
import io, json, os, struct, zipfile

OUT = "tests/fuzz/corpus/files"
SAFETENSORS, GGUF, NPY, NPZ, DETECT, META = 0, 1, 2, 3, 6, 8


def npy(descr, shape, data, fortran=False):
    shp = "(" + "".join("%d," % d for d in shape) + ")" if len(shape) == 1 else \
        "(" + ", ".join(str(d) for d in shape) + ")"
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shp)
    pad = 64 - (10 + len(h) + 1) % 64
    h = h + " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data


def npz(arrays):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        for name, blob in arrays:
            z.writestr(name + ".npy", blob)
    return b.getvalue()


def npz_deflated(arrays, descriptor=False):
    """Members deflated as np.savez_compressed does (zlib via zipfile); with
    descriptor, written to a stream zipfile cannot seek in, so each member
    has a data descriptor (general-purpose bit 3)."""
    class Unseekable(io.RawIOBase):
        def __init__(self):
            self.b = bytearray()

        def writable(self):
            return True

        def write(self, data):
            self.b += data
            return len(data)
    b = Unseekable() if descriptor else io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, blob in arrays:
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if descriptor:
                with z.open(info, "w") as f:
                    f.write(blob)
            else:
                z.writestr(info, blob)
    return bytes(b.b) if descriptor else b.getvalue()


def safetensors(tensors, meta=None):
    hdr, off, data = {}, 0, b""
    if meta:
        hdr["__metadata__"] = meta
    for name, dtype, shape, blob in tensors:
        hdr[name] = {"dtype": dtype, "shape": shape,
                     "data_offsets": [off, off + len(blob)]}
        off += len(blob)
        data += blob
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def gstr(s):
    s = s.encode()
    return struct.pack("<Q", len(s)) + s


def gguf(tensors, kv, align=32):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, vtype, payload in kv:
        out += gstr(key) + struct.pack("<I", vtype) + payload
    off, data = 0, b""
    for name, ggtype, dims, blob in tensors:
        out += gstr(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggtype, off)
        data += blob + b"\0" * (-len(blob) % align)
        off = len(data)
    out += b"\0" * (-len(out) % align)
    return out + data


f32 = lambda *v: struct.pack("<%df" % len(v), *v)
def main():
    seeds = {
        "npy-f32-2x3": (NPY, npy("<f4", (2, 3), f32(1, 2, 3, 4, 5, 6))),
        "npy-f64-scalar": (NPY | META, npy("<f8", (), struct.pack("<d", 0.5))),
        "npy-i8-empty": (DETECT, npy("|i1", (0,), b"")),
        "npy-be-fortran": (NPY, npy(">f4", (2, 2), struct.pack(">4f", 1, 2, 3, 4), True)),
        "npz-two": (NPZ | META, npz([("a", npy("<f4", (2,), f32(1, 2))),
                                     ("b", npy("<i4", (1,), struct.pack("<i", 7)))])),
        "npz-detect": (DETECT, npz([("x", npy("<f2", (1,), b"\x00\x3c"))])),
        "npz-deflated": (NPZ, npz_deflated([
            ("a", npy("<f4", (2, 3), f32(1, 2, 3, 4, 5, 6))),
            ("e", npy("|i1", (0,), b"")),
            ("s", npy(">f8", (), struct.pack(">d", 0.5)))])),
        "npz-deflated-long": (DETECT, npz_deflated([
            ("w", npy("<f4", (3000,), f32(*[float(i % 97) for i in range(3000)])))])),
        "npz-descriptor": (NPZ, npz_deflated([("d", npy("<i2", (3,), struct.pack("<3h", 1, -2, 3)))],
                                             descriptor=True)),
        "safetensors-two": (SAFETENSORS | META, safetensors(
            [("w", "F32", [2, 2], f32(1, 2, 3, 4)), ("b", "BF16", [2], b"\x80\x3f\x00\x40")],
            {"format": "pt"})),
        "safetensors-scalar-empty": (DETECT, safetensors(
            [("s", "F64", [], struct.pack("<d", 1.5)), ("e", "I8", [0], b"")])),
        "safetensors-f8": (DETECT | META, safetensors([("q", "F8_E4M3", [4], b"\x38\x40\x44\x48")])),
        "gguf-kv-and-f32": (GGUF | META, gguf(
            [("tok", 0, [3, 2], f32(1, 2, 3, 4, 5, 6))],
            [("general.architecture", 8, gstr("llama")),
             ("general.alignment", 4, struct.pack("<I", 32)),
             ("x.f", 6, struct.pack("<f", 0.25)),
             ("x.arr", 9, struct.pack("<IQ", 5, 3) + struct.pack("<3i", 1, -2, 3)),
             ("x.b", 7, b"\x01")])),
        "gguf-q8_0": (DETECT | META, gguf([("q", 8, [32], b"\x00\x3c" + bytes(range(32)))],
                                          [("a", 10, struct.pack("<Q", 7))])),
        "gguf-strarr": (DETECT | META, gguf([], [("toks", 9, struct.pack("<IQ", 8, 2) + gstr("a") + gstr("bc"))])),
    }
    # TFLite: fixtures of tests/gen_tflite.py (its own FlatBuffer writer); pick 5
    # is the tflite reader, 6 whatever sq_file_detect finds ("TFL3" at byte 4).
    TFLITE, DETECT_ANY = 5, 6
    for name, pick in (("dtypes", TFLITE), ("subgraphs", TFLITE | META),
                       ("large_model", DETECT_ANY | META),
                       ("deep_nesting", TFLITE | META)):
        with open("tests/data/tflite/%s.tflite" % name, "rb") as f:
            seeds["tflite-" + name] = (pick, f.read())
    # ONNX: the reader's own fixtures (tests/gen_onnx.py), read as ONNX with and
    # without the metadata.
    ONNX = 4
    for name, pick in (("typed_unpacked", ONNX), ("typed_packed", ONNX | META),
                       ("control_flow", ONNX | META), ("constants", ONNX),
                       ("raw_dtypes", ONNX), ("metadata", ONNX | META),
                       ("external", ONNX), ("nested_32", ONNX)):
        with open("tests/data/onnx/%s.onnx" % name, "rb") as f:
            seeds["onnx-" + name.replace("_", "-")] = (pick, f.read())
    os.makedirs(OUT, exist_ok=True)
    for name, (pick, blob) in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(bytes([pick]) + blob)
    print("%d seeds in %s" % (len(seeds), OUT))

    # Seeds of build/fuzz_inflate (tests/fuzz/corpus/inflate): u16 skip, u16 len,
    # then a raw DEFLATE stream from zlib (stored, fixed and dynamic blocks).
    import zlib

    INFLATE_OUT = "tests/fuzz/corpus/inflate"
    text = b"".join(b"row %d: 0.%03d\n" % (i, (i * 37) % 1000) for i in range(300))
    inflate_seeds = {}
    for name, level, strategy in (("stored", 0, zlib.Z_DEFAULT_STRATEGY),
                                  ("fixed", 6, zlib.Z_FIXED),
                                  ("dynamic", 9, zlib.Z_DEFAULT_STRATEGY),
                                  ("rle", 6, zlib.Z_RLE)):
        co = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
        inflate_seeds[name] = struct.pack("<HH", 100, 200) + co.compress(text) + co.flush()
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    inflate_seeds["empty"] = struct.pack("<HH", 0, 0) + co.compress(b"") + co.flush()
    os.makedirs(INFLATE_OUT, exist_ok=True)
    for name, blob in inflate_seeds.items():
        with open(os.path.join(INFLATE_OUT, name), "wb") as f:
            f.write(blob)
    print("%d seeds in %s" % (len(inflate_seeds), INFLATE_OUT))


if __name__ == "__main__":
    main()
