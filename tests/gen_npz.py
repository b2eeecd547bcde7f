#!/usr/bin/python3
"""gen_npz.py: compressed .npz files and raw DEFLATE streams for the tests.

    /usr/bin/python3 tests/gen_npz.py [tests/data]
    /usr/bin/python3 tests/gen_npz.py --check dist/quant.so

The second form (run by tests/npz.test) loads the extension into Python's
sqlite3 and checks that numpy.load reads what q_npz_agg writes: every dtype,
0-d and empty arrays, non-ASCII names, and every array of
tests/data/npz/types.npz passed through q_tensors_file and q_npz_agg.

Needs numpy (Debian python3-numpy).  Writes tests/data/npz/ (read by
tests/npz.test and tests/npy_core_test.c) and tests/data/inflate/ (read by
tests/inflate_core_test.c); the files are committed, so the tests need
neither Python nor numpy.  Contents are fixed (formulas and a seeded
generator) and zip members are stamped 1980-01-01, so a rerun writes the
same bytes.

npz/: archives written by np.savez_compressed (every dtype the readers
take, 0-d and empty arrays, big-endian, fortran_order, a member spanning
many DEFLATE blocks, zip64), by zipfile with data descriptors and with
compression level 0 (stored DEFLATE blocks), then hand-corrupted ones.
inflate/: <name>.raw and <name>.deflate, the same bytes deflated by zlib
(raw, wbits -15) at several levels.
"""
import io
import os
import struct
import sys
import zipfile
import zlib

import numpy as np



def check(lib):
    import sqlite3
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(lib)
    dtypes = [("f16", "<f2"), ("f32", "<f4"), ("f64", "<f8"), ("int8", "|i1"),
              ("int16", "<i2"), ("int32", "<i4"), ("int64", "<i8"),
              ("uint8", "|u1"), ("uint16", "<u2"), ("uint32", "<u4"),
              ("uint64", "<u8"), ("bool", "|b1"), ("f32be", ">f4"),
              ("int64be", ">i8")]
    arrays = {}
    rows = []
    for name, d in dtypes:
        for shape in [(2, 3), (), (0,), (3, 0, 2), (7,)]:
            dt = np.dtype(d)
            n = int(np.prod(shape, dtype=np.int64))
            a = (np.arange(n) % 5 - 2).astype(dt) if dt.kind != "b" else \
                np.arange(n) % 2 == 1
            a = a.astype(dt).reshape(shape)
            key = "%s_%s" % (name, "x".join(map(str, shape)) or "scalar")
            arrays[key] = a
            rows.append((key, a.tobytes(), name,
                         "[" + ",".join(map(str, shape)) + "]"))
    arrays["\u00e9t\u00e9 \u6f22"] = np.array([1.5], dtype="<f4")
    rows.append(("\u00e9t\u00e9 \u6f22", arrays["\u00e9t\u00e9 \u6f22"].tobytes(),
                 "f32", "[1]"))
    db.execute("CREATE TABLE t(name, data, dtype, shape)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    (blob,) = db.execute(
        "SELECT q_npz_agg(name, data, dtype, shape) FROM t").fetchone()
    bad = 0
    with np.load(io.BytesIO(blob)) as z:
        if list(z.files) != list(arrays):
            bad += 1
            print("FAIL names", z.files)
        for k, a in arrays.items():
            b = z[k]
            if not (b.dtype == a.dtype and b.shape == a.shape and
                    b.tobytes() == a.tobytes()):
                bad += 1
                print("FAIL", k)
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        if z.testzip() is not None:
            bad += 1
            print("FAIL zip CRC")
    # a compressed archive from numpy, through q_tensors_file and q_npz_agg
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "data", "npz", "types.npz")
    (blob,) = db.execute(
        "SELECT q_npz_agg(name, data, dtype, shape) FROM q_tensors_file(?)",
        (src,)).fetchone()
    with np.load(src) as want, np.load(io.BytesIO(blob)) as got:
        for k in want.files:
            a, b = want[k], got[k]
            if not (a.dtype == b.dtype and a.shape == b.shape and
                    a.tobytes() == b.tobytes()):
                bad += 1
                print("FAIL types.npz", k)
        n = len(arrays) + len(want.files)
    print("%d of %d arrays written by q_npz_agg read back by numpy.load" %
          (n - bad, n))
    return 1 if bad else 0


