#!/usr/bin/env python3
"""quantize_check.py --lib DIR --cli dist/sqlite-quant [--seed S] [--keep DIR]

`sqlite-quant quantize IN OUT FTYPE [options]` against llama.cpp's own
llama_model_quantize (libllama.v0.5.0.so of npm @node-llama-cpp/linux-x64
3.22.1, which `sh tests/ggml/fetch_ggml.sh --llama DIR` puts in DIR): the
same small llama-architecture models (tests/llama/gen_llama_gguf.py, fresh
random weights for each seed: a new one each run unless --seed), the same
ftype and options, and the two output files must be the same bytes.  Where
llama.cpp refuses (an IQ type without an imatrix, a row no type fits), the
tool must refuse too.

Each case prints one line; the last line is "quantize-check: N passed, N
failed".  Exit status 1 on any failure.
"""
import argparse
import ctypes
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_imatrix  # noqa: E402
import gen_llama_gguf  # noqa: E402

# ggml's type ids (ggml.h), for the options that take a type.
GGML_TYPE_IDS = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6,
                 "q5_1": 7, "q8_0": 8, "q2_K": 10, "q3_K": 11, "q4_K": 12,
                 "q5_K": 13, "q6_K": 14, "iq4_nl": 20, "bf16": 30}
FTYPE_IDS = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8,
             "Q5_1": 9, "Q2_K": 10, "Q3_K_S": 11, "Q3_K_M": 12, "Q3_K_L": 13,
             "Q4_K_S": 14, "Q4_K_M": 15, "Q5_K_S": 16, "Q5_K_M": 17,
             "Q6_K": 18, "IQ2_XXS": 19, "IQ2_XS": 20, "Q2_K_S": 21,
             "IQ3_XS": 22, "IQ3_XXS": 23, "IQ1_S": 24, "IQ4_NL": 25,
             "IQ3_S": 26, "IQ3_M": 27, "IQ2_S": 28, "IQ2_M": 29,
             "IQ4_XS": 30, "IQ1_M": 31, "BF16": 32, "TQ1_0": 36,
             "TQ2_0": 37, "MXFP4_MOE": 38}


