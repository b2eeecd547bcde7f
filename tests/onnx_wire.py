"""onnx_wire.py: protobuf's wire format by hand, for the test scripts that
write ONNX files field by field (tests/gen_onnx.py, tests/bnb4/ort_check.py).

Only what those files need: varints (negative values as their 64-bit two's
complement, as protobuf writes int64), and fields of wire types 0 (varint),
1 (fixed64), 2 (length-delimited) and 5 (fixed32).  No dependency beyond
the standard library, so a script that needs no onnx package can use it.
"""
import struct


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_varint(field, v):
    return varint(field << 3) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(field << 3 | 2) + varint(len(b)) + b


def f_fixed32(field, x):
    return varint(field << 3 | 5) + struct.pack("<f", x)


def f_fixed64(field, x):
    return varint(field << 3 | 1) + struct.pack("<d", x)
