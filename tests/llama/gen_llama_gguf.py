#!/usr/bin/env python3
"""gen_llama_gguf.py OUT [--layers N] [--embd N] [--ff N] [--vocab N]
[--heads N] [--kv-heads N] [--dtype f32|f16|bf16] [--untied] [--seed S]

A small llama-architecture GGUF file of random weights, for checking
`sqlite-quant quantize` against llama.cpp's llama_model_quantize
(tests/llama/quantize_check.py).  Nothing is downloaded: the tensors are
numpy's random normals scaled as an initialised transformer's would be, the
vocabulary is made-up byte tokens, and the metadata is what llama.cpp's
loader needs to accept the model (architecture, hyperparameters, a
tokenizer).

The tensors are written in the order llama.cpp's converter writes them
(token_embd, then each block, then output_norm and output), so a quantizer
that reorders them shows it.
"""
import argparse
import struct

import numpy as np

GGUF_TYPES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5,
              "f32": 6, "bool": 7, "str": 8, "arr": 9, "u64": 10, "i64": 11,
              "f64": 12}
GGML_TYPES = {"f32": 0, "f16": 1, "bf16": 30}


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_value(kind, v):
    if kind == "str":
        return gguf_string(v)
    if kind == "bool":
        return struct.pack("<?", v)
    fmt = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I",
           "i32": "i", "f32": "f", "u64": "Q", "i64": "q", "f64": "d"}[kind]
    return struct.pack("<" + fmt, v)


def gguf_kv(key, kind, v):
    out = gguf_string(key)
    if isinstance(kind, tuple):          # ("arr", element kind)
        out += struct.pack("<I", GGUF_TYPES["arr"])
        out += struct.pack("<IQ", GGUF_TYPES[kind[1]], len(v))
        for x in v:
            out += gguf_value(kind[1], x)
        return out
    return out + struct.pack("<I", GGUF_TYPES[kind]) + gguf_value(kind, v)