if len(sys.argv) > 2 and sys.argv[1] == "--check":
    sys.exit(check(sys.argv[2]))

base = sys.argv[1] if len(sys.argv) > 1 else "tests/data"
npz_dir = os.path.join(base, "npz")
inf_dir = os.path.join(base, "inflate")
os.makedirs(npz_dir, exist_ok=True)
os.makedirs(inf_dir, exist_ok=True)


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def savez_compressed(**arrays):
    b = io.BytesIO()
    np.savez_compressed(b, **arrays)
    return fix_dates(b.getvalue())


def fix_dates(data):
    """Rewrites every member's timestamp to 1980-01-01 (np.savez stamps the
    current time), local headers and central directory alike."""
    data = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        infos = z.infolist()
    for info in infos:
        struct.pack_into("<HH", data, info.header_offset + 10, 0, 0x21)
    eocd = data.rfind(b"PK\x05\x06")
    (cd_off,) = struct.unpack_from("<I", data, eocd + 16)
    if cd_off == 0xFFFFFFFF:
        loc = data.rfind(b"PK\x06\x07")
        (z64,) = struct.unpack_from("<Q", data, loc + 8)
        (cd_off,) = struct.unpack_from("<Q", data, z64 + 48)
    at = cd_off
    for _ in infos:
        struct.pack_into("<HH", data, at + 12, 0, 0x21)
        nlen, elen, clen = struct.unpack_from("<HHH", data, at + 28)
        at += 46 + nlen + elen + clen
    return bytes(data)


def big_array():
    i = np.arange(65536, dtype=np.int64)
    return (((i * 7919) % 10007) / 16.0).astype(np.float32)


def npy_bytes(arr, version=None):
    b = io.BytesIO()
    np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def member(name, level=None):
    """A deflated member stamped 1980-01-01 (a ZipInfo's own compression
    is what writestr uses, not the archive's)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    if level is not None:
        info._compresslevel = level  # zipfile has no public setter
    return info


# --- written by numpy (np.savez_compressed): read correctly
write(npz_dir, "types.npz", savez_compressed(
    f32=np.arange(12, dtype=np.float32).reshape(3, 4),
    f64=np.arange(6, dtype=np.float64).reshape(2, 3) / 4,
    f16=np.arange(5, dtype=np.float16),
    i8=np.array([-128, -1, 0, 1, 127], dtype=np.int8),
    be=np.arange(4, dtype=">f4"),
    scalar=np.array(2.5),
    empty=np.zeros((0, 3), dtype=np.float32),
    flags=np.array([True, False, True])))
write(npz_dir, "big.npz", savez_compressed(big=big_array()))
# fortran_order: a column-major 2x3 is refused, a 1x3 is the same layout
write(npz_dir, "fortran.npz", savez_compressed(
    w=np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))))
write(npz_dir, "fortran_row.npz", savez_compressed(
    w=np.asfortranarray(np.arange(3, dtype=np.float32).reshape(1, 3))))

# zip64 throughout (limits lowered, as in gen_npy.py)
saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 0, 0
try:
    write(npz_dir, "zip64.npz", savez_compressed(
        w=np.arange(6, dtype=np.float32).reshape(2, 3)))
finally:
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


class Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek back in: it writes data descriptors."""
    def __init__(self):
        self.b = bytearray()

    def writable(self):
        return True

    def write(self, data):
        self.b += data
        return len(data)


# data descriptors (general-purpose bit 3): sizes and CRC after the data
u = Unseekable()
with zipfile.ZipFile(u, "w", compression=zipfile.ZIP_DEFLATED) as z:
    with z.open(member("w.npy"), "w") as f:
        f.write(npy_bytes(np.arange(6, dtype=np.float32)))
write(npz_dir, "descriptor.npz", bytes(u.b))

# compression level 0: the member is DEFLATE's stored blocks
b = io.BytesIO()
with zipfile.ZipFile(b, "w", compression=zipfile.ZIP_DEFLATED,
                     compresslevel=0) as z:
    z.writestr(member("w.npy", 0), npy_bytes(big_array()[:20000]))
