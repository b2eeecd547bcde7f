"""load(conn, allow_files=False): the extension without the functions and
tables that open files by path (the entry point sqlite3_quant_nofs_init),
for connections whose SQL comes from people who must not reach the host's
files.  A Datasette-style connection (a read-only file, query_only) is the
case: neither setting stops sqlite3_quant_init's q_tensors_file from
reading any file the process may read."""
import json
import os
import sqlite3

import sqlite_quant

INNOCUOUS = 0x000200000   # SQLITE_INNOCUOUS, sqlite3.h
# A model file of the tests' own (tests/data), read through the path.
GGUF = os.path.join("tests", "data", "gguf", "basic.gguf")


def error(fn, *args):
    """The exception fn(*args) raises, as (type name, message)."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 (the type is part of the result)
        return (type(e).__name__, str(e))
    return ("nothing raised", "")


def surface(conn):
    """The extension's functions (name, arity, flags) and modules."""
    functions = {(n, a, f) for n, a, f in conn.execute(
        "SELECT name, narg, flags FROM pragma_function_list"
        " WHERE name LIKE 'q\\_%' ESCAPE '\\' OR name LIKE '%quantize%'")}
    modules = {n for (n,) in conn.execute(
        "SELECT name FROM pragma_module_list WHERE name LIKE 'q\\_%' ESCAPE '\\'")}
    return functions, modules


def run(t, env):
    t.eq("nofs-entry-point", sqlite_quant.NOFS_ENTRY_POINT, "sqlite3_quant_nofs_init")
    gguf = os.path.join(env.repo, GGUF)

    full = sqlite3.connect(":memory:")
    sqlite_quant.load(full)
    nofs = sqlite3.connect(":memory:")
    sqlite_quant.load(nofs, allow_files=False)
    info = lambda conn: json.loads(conn.execute("SELECT q_info()").fetchone()[0])["files"]
    t.eq("files-true-by-default", info(full), True)
    t.eq("files-false", info(nofs), False)
    t.eq("same-version", nofs.execute("SELECT q_version()").fetchone(), (sqlite_quant.__version__,))

    # What is left out is SQLite's own error.
    t.eq("no-such-table", error(nofs.execute, "SELECT * FROM q_tensors_file(?)", (gguf,)),
         ("OperationalError", "no such table: q_tensors_file"))
    t.eq("no-such-table-metadata",
         error(nofs.execute, "SELECT * FROM q_tensor_metadata_file(?)", (gguf,)),
         ("OperationalError", "no such table: q_tensor_metadata_file"))
    t.eq("full-reads-the-file",
         full.execute("SELECT count(*) FROM q_tensors_file(?)", (gguf,)).fetchone(), (21,))
    # The same model given as bytes still reads.
    with open(gguf, "rb") as f:
        data = f.read()
    t.eq("nofs-reads-bytes",
         nofs.execute("SELECT count(*) FROM q_tensors(?)", (data,)).fetchone(), (21,))

    # Only what is left out differs, and all of it is what sqlite3_quant_init
    # does not register innocuous (tests/api.test has the exact list).
    full_fns, full_mods = surface(full)
    nofs_fns, nofs_mods = surface(nofs)
    t.eq("nofs-adds-nothing", (nofs_fns - full_fns, nofs_mods - full_mods), (set(), set()))
    left_out = full_fns - nofs_fns
    t.eq("left-out-functions-not-innocuous", all(not f & INNOCUOUS for _, _, f in left_out), True)
    t.eq("left-out-functions-are-all-not-innocuous",
         left_out, {x for x in full_fns if not x[2] & INNOCUOUS})
    t.eq("left-out-tables-include-the-readers",
         {"q_tensors_file", "q_tensor_metadata_file"} <= full_mods - nofs_mods, True)
    t.eq("left-out-tables-include-the-writers",
         {"q_safetensors_write", "q_gguf_write", "q_npz_write"} <= full_mods - nofs_mods, True)
    t.eq("no-such-writer",
         error(nofs.execute, "INSERT INTO q_npz_write (path, name, data, dtype, shape) "
                             "VALUES (?, 'w', X'00', 'int8', '[1]')",
               (os.path.join(env.tmp, "x.npz"),)),
         ("OperationalError", "no such table: q_npz_write"))

    # A Datasette-style connection: read-only file, query_only.
    path = os.path.join(env.tmp, "public.db")
    setup = sqlite3.connect(path)
    setup.execute("CREATE TABLE weights(name, data)")
    setup.commit()
    setup.close()
    for allow, want in [(True, ("read", 21)),
                        (False, ("OperationalError", "no such table: q_tensors_file"))]:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        conn.execute("PRAGMA query_only = 1")
        sqlite_quant.load(conn, allow_files=allow)
        try:
            got = ("read", conn.execute("SELECT count(*) FROM q_tensors_file(?)", (gguf,)).fetchone()[0])
        except sqlite3.Error as e:
            got = (type(e).__name__, str(e))
        t.eq(f"read-only-query-only-allow-files-{allow}", got, want)
        # Extension loading is off again afterwards, as with load(conn).
        t.eq(f"load-disables-allow-files-{allow}",
             error(conn.execute, "SELECT load_extension(?)", (env.ext,)),
             ("OperationalError", "not authorized"))
        conn.close()

    # The argument is a keyword, True or False.
    db = sqlite3.connect(":memory:")
    t.eq("allow-files-keyword-only", error(sqlite_quant.load, db, False),
         ("TypeError", "load() takes 1 positional argument but 2 were given"))
    t.eq("allow-files-bool", error(lambda: sqlite_quant.load(db, allow_files="no")),
         ("TypeError", "load: allow_files must be True or False, got 'no'"))
    t.eq("allow-files-bool-not-loaded", error(db.execute, "SELECT q_version()"),
         ("OperationalError", "no such function: q_version"))
