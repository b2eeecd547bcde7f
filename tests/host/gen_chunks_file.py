#!/usr/bin/env python3
"""gen_chunks_file.py: tests/host/files/chunks.safetensors, two f32 tensors
bigger than the 21000-byte SQLITE_LIMIT_LENGTH the catalog
(tests/host/queries.sql) lowers the limit to, so q_tensors_file gives them
in chunks (docs/FORMATS.md#tensors-bigger-than-a-blob).  Standard library
only; the values are exact in float32 and differ from row to row."""
import json
import os
import struct

TENSORS = [("w", [24, 256]), ("v", [6000])]


def values(name, shape):
    n = 1
    for d in shape:
        n *= d
    cols = shape[-1] if len(shape) > 1 else 1
    k = 1 if name == "w" else 3
    return [((i * 37 + k) % 201 - 100) / 64.0 * (1 + (i // cols) % 5)
            for i in range(n)]


def main():
    header, data, off = {}, b"", 0
    for name, shape in TENSORS:
        b = struct.pack("<%df" % len(values(name, shape)), *values(name, shape))
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [off, off + len(b)]}
        data += b
        off += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files",
                       "chunks.safetensors")
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
