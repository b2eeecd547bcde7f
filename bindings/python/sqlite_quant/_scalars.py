"""numpy scalars as SQL numbers.

sqlite3 binds int, float, str and bytes (and their subclasses) and, failing
those, anything with the buffer protocol as a BLOB.  numpy scalars other than
float64 (a float subclass) have the buffer protocol, so np.float32(0.01)
arrives as a 4-byte BLOB and the extension says "scale must be a number, got
blob"; an np.int64 zero point arrives as 8 bytes.  The adapters registered
here bind them as the numbers they are:

  - every integer type (int8 ... uint64, and the platform's aliases such as
    longlong) and bool as INTEGER (a uint64 beyond int64's range is
    sqlite3's OverflowError, never a wrapped value);
  - float16, float32 and float64 as REAL, exactly (each is a double);
  - a longdouble as REAL when a double holds it exactly, else an error;
  - complex types are an error rather than a BLOB of two floats.

sqlite3's adapters are global: they apply to every connection of the
process.  A type that already has an adapter keeps it.
"""
import sqlite3

import numpy as np


def _leaf_types(base):
    """Every concrete numpy scalar type below `base`."""
    found = []
    for sub in base.__subclasses__():
        found += _leaf_types(sub) if sub.__subclasses__() else [sub]
    return found


def _longdouble(value):
    as_float = float(value)
    if np.longdouble(as_float) != value:
        raise TypeError(f"sqlite_quant: a {type(value).__name__} scalar that no double"
                        f" holds exactly has no SQL number, got {value!r}")
    return as_float


def _complex(value):
    raise TypeError(f"sqlite_quant: a {type(value).__name__} scalar has no SQL number"
                    f" (bind its .real or .imag), got {value!r}")


def adapters():
    """{numpy scalar type: adapter to a Python int or float}."""
    table = {np.bool_: int}
    for t in _leaf_types(np.integer):
        if not issubclass(t, np.timedelta64):   # a duration, not a number
            table[t] = int
    for t in _leaf_types(np.floating):
        table[t] = float if np.finfo(t).bits <= 64 else _longdouble
    for t in _leaf_types(np.complexfloating):
        table[t] = _complex
    return table


def register():
    for t, adapt in adapters().items():
        if (t, sqlite3.PrepareProtocol) not in sqlite3.adapters:
            sqlite3.register_adapter(t, adapt)
