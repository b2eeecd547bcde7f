"""Where the bundled extension is, and loading it into a connection."""
import os
import sys

# SQLite derives an entry point from the file name (quant.so ->
# sqlite3_quant_init); load() names it, so the file could be renamed.
ENTRY_POINT = "sqlite3_quant_init"
# The same library's entry point without the functions and tables that open
# files by path (q_tensors_file, q_tensor_metadata_file, the file writers):
# for connections whose SQL comes from people who must not reach the
# server's files, such as a public Datasette.
NOFS_ENTRY_POINT = "sqlite3_quant_nofs_init"

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


def load(conn, *, allow_files=True):
    """Loads sqlite-quant into the sqlite3 connection `conn`.

    allow_files=False loads it through NOFS_ENTRY_POINT: every function but
    those that open files by path, which are then SQLite's own "no such
    function" / "no such table" (q_info()'s "files" is false).  Use it
    wherever the SQL comes from someone who must not read or write the
    host's files: SQLITE_DIRECTONLY keeps those functions out of views and
    triggers, not out of a query typed by a visitor.

    Extension loading is enabled for the load only and disabled again
    afterwards, whatever happens (sqlite3 cannot tell whether it was enabled
    before: leave it disabled unless you need it)."""
    if not isinstance(allow_files, bool):
        raise TypeError(f"load: allow_files must be True or False, got {allow_files!r}")
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
        entry = ENTRY_POINT if allow_files else NOFS_ENTRY_POINT
        conn.execute("SELECT load_extension(?, ?)", (path, entry)).fetchall()
    finally:
        enable(False)