write(npz_dir, "level0.npz", b.getvalue())


# --- hand-made or corrupted: refused
def one_member(payload, name="w.npy"):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(member(name), payload)
    return bytearray(b.getvalue())


def central(data):
    return data.rfind(b"PK\x01\x02")


w6 = npy_bytes(np.arange(6, dtype=np.float32))

# the central directory's CRC-32 off by one: the data inflates, the check fails
d = one_member(w6)
c = central(d)
struct.pack_into("<I", d, c + 16, struct.unpack_from("<I", d, c + 16)[0] ^ 1)
write(npz_dir, "badcrc.npz", bytes(d))

# the central directory's size 4 more than the member inflates to
d = one_member(w6)
c = central(d)
struct.pack_into("<I", d, c + 24, len(w6) + 4)
write(npz_dir, "badsize.npz", bytes(d))

# the compressed size 3 short: the stream ends inside its block
d = one_member(w6)
c = central(d)
csize = struct.unpack_from("<I", d, c + 20)[0]
struct.pack_into("<I", d, c + 20, csize - 3)
write(npz_dir, "short.npz", bytes(d))

# 3 bytes after the end of the deflate stream, counted in its size
d = one_member(w6)
c = central(d)
lh = 0
nlen, elen = struct.unpack_from("<HH", d, lh + 26)
end = lh + 30 + nlen + elen + struct.unpack_from("<I", d, c + 20)[0]
d[end:end] = b"\0\0\0"
c += 3
struct.pack_into("<I", d, c + 20, struct.unpack_from("<I", d, c + 20)[0] + 3)
struct.pack_into("<I", d, lh + 18, struct.unpack_from("<I", d, lh + 18)[0] + 3)
eocd = d.rfind(b"PK\x05\x06")
struct.pack_into("<I", d, eocd + 16, c)
write(npz_dir, "trailing.npz", bytes(d))

# the member inflates to 4 bytes more than its directory entry says (the
# .npy header agrees with the directory, so only a full read sees it)
d = one_member(w6 + b"\0\0\0\0")
c = central(d)
struct.pack_into("<I", d, c + 24, len(w6))
struct.pack_into("<I", d, 22, len(w6))
write(npz_dir, "longer.npz", bytes(d))

# block type 3 (reserved) right at the start of the stream
d = one_member(w6)
c = central(d)
nlen, elen = struct.unpack_from("<HH", d, 26)
d[30 + nlen + elen] |= 0x06
write(npz_dir, "reserved.npz", bytes(d))

# method 12 (bzip2) and an encrypted member (bit 0)
d = one_member(w6)
struct.pack_into("<H", d, 8, 12)
struct.pack_into("<H", d, central(d) + 10, 12)
write(npz_dir, "bzip2.npz", bytes(d))
d = one_member(w6)
struct.pack_into("<H", d, 6, 1)
struct.pack_into("<H", d, central(d) + 8, 1)
write(npz_dir, "encrypted.npz", bytes(d))

# a .npy header of more than 64 KiB (version 2.0), compressed
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"
hdr += " " * (70000 - len(hdr) - 1) + "\n"
big_header = (b"\x93NUMPY\x02\x00" + struct.pack("<I", len(hdr)) +
              hdr.encode() + b"\0\0\0\0")
write(npz_dir, "header_big.npz", bytes(one_member(big_header)))

# --- raw DEFLATE streams from zlib
rng = np.random.default_rng(12)
samples = {
    "empty": b"",
    "text": b"".join(b"line %d of a text that repeats itself\n" % (i % 37)
                     for i in range(2000)),
    "random": rng.integers(0, 256, 20000, dtype=np.uint8).tobytes(),
    "float32": big_array()[:20000].tobytes(),
    "zeros": bytes(100000),
}
for name, raw in samples.items():
    for level in (0, 1, 9):
        co = zlib.compressobj(level, zlib.DEFLATED, -15)
        write(inf_dir, "%s-%d.deflate" % (name, level),
              co.compress(raw) + co.flush())
    # Z_FIXED: fixed Huffman codes only
    co = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_FIXED)
    write(inf_dir, "%s-fixed.deflate" % name, co.compress(raw) + co.flush())
    write(inf_dir, "%s.raw" % name, raw)