class Llama:
    """llama_model_quantize through ctypes.  The parameter struct is taken
    from llama_model_quantize_default_params as bytes and only the fields
    llama.h puts at fixed offsets are changed (v0.5.0: 64 bytes)."""

    def __init__(self, lib):
        for name in ("libggml-base.so", "libggml.v0.5.0.so", "libggml-cpu-x64.so"):
            ctypes.CDLL(os.path.join(lib, name), mode=ctypes.RTLD_GLOBAL)
        self.L = ctypes.CDLL(os.path.join(lib, "libllama.v0.5.0.so"))

        class Params(ctypes.Structure):
            _fields_ = [("raw", ctypes.c_ubyte * 64)]
        self.Params = Params
        self.L.llama_model_quantize_default_params.restype = Params
        self.L.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                ctypes.POINTER(Params)]
        self.L.llama_model_quantize.restype = ctypes.c_uint32
        # Quiet: llama.cpp logs every tensor.
        self.log_cb = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p,
                                       ctypes.c_void_p)(lambda *a: None)
        self.L.llama_log_set(self.log_cb, None)
        self.L.llama_backend_init()

    def quantize(self, src, dst, ftype, opts, nthread=1):
        b = bytearray(bytes(self.L.llama_model_quantize_default_params().raw))
        struct.pack_into("<i", b, 0, nthread)
        keep = []
        if ftype == "COPY":
            b[0x12] = 1                                  # only_copy
        else:
            struct.pack_into("<i", b, 4, FTYPE_IDS[ftype])
        i = 0
        tt, kv = [], []
        imatrix, include, exclude = None, [], []
        while i < len(opts):
            o = opts[i]
            if o == "--pure":
                b[0x13] = 1
            elif o == "--leave-output-tensor":
                b[0x11] = 0
            elif o == "--allow-requantize":
                b[0x10] = 1
            elif o == "--output-tensor-type":
                i += 1
                struct.pack_into("<i", b, 8, GGML_TYPE_IDS[opts[i]])
            elif o == "--token-embedding-type":
                i += 1
                struct.pack_into("<i", b, 12, GGML_TYPE_IDS[opts[i]])
            elif o == "--tensor-type":
                i += 1
                pat, t = opts[i].rsplit("=", 1)
                tt.append((pat, GGML_TYPE_IDS[t]))
            elif o == "--override-kv":
                i += 1
                kv.append(opts[i])
            elif o == "--imatrix":
                i += 1
                imatrix = opts[i]
            elif o in ("--include-weights", "--exclude-weights"):
                i += 1
                (include if o == "--include-weights" else exclude).append(opts[i])
            else:
                raise ValueError(o)
            i += 1
        if imatrix:
            # What llama-quantize does with --imatrix: sum / count per
            # entry, filtered by --include/--exclude-weights, passed as
            # llama_model_imatrix_data {name, data, size}, and four keys
            # recorded after the user's overrides.
            values = (gen_imatrix.importance_legacy(imatrix) if imatrix.endswith(".dat")
                      else gen_imatrix.importance(imatrix))
            for name in exclude:
                values = {k: v for k, v in values.items() if name not in k}
            if include:
                values = {k: v for k, v in values.items() if any(n in k for n in include)}

            class IM(ctypes.Structure):
                _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p),
                            ("size", ctypes.c_size_t)]
            arr = (IM * (len(values) + 1))()
            for k, (name, v) in enumerate(values.items()):
                buf = (ctypes.c_float * len(v)).from_buffer_copy(v.astype("<f4").tobytes())
                keep.append(buf)
                arr[k].name, arr[k].data, arr[k].size = name.encode(), ctypes.addressof(buf), len(v)
            keep.append(arr)
            struct.pack_into("<Q", b, 0x18, ctypes.addressof(arr))
            kv.append(f"quantize.imatrix.file=str:{imatrix[:127]}")
            kv.append("quantize.imatrix.dataset=str:sqlite-quant random")
            kv.append(f"quantize.imatrix.entries_count=int:{len(values)}")
            kv.append("quantize.imatrix.chunks_count=int:7")
        if tt:
            class TT(ctypes.Structure):
                _fields_ = [("pattern", ctypes.c_char_p), ("type", ctypes.c_int)]
            arr = (TT * (len(tt) + 1))()
            for k, (pat, t) in enumerate(tt):
                arr[k].pattern, arr[k].type = pat.encode(), t
            keep.append(arr)
            struct.pack_into("<Q", b, 0x28, ctypes.addressof(arr))
        if kv:
            # llama_model_kv_override: tag, char key[128], then a union of
            # int64 / double / bool / char[128] at offset 136; 264 bytes.
            buf = ctypes.create_string_buffer(264 * (len(kv) + 1))
            for k, text in enumerate(kv):
                key, rest = text.split("=", 1)
                kind, val = rest.split(":", 1)
                base = 264 * k
                tag = {"int": 0, "float": 1, "bool": 2, "str": 3}[kind]
                struct.pack_into("<i", buf, base, tag)
                buf[base + 4:base + 4 + len(key)] = key.encode()
                if kind == "int":
                    struct.pack_into("<q", buf, base + 136, int(val))
                elif kind == "float":
                    struct.pack_into("<d", buf, base + 136, float(val))
                elif kind == "bool":
                    struct.pack_into("<?", buf, base + 136, val == "true")
                else:
                    buf[base + 136:base + 136 + len(val)] = val.encode()
            keep.append(buf)
            struct.pack_into("<Q", b, 0x20, ctypes.addressof(buf))
        p = self.Params.from_buffer_copy(bytes(b))
        return self.L.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(p))


