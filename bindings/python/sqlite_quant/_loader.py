"""Where the bundled extension is, and loading it into a connection."""
import json
import os
import sqlite3
import sys

from ._version import __version__

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

    Loading again does nothing when this version is loaded already with the
    same allow_files, and otherwise loads through sqlite3_load_extension, not
    through a statement: SQLite cannot replace a function while a statement
    runs, so a second load through one failed with "database is locked"
    (0.2.0).  allow_files=False after a load with files removes the path
    functions; that needs Python 3.12's Connection.load_extension(entrypoint=),
    and before 3.12 it is a RuntimeError (use a new connection), as is any
    reload before 3.12 that SQLite could not do by the file's name (a renamed
    copy).

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
    loaded = _loaded(conn)
    if loaded == (__version__, allow_files):
        return
    entry = ENTRY_POINT if allow_files else NOFS_ENTRY_POINT
    # Before 3.12 Connection.load_extension takes no entry point: SQLite
    # derives it from the file's name, and quant gives sqlite3_quant_init.
    # The SQL function takes one, but runs inside a statement, which is
    # safe only while none of our functions exists on the connection.
    by_name = sys.version_info >= (3, 12)
    derived = allow_files and os.path.basename(path) == "quant"
    if not (by_name or derived or loaded is None):
        raise RuntimeError(
            f"load: allow_files={allow_files} cannot replace the sqlite-quant an earlier load put"
            " on this connection before Python 3.12 (use a new connection),"
            f" got Python {sys.version_info[0]}.{sys.version_info[1]}")
    enable(True)
    try:
        if by_name:
            conn.load_extension(path, entrypoint=entry)
        elif derived:
            conn.load_extension(path)
        else:
            conn.execute("SELECT load_extension(?, ?)", (path, entry)).fetchall()
    finally:
        enable(False)


def _loaded(conn):
    """(version, files) of the sqlite-quant loaded on conn, as q_info() says,
    or None when there is none."""
    try:
        info = json.loads(conn.execute("SELECT q_info()").fetchall()[0][0])
    except sqlite3.OperationalError as e:
        if str(e).startswith("no such function"):
            return None
        raise
    return (info.get("version"), info.get("files"))