def to_bytes(a, dtype):
    a = np.ascontiguousarray(a, dtype=np.float32)
    if dtype == "f32":
        return a.tobytes()
    if dtype == "f16":
        return a.astype("<f2").tobytes()
    u = a.view(np.uint32).astype(np.uint64)
    # bfloat16, round to nearest even (the weights are finite)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype("<u2").tobytes()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--embd", type=int, default=256)
    ap.add_argument("--ff", type=int, default=512)
    ap.add_argument("--vocab", type=int, default=384)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--dtype", default="f16", choices=sorted(GGML_TYPES))
    ap.add_argument("--untied", action="store_true",
                    help="an output.weight of its own (default: tied to token_embd)")
    ap.add_argument("--experts", type=int, default=0,
                    help="mixture-of-experts FFNs of this many experts (3-D tensors)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)

    rng = np.random.default_rng(a.seed)
    head_dim = a.embd // a.heads
    kv = head_dim * a.kv_heads

    def w(rows, cols):          # a [rows, cols] weight, ggml ne = [cols, rows]
        return rng.standard_normal((rows, cols), dtype=np.float32) / np.sqrt(cols)

    def norm(n):
        return 1 + 0.1 * rng.standard_normal(n, dtype=np.float32)

    tensors = [("token_embd.weight", w(a.vocab, a.embd))]
    for i in range(a.layers):
        p = f"blk.{i}."
        tensors += [
            (p + "attn_norm.weight", norm(a.embd)),
            (p + "attn_q.weight", w(a.embd, a.embd)),
            (p + "attn_k.weight", w(kv, a.embd)),
            (p + "attn_v.weight", w(kv, a.embd)),
            (p + "attn_output.weight", w(a.embd, a.embd)),
            (p + "ffn_norm.weight", norm(a.embd)),
        ]
        if a.experts:
            e = a.experts
            tensors += [
                (p + "ffn_gate_inp.weight", w(e, a.embd)),
                (p + "ffn_gate_exps.weight", w(e * a.ff, a.embd).reshape(e, a.ff, a.embd)),
                (p + "ffn_up_exps.weight", w(e * a.ff, a.embd).reshape(e, a.ff, a.embd)),
                (p + "ffn_down_exps.weight", w(e * a.embd, a.ff).reshape(e, a.embd, a.ff)),
            ]
        else:
            tensors += [
                (p + "ffn_gate.weight", w(a.ff, a.embd)),
                (p + "ffn_up.weight", w(a.ff, a.embd)),
                (p + "ffn_down.weight", w(a.embd, a.ff)),
            ]
    tensors.append(("output_norm.weight", norm(a.embd)))
    if a.untied:
        tensors.append(("output.weight", w(a.vocab, a.embd)))

    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"tok{i}" for i in range(a.vocab - len(tokens))]
    tokens = tokens[:a.vocab]
    types = [2, 3, 3] + [6] * 256 + [1] * (a.vocab - 259)
    kvs = [
        gguf_kv("general.architecture", "str", "llama"),
        gguf_kv("general.name", "str", "sqlite-quant test llama"),
        gguf_kv("general.file_type", "u32", {"f32": 0, "f16": 1, "bf16": 32}[a.dtype]),
        gguf_kv("llama.block_count", "u32", a.layers),
        gguf_kv("llama.context_length", "u32", 256),
        gguf_kv("llama.embedding_length", "u32", a.embd),
        gguf_kv("llama.feed_forward_length", "u32", a.ff),
        gguf_kv("llama.attention.head_count", "u32", a.heads),
        gguf_kv("llama.attention.head_count_kv", "u32", a.kv_heads),
        gguf_kv("llama.rope.freq_base", "f32", 10000.0),
        gguf_kv("llama.attention.layer_norm_rms_epsilon", "f32", 1e-5),
        gguf_kv("llama.rope.dimension_count", "u32", head_dim),
        gguf_kv("llama.vocab_size", "u32", a.vocab),
    ] + ([
        gguf_kv("llama.expert_count", "u32", a.experts),
        gguf_kv("llama.expert_used_count", "u32", 2),
    ] if a.experts else []) + [
        gguf_kv("tokenizer.ggml.model", "str", "llama"),
        gguf_kv("tokenizer.ggml.tokens", ("arr", "str"), tokens),
        gguf_kv("tokenizer.ggml.scores", ("arr", "f32"), [float(-i) for i in range(a.vocab)]),
        gguf_kv("tokenizer.ggml.token_type", ("arr", "i32"), types),
        gguf_kv("tokenizer.ggml.bos_token_id", "u32", 1),
        gguf_kv("tokenizer.ggml.eos_token_id", "u32", 2),
        gguf_kv("tokenizer.ggml.unknown_token_id", "u32", 0),
    ]
    align = 32
    infos, blobs, offset = b"", [], 0
    for name, t in tensors:
        data = to_bytes(t, "f32" if t.ndim == 1 else a.dtype)
        ttype = GGML_TYPES["f32" if t.ndim == 1 else a.dtype]
        ne = list(reversed(t.shape))
        infos += gguf_string(name) + struct.pack("<I", len(ne))
        infos += b"".join(struct.pack("<q", n) for n in ne)
        infos += struct.pack("<IQ", ttype, offset)
        pad = -len(data) % align
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    head += b"".join(kvs) + infos
    head += b"\0" * (-len(head) % align)
    with open(a.out, "wb") as f:
        f.write(head)
        for b in blobs:
            f.write(b)


if __name__ == "__main__":
    main()


def read_tensor_infos(path, offsets=False):
    """(name, ne, ggml type) of each tensor of the GGUF file at path, in
    file order: what gen_imatrix.py needs of a model.  With offsets, also
    each tensor's byte offset in the file (for files of the default
    alignment, 32, as this script and gen_imatrix.py write them)."""
    with open(path, "rb") as f:
        buf = f.read(1 << 20)
        pos = 0

        def need(n):
            nonlocal buf
            while len(buf) < pos + n:
                more = f.read(1 << 20)
                if not more:
                    raise ValueError("truncated GGUF")
                buf += more

        def take(fmt):
            nonlocal pos
            size = struct.calcsize(fmt)
            need(size)
            v = struct.unpack_from(fmt, buf, pos)
            pos += size
            return v if len(v) > 1 else v[0]

        def string():
            nonlocal pos
            n = take("<Q")
            need(n)
            s = buf[pos:pos + n].decode()
            pos += n
            return s

        sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

        def skip_value(t):
            nonlocal pos
            if t == 8:
                string()
            elif t == 9:
                et, n = take("<IQ")
                for _ in range(n):
                    skip_value(et)
            else:
                need(sizes[t])
                pos += sizes[t]

        magic, _version, ntensors, nkv = take("<4sIQQ")
        assert magic == b"GGUF"
        for _ in range(nkv):
            string()
            skip_value(take("<I"))
        out = []
        for _ in range(ntensors):
            name = string()
            nd = take("<I")
            ne = [take("<q") for _ in range(nd)]
            ttype, offset = take("<IQ")
            out.append((name, ne, ttype, offset))
        data_start = pos + (-pos % 32)
        if offsets:
            return [(n, ne, t, data_start + o) for n, ne, t, o in out]
        return [(n, ne, t) for n, ne, t, _o in out]