def first_difference(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", default=None, help="keep the files in this directory")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time()) % 100000
    print(f"quantize-check: seed {seed} (--seed {seed} repeats this run)")
    llama = Llama(a.lib)
    work = a.keep or tempfile.mkdtemp(prefix="quantize-check.")
    os.makedirs(work, exist_ok=True)

    models = {
        "f16": ["--untied"],
        "f16-tied": [],
        "bf16": ["--untied", "--dtype", "bf16"],
        "f32-odd": ["--untied", "--dtype", "f32", "--embd", "288", "--ff", "576",
                    "--heads", "4", "--kv-heads", "2"],
        "f16-80": ["--untied", "--embd", "80", "--ff", "160", "--heads", "2",
                   "--kv-heads", "1"],
        "moe8": ["--untied", "--experts", "8", "--ff", "128"],
        # 16 layers: use_more_bits and the n/8, n/16 layer rules have room
        "deep": ["--untied", "--layers", "16", "--embd", "256", "--ff", "256",
                 "--vocab", "300"],
        # llama's 70B rule: 80 layers of grouped attention (narrow, to stay small)
        "llama80": ["--untied", "--layers", "80", "--embd", "256", "--ff", "256",
                    "--vocab", "260"],
        # 8 heads over 2: grouped-query attention of 4
        "gqa4": ["--untied", "--heads", "8", "--kv-heads", "2"],
    }
    paths = {}
    for k, (name, args) in enumerate(models.items()):
        paths[name] = os.path.join(work, name + ".gguf")
        gen_llama_gguf.main([paths[name], "--seed", str(seed + k)] + args)

    mixtures = ["F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0",
                "Q6_K", "TQ1_0", "TQ2_0", "MXFP4_MOE", "Q2_K", "Q3_K_S", "Q3_K_M",
                "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "IQ4_NL",
                "IQ4_XS", "IQ3_S", "IQ3_M"]
    kmix = ["Q2_K", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_M", "IQ4_NL",
            "IQ3_M"]
    pures = ["Q2_K", "Q3_K_S", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_M",
             "Q6_K", "IQ4_NL", "IQ4_XS", "IQ3_S", "IQ3_M", "TQ1_0", "Q4_0",
             "MXFP4_MOE"]
    cases = []
    for f in mixtures:
        cases.append(("f16", f, []))
        cases.append(("f16-tied", f, []))
    for f in ["Q4_0", "Q8_0", "F16", "MXFP4_MOE"]:
        cases.append(("bf16", f, []))
        cases.append(("moe8", f, []))
    for f in ["Q4_0", "Q5_1", "Q6_K", "BF16"] + kmix:
        cases.append(("f32-odd", f, []))
    for f in ["Q3_K_M", "Q4_K_S", "Q2_K"]:
        cases.append(("llama80", f, []))
    for f in kmix:
        cases.append(("deep", f, []))
        cases.append(("gqa4", f, []))
        cases.append(("moe8", f, []))
    for f in pures:
        cases.append(("f16", f, ["--pure"]))
        cases.append(("f32-odd", f, ["--pure"]))
    for f in ["Q4_K_M", "Q6_K", "IQ4_NL", "F16", "Q4_1", "Q5_0", "Q5_1",
              "Q8_0", "MXFP4_MOE", "TQ2_0"]:
        cases.append(("f16-80", f, ["--pure"]))
    cases.append(("f16-80", "Q4_0", []))
    cases += [
        ("f16", "Q4_0", ["--leave-output-tensor"]),
        ("f16", "Q4_0", ["--output-tensor-type", "q8_0"]),
        ("f16", "Q4_0", ["--token-embedding-type", "q5_1"]),
        ("f16-tied", "Q4_0", ["--output-tensor-type", "q4_1"]),
        ("f16-tied", "Q5_0", ["--token-embedding-type", "q8_0", "--pure"]),
        ("f16", "Q4_0", ["--tensor-type", "attn_v=q8_0", "--tensor-type", "ffn_down=q5_1"]),
        ("f16", "Q4_K_M", ["--pure", "--tensor-type", "blk\\.1\\.attn_.*=q6_K",
                           "--tensor-type", "attn=q4_1"]),
        ("f16", "Q4_0", ["--override-kv", "general.name=str:renamed",
                         "--override-kv", "llama.context_length=int:-512",
                         "--override-kv", "test.ratio=float:0.1",
                         "--override-kv", "test.flag=bool:true",
                         "--override-kv", "general.file_type=int:15"]),
        ("f16", "COPY", []),
    ]
    # With an importance matrix (random statistics, tests/llama/gen_imatrix.py):
    # the IQ mixtures that need one, the rules that change with one, experts
    # each with their own importance, entries filtered or missing.
    # (".part": one weight left out, quantized without importance.)
    for model in ("deep", "moe8"):
        gen_imatrix.write(paths[model], paths[model] + ".imatrix", seed)
        gen_imatrix.write(paths[model], paths[model] + ".part.imatrix", seed,
                          skip=("blk.1.ffn_up.weight", "blk.1.ffn_up_exps.weight"))
    im = lambda model, part="": ["--imatrix", paths[model] + part + ".imatrix"]
    for f in ["IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "IQ1_S", "IQ1_M", "IQ3_XXS",
              "IQ3_XS", "Q2_K_S"]:
        cases.append(("deep", f, im("deep")))
    for f in ["IQ3_S", "IQ3_M", "IQ4_NL", "IQ4_XS", "Q4_0", "Q5_0", "Q4_K_M", "Q3_K_S"]:
        cases.append(("deep", f, im("deep", ".part")))
    for f in ["IQ2_XS", "IQ1_M"]:
        cases.append(("moe8", f, im("moe8")))
    for f in ["IQ4_XS", "Q4_K_M", "Q4_0"]:
        cases.append(("moe8", f, im("moe8", ".part")))
    # A budget: the tool's measured choice, and llama.cpp given the same
    # choice as --tensor-type lines.
    cases += [("deep", "Q4_K_M", ["--target-bpw", "4.6"]),
              ("deep", "Q4_K_M", ["--target-bpw", "3.3"] + im("deep")),
              ("moe8", "Q4_K_M", ["--target-bpw", "5"] + im("moe8"))]
    # The legacy imatrix.dat format.
    for model in ("deep", "moe8"):
        gen_imatrix.write_legacy(paths[model], paths[model] + ".imatrix.dat", seed)
    cases += [("deep", "IQ2_XS", ["--imatrix", paths["deep"] + ".imatrix.dat"]),
              ("moe8", "Q4_K_M", ["--imatrix", paths["moe8"] + ".imatrix.dat"])]
    cases += [
        ("deep", "Q4_K_M", im("deep") + ["--include-weights", "ffn_down",
                                         "--include-weights", "attn_q"]),
        ("deep", "IQ4_NL", im("deep") + ["--exclude-weights", "blk.3."]),
    ]
    # Refused by both: the IQ types that need an imatrix, a row no type fits.
    refusals = [("f16", "IQ2_XXS", ["--pure"]), ("f16", "IQ1_S", ["--pure"]),
                ("f16", "IQ3_XXS", ["--pure"]),
                # a 2-bit tensor the imatrix has no entry for
                ("deep", "IQ2_XS", im("deep", ".part"))]

    passed = failed = 0
    # A quantized model as input: --allow-requantize, and COPY of it.
    q8 = os.path.join(work, "f16.q8_0.gguf")
    if llama.quantize(paths["f16"], q8, "Q8_0", []) != 0:
        print("FAIL llama.cpp did not make the Q8_0 input")
        failed += 1
    else:
        paths["q8_0"] = q8
        cases += [("q8_0", "Q4_0", ["--allow-requantize"]), ("q8_0", "COPY", []),
                  ("q8_0", "Q8_0", [])]
        refusals.append(("q8_0", "Q4_0", []))

    for n, (model, ftype, opts) in enumerate(cases):
        ref = os.path.join(work, f"case{n}.llama.gguf")
        got = os.path.join(work, f"case{n}.tool.gguf")
        what = f"{model} {ftype} {' '.join(opts)}".strip()
        what += f" (threads {['1', '2', '3', 'default'][n % 4]})"
        llama_opts = opts
        if "--target-bpw" in opts:
            # The budget's choices, exported as llama-quantize options by the
            # tool's --dry-run, given to llama.cpp: the same file must come out.
            d = subprocess.run([a.cli, "quantize", "--dry-run"] + opts + [paths[model], got, ftype],
                               capture_output=True, text=True)
            lines = [l for l in d.stdout.splitlines() if l.startswith("--tensor-type '")]
            llama_opts = [o for k, o in enumerate(opts)
                          if o != "--target-bpw" and (k == 0 or opts[k - 1] != "--target-bpw")]
            for l in lines:
                llama_opts += ["--tensor-type", l[len("--tensor-type '"):-1]]
            if d.returncode != 0 or not lines:
                print(f"FAIL {what}: the tool's --dry-run exported no --tensor-type lines "
                      f"({d.returncode}: {d.stderr.strip()})")
                failed += 1
                continue
        rc = llama.quantize(paths[model], ref, ftype, llama_opts)
        if rc != 0:
            print(f"FAIL {what}: llama_model_quantize failed ({rc})")
            failed += 1
            continue
        # The tool's thread count cycles through 1, 2, 3 and the default:
        # the bytes must not depend on it.
        threads = ["1", "2", "3", "0"][n % 4]
        p = subprocess.run([a.cli, "quantize", "--quiet"] + opts +
                           [paths[model], got, ftype, threads],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {what}: the tool failed ({p.returncode}): {p.stderr.strip()}")
            failed += 1
            continue
        x, y = open(ref, "rb").read(), open(got, "rb").read()
        if x == y:
            print(f"ok   {what}: {len(x)} bytes identical")
            passed += 1
        else:
            print(f"FAIL {what}: {len(x)} bytes from llama.cpp, {len(y)} from the "
                  f"tool, first difference at byte {first_difference(x, y)}")
            failed += 1
        if not a.keep:
            os.remove(ref)
            os.remove(got)
    for model, ftype, opts in refusals:
        what = f"{model} {ftype} {' '.join(opts)}".strip()
        out = os.path.join(work, "refused.gguf")
        rc = llama.quantize(paths[model], out, ftype, opts)
        p = subprocess.run([a.cli, "quantize", "--quiet"] + opts +
                           [paths[model], out + ".tool", ftype],
                           capture_output=True, text=True)
        if rc != 0 and p.returncode == 1 and not os.path.exists(out + ".tool"):
            print(f"ok   {what}: refused by both ({p.stderr.strip()})")
            passed += 1
        else:
            print(f"FAIL {what}: llama.cpp {rc}, the tool {p.returncode}")
            failed += 1
        for f in (out, out + ".tool"):
            if os.path.exists(f):
                os.remove(f)
    print(f"quantize-check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
