#!/usr/bin/env python3
"""run_check.py --lib DIR --cli dist/sqlite-quant [--seed S] [--json FILE]

The files `sqlite-quant quantize` writes run in llama.cpp: a small llama
model of random weights (tests/llama/gen_llama_gguf.py; f16, 4 layers) is
quantized by the tool under several mixtures (one with an importance
matrix), each file is loaded with llama_model_load_from_file of
libllama.v0.5.0.so (the baseline CPU backend of the same package) and
fed a fixed sequence of 32 tokens one at a time.  Checked:
  - every logit of every file at every position is finite;
  - the next-token distribution stays near the f16 model's: the mean KL
    divergence KL(f16 || quantized) over the positions grows as the bits
    shrink (Q8_0 < Q6_K < Q4_K_M < Q3_K_M < Q2_K), and Q8_0's is below
    0.01 nats.
The table of KL divergences is printed (and with --json written); the last
line is "run-check: N passed, N failed".
"""
import argparse
import ctypes
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_imatrix  # noqa: E402
import gen_llama_gguf  # noqa: E402


class Runner:
    """llama.cpp's model loading and decoding through ctypes.  The parameter
    structs are taken by value from llama.cpp's own default functions into
    a buffer larger than them (512 bytes; structs this size are passed in
    memory, so the callee reads only its own fields)."""

    def __init__(self, lib):
        for name in ("libggml-base.so", "libggml.v0.5.0.so"):
            ctypes.CDLL(os.path.join(lib, name), mode=ctypes.RTLD_GLOBAL)
        g = ctypes.CDLL(os.path.join(lib, "libggml.v0.5.0.so"))
        g.ggml_backend_load.argtypes = [ctypes.c_char_p]
        g.ggml_backend_load.restype = ctypes.c_void_p
        L = ctypes.CDLL(os.path.join(lib, "libllama.v0.5.0.so"))
        self.log_cb = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p,
                                       ctypes.c_void_p)(lambda *a: None)
        L.llama_log_set(self.log_cb, None)
        # The baseline x86-64 CPU backend, whatever this CPU has: the same
        # arithmetic on every machine.
        if not g.ggml_backend_load(os.path.join(lib, "libggml-cpu-x64.so").encode()):
            sys.exit("run-check: cannot load libggml-cpu-x64.so")

        class Big(ctypes.Structure):
            _fields_ = [("raw", ctypes.c_ubyte * 512)]
        self.Big = Big
        for f, args, res in [
            ("llama_model_default_params", [], Big),
            ("llama_context_default_params", [], Big),
            ("llama_model_load_from_file", [ctypes.c_char_p, Big], ctypes.c_void_p),
            ("llama_init_from_model", [ctypes.c_void_p, Big], ctypes.c_void_p),
            ("llama_batch_get_one", [ctypes.POINTER(ctypes.c_int32), ctypes.c_int32], Big),
            ("llama_decode", [ctypes.c_void_p, Big], ctypes.c_int32),
            ("llama_get_logits", [ctypes.c_void_p], ctypes.POINTER(ctypes.c_float)),
            ("llama_model_get_vocab", [ctypes.c_void_p], ctypes.c_void_p),
            ("llama_vocab_n_tokens", [ctypes.c_void_p], ctypes.c_int32),
            ("llama_free", [ctypes.c_void_p], None),
            ("llama_model_free", [ctypes.c_void_p], None),
        ]:
            fn = getattr(L, f)
            fn.argtypes, fn.restype = args, res
        L.llama_backend_init()
        self.L = L

    def logits(self, path, tokens):
        """The logits after each token of tokens, decoded one at a time."""
        L = self.L
        model = L.llama_model_load_from_file(path.encode(), L.llama_model_default_params())
        if not model:
            raise RuntimeError(f"llama.cpp cannot load {path}")
        # llama.cpp's defaults (a context of 512 tokens) on one thread: the
        # machine may be busy, and ggml's threads wait spinning.  In v0.5.0
        # n_threads and n_threads_batch are the int32s at bytes 28 and 32,
        # both GGML_DEFAULT_N_THREADS (4) by default; checked before set.
        raw = bytearray(bytes(L.llama_context_default_params().raw))
        if struct.unpack_from("<ii", raw, 28) == (4, 4):
            struct.pack_into("<ii", raw, 28, 1, 1)
        ctx = L.llama_init_from_model(model, self.Big.from_buffer_copy(bytes(raw)))
        if not ctx:
            L.llama_model_free(model)
            raise RuntimeError(f"llama.cpp cannot make a context for {path}")
        n_vocab = L.llama_vocab_n_tokens(L.llama_model_get_vocab(model))
        out = []
        try:
            for t in tokens:
                one = (ctypes.c_int32 * 1)(t)
                if L.llama_decode(ctx, L.llama_batch_get_one(one, 1)) != 0:
                    raise RuntimeError(f"llama_decode failed on {path}")
                lg = L.llama_get_logits(ctx)
                out.append([lg[i] for i in range(n_vocab)])
        finally:
            L.llama_free(ctx)
            L.llama_model_free(model)
        return out


