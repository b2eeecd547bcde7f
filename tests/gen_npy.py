#!/usr/bin/python3
"""gen_npy.py: the .npy/.npz test files for tests/npy_core_test.c.

    /usr/bin/python3 tests/gen_npy.py tests/data/npy

Needs numpy (Debian python3-numpy).  The files are committed, so the tests
need neither Python nor numpy.  Array contents are fixed (np.arange and
literals) and every zip member is stamped 1980-01-01 (as np.savez does),
so npy_core_test.c knows every value and a rerun writes the same bytes.

Files written by numpy itself (np.save, np.savez, np.savez_compressed,
np.lib.format.write_array for versions 2.0 and 3.0), then hand-made or
hand-corrupted ones for the error paths.
"""
import io
import os
import struct
import sys
import warnings
import zipfile

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/npy"
os.makedirs(out, exist_ok=True)


def path(name):
    return os.path.join(out, name)


def save(name, arr):
    np.save(path(name), arr, allow_pickle=arr.dtype == object)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def npy_bytes(arr, version=None):
    b = io.BytesIO()
    np.lib.format.write_array(b, arr, version=version,
                              allow_pickle=arr.dtype == object)
    return b.getvalue()


def member(name):
    """A zip member stamped 1980-01-01, as np.savez stamps its members."""
    return zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))


def raw_npy(header, data=b"", major=1, hlen=None):
    """A .npy with the header text as given, padded as numpy pads it."""
    h = header.encode("latin1")
    pre = 10 if major == 1 else 12
    h += b" " * ((-(pre + len(h) + 1)) % 64) + b"\n"
    n = len(h) if hlen is None else hlen
    size = struct.pack("<H", n) if major == 1 else struct.pack("<I", n)
    return b"\x93NUMPY" + bytes([major, 0]) + size + h + data


# --- written by numpy: read correctly
save("f32.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
save("f64.npy", np.arange(6, dtype=np.float64).reshape(2, 3))
save("f16.npy", np.arange(5, dtype=np.float16))
save("i8.npy", np.array([-128, -1, 0, 1, 127], dtype=np.int8))
save("i64.npy", np.arange(3, dtype=np.int64))
save("u16.npy", np.arange(4, dtype=np.uint16).reshape(2, 2, 1))
save("be_f4.npy", np.arange(4, dtype=">f4"))
save("be_i2.npy", np.arange(3, dtype=">i2"))
save("scalar.npy", np.array(3.5, dtype=np.float32))
save("empty.npy", np.zeros((0, 3), dtype=np.float32))
save("bool.npy", np.array([True, False, True]))
write("v2.npy", npy_bytes(np.arange(3, dtype=np.float32), version=(2, 0)))
write("v3.npy", npy_bytes(np.arange(3, dtype=np.float32), version=(3, 0)))
np.savez(path("savez.npz"), w=np.arange(6, dtype=np.float32).reshape(2, 3),
         b=np.array([1, 2], dtype=np.int8), s=np.array(2.0))
np.savez(path("savez_empty.npz"))

# --- written by numpy: refused with a clear error
save("fortran.npy", np.asfortranarray(
    np.arange(6, dtype=np.float32).reshape(2, 3)))
save("object.npy", np.array([1, "a"], dtype=object))
save("struct.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i2")]))
save("complex.npy", np.zeros(2, dtype=np.complex64))
save("unicode.npy", np.array(["ab"]))
np.savez_compressed(path("compressed.npz"),
                    w=np.arange(6, dtype=np.float32))

# --- hand-made: accepted
# fortran_order True is the same layout when at most one dim is above 1
write("fortran_row.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3), }",
    np.arange(3, dtype="<f4").tobytes()))
# key order, double quotes, no trailing comma: still a Python dict literal
write("keys_any_order.npy", raw_npy(
    '{"shape": (2,), "fortran_order": False, "descr": "<i4"}',
    np.arange(2, dtype="<i4").tobytes()))

# --- hand-made or corrupted: refused
f32 = open(path("f32.npy"), "rb").read()
write("truncated.npy", f32[:-4])
write("trailing.npy", f32 + b"\0\0\0\0")
write("badmagic.npy", b"\x93NUMPZ" + f32[6:])
write("preamble.npy", f32[:9])
write("version.npy", f32[:6] + b"\x04\x00" + f32[8:])
write("hdrlen.npy", f32[:8] + struct.pack("<H", 4096) + f32[10:])
write("absurd_shape.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }",
    b"\0" * 48))
write("overflow_shape.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, "
    "'shape': (4294967296, 4294967296, 4294967296), }"))
write("overflow_bytes.npy", raw_npy(
    "{'descr': '<f8', 'fortran_order': False, "
    "'shape': (2147483648, 4294967296), }"))
write("dim_too_big.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, "
    "'shape': (9223372036854775808,), }"))
write("unknown_key.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }",
    b"\0" * 4))
write("missing_key.npy", raw_npy(
    "{'descr': '<f4', 'shape': (1,), }", b"\0" * 4))
write("dup_key.npy", raw_npy(
    "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
    "'shape': (1,), }", b"\0" * 4))
write("not_tuple.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", b"\0" * 12))
write("leading_zero.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (03,), }", b"\0" * 12))
write("native_order.npy", raw_npy(
    "{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }", b"\0" * 4))
write("no_newline.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
    b"\0" * 4)[:-5] + b" " + b"\0" * 4)
write("too_many_dims.npy", raw_npy(
    "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }"
    % ("1, " * 33), b"\0" * 4))

npz = bytearray(open(path("savez.npz"), "rb").read())
write("truncated.npz", bytes(npz[:-10]))
# flip one data byte of the first member (its last byte: the array's data)
with zipfile.ZipFile(path("savez.npz")) as z:
    first = z.infolist()[0]
    lh = first.header_offset
    nlen, elen = struct.unpack("<HH", npz[lh + 26:lh + 30])
    end = lh + 30 + nlen + elen + first.compress_size
bad = bytearray(npz)
bad[end - 1] ^= 0x40
write("badcrc.npz", bytes(bad))
# a member that is not .npy
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr(member("readme.txt"), "hello")
write("not_npy.npz", b.getvalue())
# a stored member whose .npy is truncated (CRC made to match)
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr(member("t.npy"), f32[:-4])
write("member_truncated.npz", b.getvalue())
# two members with the same name
warnings.simplefilter("ignore")  # zipfile's "Duplicate name"
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr(member("a.npy"), f32)
    z.writestr(member("a.npy"), f32)
write("duplicate.npz", b.getvalue())

# zip64 throughout, as np.savez writes archives past 4 GiB or 65535 members:
# the limits lowered so that a small archive gets the zip64 end record and
# locator and zip64 extra fields in the central directory
saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 0, 0
try:
    np.savez(path("zip64.npz"), w=np.arange(6, dtype=np.float32).reshape(2, 3),
             b=np.array([1, 2], dtype=np.int8))
finally:
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved
