#!/usr/bin/python3
"""gen_bombs.py: small model files that ask a reader for a lot of memory or
work, for tests/readers.test (docs/FORMATS.md#memory).

  gen_bombs.py onnx-scopes OUT [--depth 32] [--name-bytes 14150]
                               [--initializers 4000]
      An ONNX model whose main graph holds an If node, whose then_branch
      holds an If node, and so on --depth deep (each node named with
      --name-bytes bytes), the innermost graph holding --initializers empty
      float tensors (dims [0]).  Every tensor's scope is the whole path of
      node names: a reader that copies the path per tensor needs
      initializers x depth x name-bytes bytes (0.2.0: about 1.9 GB for the
      defaults, a 505 KB file).

  gen_bombs.py npz-overlap OUT [--members 200] [--kernel 1048576]
      An .npz whose members' bytes overlap, as in a quoted-overlap zip bomb:
      member k's deflate stream quotes, in stored blocks, its own .npy header
      and member k+1's local header, then goes on into member k+1's stream,
      down to a last member whose stream deflates --kernel zero bytes.
      Every member is a CRC-valid uint8 .npy, so a reader that does not
      refuse overlaps lists them all and would inflate members x kernel
      bytes from a file of a few kilobytes.  (CPython's zipfile refuses such
      files since 3.12; this writes the bytes itself.)

The protobuf, zip and .npy encodings are written here by hand (no onnx, no
zipfile), so the files are exactly what the description says.  Prints the
file's size and what it declares.
"""
import argparse
import struct
import sys
import zlib


# ---- protobuf ---------------------------------------------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number, v):
    return varint(number << 3 | 0) + varint(v)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def onnx_scopes(out, depth, name_bytes, initializers):
    # TensorProto: dims (1) = 0, data_type (2) = 1 (float), name (8).
    inner = b"".join(
        field_bytes(5, field_varint(1, 0) + field_varint(2, 1) +
                    field_bytes(8, b"t%d" % i))
        for i in range(initializers))
    graph = inner + field_bytes(2, b"g%d" % depth)
    for level in range(depth, 0, -1):
        name = (b"if%02d_" % level).ljust(name_bytes, b"x")
        # AttributeProto: name (1) "then_branch", type (20) GRAPH = 5, g (6).
        attr = field_bytes(1, b"then_branch") + field_varint(20, 5) + \
            field_bytes(6, graph)
        # NodeProto: input (1), output (2), name (3), op_type (4), attr (5).
        node = field_bytes(1, b"cond") + field_bytes(2, b"out%d" % level) + \
            field_bytes(3, name) + field_bytes(4, b"If") + field_bytes(5, attr)
        graph = field_bytes(1, node) + field_bytes(2, b"g%d" % (level - 1))
    # ModelProto: ir_version (1) = 8, graph (7), opset_import (8) {version 17}.
    model = field_varint(1, 8) + field_bytes(7, graph) + \
        field_bytes(8, field_varint(2, 17))
    with open(out, "wb") as f:
        f.write(model)
    scope = depth * (name_bytes + len("/then_branch")) + (depth - 1)
    print("%s: %d bytes, %d tensors, each with a %d-byte scope "
          "(%d bytes if each tensor has its own copy)" % (out, len(model), initializers,
                                            scope, scope * initializers))


# ---- zip --------------------------------------------------------------------

def npy_header(nbytes):
    """A .npy 1.0 header for a uint8 array of nbytes elements."""
    d = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % nbytes
    pad = 64 - (10 + len(d) + 1) % 64
    d = d + " " * (pad % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode()


def stored_block(data, final=False):
    """A DEFLATE stored block holding data (at most 65535 bytes)."""
    assert len(data) <= 0xFFFF
    return bytes([1 if final else 0]) + struct.pack("<HH", len(data),
                                                    len(data) ^ 0xFFFF) + data


def local_header(name, crc, csize, usize):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21,
                       crc, csize, usize, len(name), 0) + name


def npz_overlap(out, members, kernel):
    """The file is LH_0 S_0 LH_1 S_1 ... LH_last S_last, the directory and
    the end record: LH_k member k's local header; S_k a stored block of its
    .npy header H_k, then (k < last) the 5-byte header of a stored block
    whose bytes are LH_{k+1}, which follows in the file, or (the last) the
    kernel's deflate stream.  Member k's data runs from after LH_k to the
    end of S_last, so it inflates to H_k + LH_{k+1} + member k+1's output:
    a valid uint8 .npy of all the bytes after its header."""
    names = [b"m%d.npy" % k for k in range(members)]
    last = members - 1
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    kernel_stream = z.compress(bytes(kernel)) + z.flush()
    lh_len = [30 + len(n) for n in names]
    usize = [0] * members
    heads = [b""] * members
    usize[last] = len(npy_header(kernel)) + kernel
    heads[last] = npy_header(kernel)
    for k in range(last - 1, -1, -1):
        heads[k] = npy_header(lh_len[k + 1] + usize[k + 1])
        usize[k] = len(heads[k]) + lh_len[k + 1] + usize[k + 1]
    stream = [stored_block(heads[k]) + stored_block(b"\0" * lh_len[k + 1])[:5]
              for k in range(last)] + [stored_block(heads[last]) + kernel_stream]
    # csize_k: everything after LH_k
    csize = [0] * members
    for k in range(last, -1, -1):
        csize[k] = len(stream[k]) + (lh_len[k + 1] + csize[k + 1]
                                     if k < last else 0)
    # CRCs from the last member back: output_k's bytes are heads[k], LH_{k+1}
    # (which holds crc_{k+1}), then output_{k+1}.
    crc = [0] * members
    lh = [b""] * members
    for k in range(last, -1, -1):
        c = zlib.crc32(heads[k])
        for j in range(k, last):
            if j > k:
                c = zlib.crc32(heads[j], c)
            c = zlib.crc32(lh[j + 1], c)
        if k < last:
            c = zlib.crc32(heads[last], c)
        c = zlib.crc32(bytes(kernel), c)
        crc[k] = c
        lh[k] = local_header(names[k], crc[k], csize[k], usize[k])
    body = bytearray()
    offsets = []
    for k in range(members):
        offsets.append(len(body))
        body += lh[k] + stream[k]
    cd = bytearray()
    for k in range(members):
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0,
                          0x21, crc[k], csize[k], usize[k], len(names[k]), 0,
                          0, 0, 0, 0, offsets[k]) + names[k]
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, members, members,
                       len(cd), len(body), 0)
    data = bytes(body + cd + eocd)
    # Check what was built: member 0 inflates to its declared size and CRC.
    out0 = zlib.decompress(data[offsets[0] + lh_len[0]:len(body)], -15)
    assert len(out0) == usize[0] and zlib.crc32(out0) == crc[0]
    with open(out, "wb") as f:
        f.write(data)
    print("%s: %d bytes, %d members declaring %d bytes in all" %
          (out, len(data), members, sum(usize)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    o = sub.add_parser("onnx-scopes")
    o.add_argument("out")
    o.add_argument("--depth", type=int, default=32)
    o.add_argument("--name-bytes", type=int, default=14150)
    o.add_argument("--initializers", type=int, default=4000)
    z = sub.add_parser("npz-overlap")
    z.add_argument("out")
    z.add_argument("--members", type=int, default=200)
    z.add_argument("--kernel", type=int, default=1048576)
    a = ap.parse_args()
    if a.what == "onnx-scopes":
        onnx_scopes(a.out, a.depth, a.name_bytes, a.initializers)
    else:
        npz_overlap(a.out, a.members, a.kernel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
