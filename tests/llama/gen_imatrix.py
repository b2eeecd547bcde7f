#!/usr/bin/env python3
"""gen_imatrix.py MODEL OUT [--seed S] [--skip NAME] [--wrong NAME] [--legacy]

A GGUF importance matrix for MODEL (a GGUF file) in llama.cpp's format, of
random statistics: for each weight of 2 or more dimensions, NAME.in_sum2
(float32, ne = [ne0, matrices]: one matrix, or one per expert) and
NAME.counts (float32, ne = [1, matrices]), with general.type "imatrix",
imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size.  Counts are
whole numbers; the last expert of each 3-D weight has count 0, which
llama-quantize reads as importance 1.  --skip leaves NAME out (llama.cpp
then quantizes it without importance); --wrong gives NAME a row too short.

--legacy writes the same statistics in the format before GGUF
(imatrix.dat: per entry its name, ncall and mean x ncall, then the chunk
count and the dataset's name), with ncall the entry's largest count.

Also importable: importance(path) gives what llama-quantize passes to
llama_model_quantize for each entry (sum / count in float32, 1 where the
count is 0), for tests/llama/quantize_check.py.
"""
import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_llama_gguf import gguf_kv, gguf_string, read_tensor_infos  # noqa: E402


def write_legacy(model, out, seed=1):
    rng = np.random.default_rng(seed)
    with open(out, "wb") as f:
        entries = []
        for name, ne, _t in read_tensor_infos(model):
            if len(ne) < 2 or not name.endswith("weight"):
                continue
            nmat = ne[2] if len(ne) >= 3 else 1
            ncall = int(rng.integers(1, 300))
            vals = (rng.random(ne[0] * nmat, dtype=np.float32) * 4 + 0.01) * np.float32(ncall)
            entries.append((name, ncall, vals.astype("<f4")))
        f.write(struct.pack("<i", len(entries)))
        for name, ncall, vals in entries:
            b = name.encode()
            f.write(struct.pack("<i", len(b)) + b + struct.pack("<ii", ncall, len(vals)))
            f.write(vals.tobytes())
        ds = b"sqlite-quant random"
        f.write(struct.pack("<i", 7) + struct.pack("<i", len(ds)) + ds)


def importance_legacy(path):
    """{name: float32 array} from a legacy file: values / ncall."""
    raw = open(path, "rb").read()
    n, = struct.unpack_from("<i", raw, 0)
    pos, out = 4, {}
    for _ in range(n):
        ln, = struct.unpack_from("<i", raw, pos)
        name = raw[pos + 4:pos + 4 + ln].decode()
        pos += 4 + ln
        ncall, nval = struct.unpack_from("<ii", raw, pos)
        pos += 8
        v = np.frombuffer(raw, dtype="<f4", count=nval, offset=pos).copy()
        pos += 4 * nval
        out[name] = (v / np.float32(ncall)).astype(np.float32) if ncall > 0 else v
    return out


def write(model, out, seed=1, skip=(), wrong=()):
    rng = np.random.default_rng(seed)
    tensors = []
    for name, ne, _t in read_tensor_infos(model):
        if len(ne) < 2 or not name.endswith("weight") or name in skip:
            continue
        ne0 = ne[0] - (32 if name in wrong else 0)
        nmat = ne[2] if len(ne) >= 3 else 1
        counts = rng.integers(1, 300, size=nmat).astype(np.float32)
        if nmat > 1:
            counts[-1] = 0
        sums = (rng.random((nmat, ne0), dtype=np.float32) * 4 + 0.01) * counts[:, None]
        tensors.append((name + ".in_sum2", [ne0, nmat], sums.astype(np.float32)))
        tensors.append((name + ".counts", [1, nmat], counts))
    kvs = [gguf_kv("general.type", "str", "imatrix"),
           gguf_kv("imatrix.datasets", ("arr", "str"), ["sqlite-quant random"]),
           gguf_kv("imatrix.chunk_count", "u32", 7),
           gguf_kv("imatrix.chunk_size", "u32", 512)]
    align, infos, blobs, offset = 32, b"", [], 0
    for name, ne, a in tensors:
        # ggml_n_dims: trailing 1s are not stored
        while len(ne) > 1 and ne[-1] == 1:
            ne = ne[:-1]
        data = np.ascontiguousarray(a, dtype="<f4").tobytes()
        infos += gguf_string(name) + struct.pack("<I", len(ne))
        infos += b"".join(struct.pack("<q", n) for n in ne)
        infos += struct.pack("<IQ", 0, offset)
        pad = -len(data) % align
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * (-len(head) % align)
    with open(out, "wb") as f:
        f.write(head)
        for b in blobs:
            f.write(b)


def importance(path):
    """{name: float32 array} as llama-quantize computes it from the file."""
    with open(path, "rb") as f:
        raw = f.read()
    where = {n: (ne, off) for n, ne, _t, off in read_tensor_infos(path, offsets=True)}

    def arr(name):
        ne, off = where[name]
        return np.frombuffer(raw, dtype="<f4", count=int(np.prod(ne)), offset=off)
    out = {}
    for name in where:
        if not name.endswith(".in_sum2"):
            continue
        base = name[:-8]
        sums, counts = arr(name), arr(base + ".counts")
        ne0 = len(sums) // len(counts)
        v = np.empty(len(sums), dtype=np.float32)
        for j, c in enumerate(counts):
            row = sums[j * ne0:(j + 1) * ne0]
            v[j * ne0:(j + 1) * ne0] = row / np.float32(c) if c > 0 else np.float32(1)
        out[base] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--wrong", action="append", default=[])
    ap.add_argument("--legacy", action="store_true")
    a = ap.parse_args()
    if a.legacy:
        write_legacy(a.model, a.out, a.seed)
    else:
        write(a.model, a.out, a.seed, a.skip, a.wrong)


if __name__ == "__main__":
    main()
