"""Debian's sqlite-utils with --load-extension: the extension make built, the
installed package's loadable_path(), and a renamed copy loaded by its entry
point (path:entrypoint)."""
import os
import shutil
import subprocess

import sqlite_quant

QUERY = ("SELECT q_version() AS version, q_scale('[-1, 0.5, 2, 3]', 'uint8') AS scale,"
         " q_zero_point('[-1, 0.5, 2, 3]', 'uint8') AS zero_point,"
         " hex(quantize_blob('[-1, 0.5, 2, 3]', 0.015686275, 64, 'uint8')) AS codes")


def run(t, env):
    tool = shutil.which("sqlite-utils")
    if tool is None:
        t.skip("sqlite-utils", "no sqlite-utils on PATH (Debian: apt-get install sqlite-utils)")
        return
    db = os.path.join(env.tmp, "utils.db")
    # sqlite-utils runs on Debian's own Python, outside this environment.
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}

    def query(extension, sql=QUERY):
        return subprocess.run([tool, "query", db, sql, "--load-extension", extension],
                              capture_output=True, text=True, env=clean)

    want = ('[{"version": "%s", "scale": 0.01568627543747425, "zero_point": 64, "codes": "0060BFFF"}]\n'
            % sqlite_quant.__version__)
    for name, extension in [("dist", env.ext),
                            ("loadable-path", sqlite_quant.loadable_path())]:
        out = query(extension)
        t.eq(f"sqlite-utils-{name}", (out.returncode, out.stdout), (0, want))

    # Renamed, the file must be loaded with its entry point named.
    renamed = os.path.join(env.tmp, "sqlite_quant_x86.so")
    shutil.copyfile(env.ext, renamed)
    out = query(renamed + ":" + sqlite_quant.ENTRY_POINT)
    t.eq("sqlite-utils-renamed", (out.returncode, out.stdout), (0, want))
    out = query(renamed)
    t.eq("sqlite-utils-renamed-no-entry-point", (out.returncode, out.stderr.splitlines()[-1]),
         (1, f"sqlite3.OperationalError: {renamed}: undefined symbol: sqlite3_sqlitequantx_init"))

    # path:entrypoint loads the entry point without files (a public host).
    gguf = os.path.join(env.repo, "tests", "data", "gguf", "basic.gguf")
    out = query(env.ext + ":" + sqlite_quant.NOFS_ENTRY_POINT,
                f"SELECT count(*) AS n FROM q_tensors_file('{gguf}')")
    t.eq("sqlite-utils-nofs", (out.returncode, out.stdout, out.stderr),
         (1, "", "Error: no such table: q_tensors_file\n"))
    out = query(env.ext + ":" + sqlite_quant.NOFS_ENTRY_POINT, QUERY)
    t.eq("sqlite-utils-nofs-functions", (out.returncode, out.stdout), (0, want))

    # Without --load-extension there is no q_version().
    out = subprocess.run([tool, "query", db, "SELECT q_version()"], capture_output=True, text=True, env=clean)
    t.eq("sqlite-utils-not-loaded", (out.returncode, out.stdout, out.stderr),
         (1, "", "Error: no such function: q_version\n"))
