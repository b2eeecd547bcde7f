"""Where the bundled extension is, and loading it into a connection."""
import os
import sys

# SQLite derives an entry point from the file name (quant.so ->
# sqlite3_quant_init); load() names it, so the file could be renamed.
ENTRY_POINT = "sqlite3_quant_init"

_SUFFIXES = (".so", ".dylib", ".dll")


def loadable_path():
    """The bundled extension's path without its suffix, the form SQLite's
    load_extension() accepts on every platform (it adds .so, .dylib or .dll):
    for `.load` in the sqlite3 shell, sqlite-utils --load-extension or
    Connection.load_extension()."""
    here = os.path.dirname(os.path.abspath(__file__))
    base = os.path.join(here, "quant")
    if not any(os.path.isfile(base + s) for s in _SUFFIXES):
        raise FileNotFoundError(
            "loadable_path: the compiled extension is missing (install the wheel"
            f" that `make wheel` builds), got no quant.so in {here}")
    return base


def load(conn):
    """Loads sqlite-quant into the sqlite3 connection `conn`.

    Extension loading is enabled for the load only and disabled again
    afterwards, whatever happens (sqlite3 cannot tell whether it was enabled
    before: leave it disabled unless you need it)."""
    enable = getattr(conn, "enable_load_extension", None)
    if enable is None:
        raise RuntimeError(
            "load: this Python's sqlite3 module was built without extension"
            " loading (it has no Connection.enable_load_extension; Python must be"
            " configured with --enable-loadable-sqlite-extensions, as Debian's"
            f" /usr/bin/python3 is), got {sys.executable}")
    path = loadable_path()
    enable(True)
    try:
        # The SQL function takes the entry point on every Python version;
        # Connection.load_extension() only from 3.12.
        conn.execute("SELECT load_extension(?, ?)", (path, ENTRY_POINT)).fetchall()
    finally:
        enable(False)
