"""load() twice, in either order of allow_files, after a failed load and
beside a running statement: each leaves the connection with the extension
loaded as last asked, or raises a clear error and leaves it as it was."""
import json
import os
import sqlite3
import sys

import sqlite_quant
from sqlite_quant import _loader

COUNT = "WITH RECURSIVE c(x) AS (VALUES (1) UNION ALL SELECT x + 1 FROM c LIMIT 3) SELECT x FROM c"


def files(db):
    return json.loads(db.execute("SELECT q_info()").fetchone()[0])["files"]


def run(t, env):
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    sqlite_quant.load(db)   # 0.2.0: "database is locked" (a statement running)
    t.eq("twice", (db.execute("SELECT q_version()").fetchone()[0], files(db)),
         (sqlite_quant.__version__, True))
    t.raises("twice-disables", sqlite3.OperationalError, "not authorized",
             db.execute, "SELECT load_extension(?)", (env.ext,))

    # A statement of the caller's own, half read, does not stop a load that
    # has nothing to do, and reads on afterwards.
    rows = db.execute(COUNT)
    first = rows.fetchone()
    sqlite_quant.load(db)
    t.eq("beside-a-statement", (first, rows.fetchall()), ((1,), [(2,), (3,)]))

    # Loaded by hand, through the SQL function, then by load().
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.execute("SELECT load_extension(?, ?)", (env.ext, sqlite_quant.ENTRY_POINT)).fetchall()
    db.enable_load_extension(False)
    sqlite_quant.load(db)
    t.eq("after-sql-load", files(db), True)

    # Without the path functions, twice, then with them.
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db, allow_files=False)
    sqlite_quant.load(db, allow_files=False)
    t.eq("nofs-twice", files(db), False)
    sqlite_quant.load(db)
    t.eq("nofs-then-files", files(db), True)
    t.eq("nofs-then-files-reads",
         db.execute("SELECT count(*) FROM q_tensors_file(?)",
                    (os.path.join(env.repo, "tests", "data", "gguf", "basic.gguf"),)).fetchone(), (21,))

    # With them, then without: removed where Python can name the entry point.
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    if sys.version_info >= (3, 12):
        sqlite_quant.load(db, allow_files=False)
        t.eq("files-then-nofs", files(db), False)
    else:
        t.raises("files-then-nofs", RuntimeError,
                 "load: allow_files=False cannot replace the sqlite-quant an earlier load put"
                 " on this connection before Python 3.12 (use a new connection),"
                 f" got Python {sys.version_info[0]}.{sys.version_info[1]}",
                 sqlite_quant.load, db, allow_files=False)
        t.eq("files-then-nofs-unchanged", files(db), True)

    # A load that failed (a kernel path that does not exist) registers
    # nothing, and the next one loads.
    db = sqlite3.connect(":memory:")
    saved = os.environ.get("SQLITE_QUANT_KERNEL")
    os.environ["SQLITE_QUANT_KERNEL"] = "nosuch"
    try:
        try:
            sqlite_quant.load(db)
            failed = "nothing raised"
        except sqlite3.OperationalError as e:
            failed = str(e).split(" (expected")[0]
    finally:
        if saved is None:
            del os.environ["SQLITE_QUANT_KERNEL"]
        else:
            os.environ["SQLITE_QUANT_KERNEL"] = saved
    t.eq("failed-load", failed,
         "error during initialization: sqlite-quant: SQLITE_QUANT_KERNEL='nosuch' is not a kernel path")
    t.raises("failed-load-registers-nothing", sqlite3.OperationalError, "no such function: q_info",
             db.execute, "SELECT q_info()")
    sqlite_quant.load(db)
    sqlite_quant.load(db)
    t.eq("after-failed-load", files(db), True)

    # A renamed file (SQLite would derive another entry point from its name)
    # loads twice too.
    renamed = os.path.join(env.tmp, "renamed_twice.so")
    with open(env.ext, "rb") as src, open(renamed, "wb") as dst:
        dst.write(src.read())
    saved_path = _loader.loadable_path
    _loader.loadable_path = lambda: renamed
    try:
        db = sqlite3.connect(":memory:")
        sqlite_quant.load(db)
        sqlite_quant.load(db)
        t.eq("renamed-twice", files(db), True)
        # Another load of a renamed copy needs the entry point named, which
        # only Python 3.12 can do without a statement.
        db = sqlite3.connect(":memory:")
        sqlite_quant.load(db, allow_files=False)
        if sys.version_info >= (3, 12):
            sqlite_quant.load(db)
            t.eq("renamed-nofs-then-files", files(db), True)
        else:
            t.raises("renamed-nofs-then-files", RuntimeError,
                     "load: allow_files=True cannot replace the sqlite-quant an earlier load put"
                     " on this connection before Python 3.12 (use a new connection),"
                     f" got Python {sys.version_info[0]}.{sys.version_info[1]}",
                     sqlite_quant.load, db)
            t.eq("renamed-nofs-then-files-unchanged", files(db), False)
    finally:
        _loader.loadable_path = saved_path