def softmax(row):
    m = max(row)
    e = [math.exp(x - m) for x in row]
    s = sum(e)
    return [x / s for x in e]


def kl(p, q):
    return sum(a * (math.log(a) - math.log(b)) for a, b in zip(p, q) if a > 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time()) % 100000
    print(f"run-check: seed {seed} (--seed {seed} repeats this run)")
    runner = Runner(a.lib)
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok   {name}")
        else:
            failed += 1
            print(f"FAIL {name}{': ' + detail if detail else ''}")

    with tempfile.TemporaryDirectory(prefix="run-check.") as work:
        src = os.path.join(work, "model-f16.gguf")
        gen_llama_gguf.main([src, "--untied", "--layers", "4", "--embd", "256",
                             "--ff", "512", "--vocab", "384", "--seed", str(seed)])
        imatrix = os.path.join(work, "model.imatrix")
        gen_imatrix.write(src, imatrix, seed)
        tokens = [1] + [(seed * 7 + 37 * i) % 381 + 3 for i in range(31)]
        reference = [softmax(r) for r in runner.logits(src, tokens)]
        mixtures = [("Q8_0", []), ("Q6_K", []), ("Q5_K_M", []), ("Q4_K_M", []),
                    ("Q4_0", []), ("IQ4_XS", []), ("Q3_K_M", []), ("Q2_K", []),
                    ("IQ2_XS", ["--imatrix", imatrix])]
        table = {}
        for ftype, opts in mixtures:
            out = os.path.join(work, f"model-{ftype}.gguf")
            p = subprocess.run([a.cli, "quantize", "--quiet"] + opts + [src, out, ftype],
                               capture_output=True, text=True)
            if p.returncode != 0:
                check(f"{ftype}: quantized", False, p.stderr.strip())
                continue
            try:
                rows = runner.logits(out, tokens)
            except RuntimeError as e:
                check(f"{ftype}: loads and runs in llama.cpp", False, str(e))
                continue
            finite = all(math.isfinite(x) for r in rows for x in r)
            check(f"{ftype}: loads in llama.cpp, {len(rows)} positions of finite logits", finite)
            if not finite:
                continue
            d = sum(kl(p_, softmax(r)) for p_, r in zip(reference, rows)) / len(rows)
            table[ftype] = {"kl_mean": d, "bytes": os.path.getsize(out),
                            "imatrix": bool(opts)}
        print("\n| mixture | file bytes | mean KL(f16 || quantized), nats |")
        print("|---|---|---|")
        for ftype, r in table.items():
            print(f"| {ftype}{' (imatrix)' if r['imatrix'] else ''} | {r['bytes']} | {r['kl_mean']:.6f} |")
        print()
        order = ["Q8_0", "Q6_K", "Q4_K_M", "Q3_K_M", "Q2_K"]
        if all(f in table for f in order):
            ks = [table[f]["kl_mean"] for f in order]
            check("KL grows as the bits shrink: " + " < ".join(order),
                  all(x < y for x, y in zip(ks, ks[1:])),
                  ", ".join(f"{f} {k:.6f}" for f, k in zip(order, ks)))
            check("Q8_0's KL below 0.01 nats", ks[0] < 0.01, f"{ks[0]:.6f}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"seed": seed, "tokens": tokens, "mixtures": table}, f, indent=1)
    print(f"run-check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
