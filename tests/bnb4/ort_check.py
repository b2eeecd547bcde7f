#!/usr/bin/python3
"""ort_check.py: q_bnb4_dequantize against ONNX Runtime's MatMulBnb4.

    /usr/bin/python3 tests/bnb4/ort_check.py EXT [--seed N] [--write FILE]

For each case (NF4 and FP4; block sizes 32 to 256, the ones MatMulBnb4
takes (it refuses 512 and up); ragged and odd counts;
every code byte under absmax 1 and under other scales) the extension EXT
(dist/quant.so) quantizes a random N x K weight (the transposed [K, N] B
that MatMulBnb4 takes: its N*K weights row after row), a hand-written ONNX
graph holds the codes and the absmax as MatMulBnb4's B and absmax (com.microsoft,
quant_type 0 FP4 / 1 NF4, first weight in the high nibble), and
tests/bnb4/ort_run.mjs runs it in onnxruntime-node (build/onnxruntime, from
examples/fetch_onnxruntime.sh) with an identity A: Y is then the decoded
weights, transposed.  Each must equal q_bnb4_dequantize's float32 bit for
bit, but for the sign of a zero (a GEMM's sum gives +0 for -0).  With
--write FILE it writes the cases' codes, absmax and ORT's Y as the Tcl
vectors tests/bnb4.test replays without ORT.  Exits non-zero on any
difference.  Needs Debian's python3-numpy and node.
"""
import json
import os
import sqlite3
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from onnx_wire import f_bytes, f_varint  # noqa: E402 (tests/onnx_wire.py, after the path)


def tensor(name, dtype, dims, raw):
    return (b"".join(f_varint(1, d) for d in dims) + f_varint(2, dtype) +
            f_bytes(8, name) + f_bytes(9, raw))


def value_info(name, dims):
    shape = b"".join(f_bytes(1, f_varint(1, d)) for d in dims)
    ttype = f_varint(1, 1) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, ttype))


def attr_int(name, v):
    return f_bytes(1, name) + f_varint(3, v) + f_varint(20, 2)


def model(K, N, block, quant_type, codes, absmax):
    node = (f_bytes(1, "A") + f_bytes(1, "B") + f_bytes(1, "absmax") +
            f_bytes(2, "Y") + f_bytes(4, "MatMulBnb4") + f_bytes(7, "com.microsoft") +
            f_bytes(5, attr_int("K", K)) + f_bytes(5, attr_int("N", N)) +
            f_bytes(5, attr_int("block_size", block)) +
            f_bytes(5, attr_int("quant_type", quant_type)))
    graph = (f_bytes(1, node) + f_bytes(2, "bnb4") +
             f_bytes(5, tensor("B", 2, [len(codes)], codes)) +
             f_bytes(5, tensor("absmax", 1, [len(absmax) // 4], absmax)) +
             f_bytes(11, value_info("A", [K, K])) +
             f_bytes(12, value_info("Y", [K, N])))
    return (f_varint(1, 8) +
            f_bytes(8, f_bytes(1, "") + f_varint(2, 17)) +
            f_bytes(8, f_bytes(1, "com.microsoft") + f_varint(2, 1)) +
            f_bytes(7, graph))


def cases(db, rng):
    out = []
    shapes = [(64, 4, 64), (37, 3, 32), (128, 8, 128), (256, 4, 256),
              (64, 33, 256), (256, 5, 128), (100, 7, 64), (33, 1, 32)]
    for kind in ("nf4", "fp4"):
        for K, N, block in shapes:
            w = (rng.standard_normal(N * K) * rng.choice([0.02, 1.0, 30.0])).astype("<f4")
            x = w.tobytes()
            codes = db.execute("SELECT q_bnb4_quantize(?, ?, ?)", (x, kind, block)).fetchone()[0]
            am = db.execute("SELECT q_bnb4_absmax(?, ?)", (x, block)).fetchone()[0]
            out.append((f"{kind}-{K}x{N}-b{block}", kind, block, K, N, codes, am))
        # every code byte: absmax 1 (the table itself), then other scales
        codes = bytes(range(256)) * 2
        am = np.array([1.0] * 8 + [0.37, -2.5, 1e-30, 3.4e38, 0.0, 65504.0, 1e-38, 7.0],
                      dtype="<f4").tobytes()
        out.append((f"{kind}-all-codes", kind, 64, 64, 16, codes, am))
    return out


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    ext = args[0]
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else \
        int.from_bytes(os.urandom(4), "little")
    write = args[args.index("--write") + 1] if "--write" in args else None
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    rng = np.random.default_rng(seed)
    all_cases = cases(db, rng)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        manifest = []
        for name, kind, block, K, N, codes, am in all_cases:
            with open(os.path.join(tmp, name + ".onnx"), "wb") as f:
                f.write(model(K, N, block, 1 if kind == "nf4" else 0, codes, am))
            manifest.append({"name": name, "K": K, "N": N})
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f)
        subprocess.run(["node", os.path.join(HERE, "ort_run.mjs"), tmp,
                        os.environ.get("ORT_DIR", "build/onnxruntime")], check=True)
        rows = []
        for name, kind, block, K, N, codes, am in all_cases:
            y = np.fromfile(os.path.join(tmp, name + ".y"), dtype="<f4").reshape(K, N)
            ort = np.ascontiguousarray(y.T).reshape(-1)
            ours = np.frombuffer(db.execute(
                "SELECT q_bnb4_dequantize(?, ?, ?, ?, ?)",
                (codes, am, kind, block, N * K)).fetchone()[0], dtype="<f4")
            a = ort.view("<u4") & np.uint32(0x7FFFFFFF)
            b = ours.view("<u4")
            same = np.where(a == 0, (b & np.uint32(0x7FFFFFFF)) == 0, ort.view("<u4") == b)
            if not same.all():
                i = int(np.argmin(same))
                print(f"ort_check: {name}: {int((~same).sum())} of {same.size} differ, first "
                      f"weight {i}: ORT {ort[i]!r} ours {ours[i]!r}", file=sys.stderr)
                bad += 1
            rows.append(f"  {{{name} {kind} {block} {N * K} {codes.hex()} {am.hex()} "
                        f"{ort.astype('<f4').tobytes().hex()}}}")
    print(f"ort_check: seed {seed} (--seed {seed} reruns it): {len(all_cases) - bad} of "
          f"{len(all_cases)} MatMulBnb4 decodings equal")
    print(f"ort_check: {len(all_cases) - bad} passed, {bad} failed")
    if write:
        with open(write, "w") as f:
            f.write("# Generated by tests/bnb4/ort_check.py from onnxruntime-node 1.30.0's "
                    "MatMulBnb4: do not edit.\n# name kind block count codes absmax "
                    "ORT's decoded weights\nset bnb4_ort {\n" + "\n".join(rows) + "\n}\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
