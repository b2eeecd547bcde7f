#!/usr/bin/python3
"""change_chunks.py EXT DIR MODE: a Python host reads a tensor bigger than
its SQLITE_LIMIT_LENGTH chunk by chunk from q_tensors_file while the file
changes (tests/readers.test runs it as a child process, so a host killed by
a signal is a failed test, not a dead suite).

DIR/w.safetensors holds one f32 tensor [100, 256] whose row r is all r;
under a 40000-byte limit it comes out as 3 chunks.  The first chunk's row
calls change(), a Python function, after its data column was read; MODE:
  truncate   the file truncated to 0 bytes in place
  overwrite  a file of the same size (all 7s) copied over it in place
  rename     that file renamed over it (the reader keeps the old one)
The rows are fetched all at once (fetchall), so what is printed does not
depend on how far ahead the sqlite3 module steps: one line per chunk (chunk,
rows, nbytes, the first value of its first and last row) and "done", or
"error: <message>".
"""
import os
import shutil
import sqlite3
import struct
import sys

ext, d, mode = sys.argv[1], sys.argv[2], sys.argv[3]
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)


def model(path, value):
    rows = ",".join(",".join([str(value(r))] * 256) for r in range(100))
    (blob,) = con.execute(
        "SELECT q_safetensors_agg('w', q_f32(?), 'f32', '[100,256]')",
        ("[%s]" % rows,)).fetchone()
    with open(path, "wb") as f:
        f.write(blob)
    # A time long past: the change below moves it, whatever the clock's tick.
    os.utime(path, (1577836800, 1577836800))


path = os.path.join(d, "w.safetensors")
other = os.path.join(d, "w7.safetensors")
model(path, lambda r: r)
model(other, lambda r: 7)


def change():
    if mode == "truncate":
        os.truncate(path, 0)
    elif mode == "overwrite":
        with open(other, "rb") as src, open(path, "r+b") as dst:
            shutil.copyfileobj(src, dst)
    else:
        shutil.copy(other, path + ".new")
        os.replace(path + ".new", path)
    return 0


con.create_function("change", 0, change)
con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 40000)
out = []
try:
    for chunk, rows, nbytes, data, _ in con.execute(
            "SELECT chunk, rows, nbytes, data, "
            "CASE WHEN chunk = 0 THEN change() END FROM q_tensors_file(?)",
            (path,)).fetchall():
        first = struct.unpack_from("<f", data, 0)[0]
        last = struct.unpack_from("<f", data, len(data) - 1024)[0]
        out.append("%d %d %d %g %g" % (chunk, rows, nbytes, first, last))
    out.append("done")
except sqlite3.Error as e:
    out.append("error: %s" % e)
print("\n".join(out))
