"""The installed wheel: its name and tag, reproducible bytes, the version's one
source, loadable_path() and load()."""
import hashlib
import importlib.metadata
import os
import platform
import re
import sqlite3
import subprocess
import sys

import sqlite_quant
from sqlite_quant import _loader

NO_NUMPY = """
import sys
sys.modules["numpy"] = None    # import numpy now fails
import sqlite3, sqlite_quant
print(sqlite_quant.__all__)
db = sqlite3.connect(":memory:")
sqlite_quant.load(db)
print(db.execute("SELECT q_version()").fetchone()[0])
"""


def header_version(repo):
    with open(os.path.join(repo, "include", "sqlite_quant.h"), encoding="utf-8") as f:
        return re.search(r'^#define SQLITE_QUANT_VERSION "([^"]+)"$', f.read(), re.M).group(1)


def glibc_needed(path):
    """The highest GLIBC_2.Y among the library's version needs, as readelf
    (not objdump, which setup.py uses) lists them."""
    out = subprocess.run(["readelf", "--version-info", "--wide", path], check=True,
                         capture_output=True, text=True).stdout
    return max((int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", out))


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(t, env):
    version = header_version(env.repo)
    package_dir = os.path.dirname(sqlite_quant.__file__)

    # The package under test is the installed wheel, in a virtual environment.
    t.eq("venv", sys.prefix != sys.base_prefix, True)
    t.eq("installed-in-venv", package_dir.startswith(sys.prefix + os.sep), True)
    t.eq("version", sqlite_quant.__version__, version)
    t.eq("metadata-version", importlib.metadata.version("sqlite_quant"), version)

    # The tag allows the newest glibc either binary needs (the tool's
    # threads need 2.34's libc; the extension 2.33's fstat).
    tool = os.path.join(package_dir, "sqlite-quant")
    major, minor = max(glibc_needed(env.ext), glibc_needed(tool))
    t.eq("wheel-name", os.path.basename(env.wheel),
         f"sqlite_quant-{version}-py3-none-manylinux_{major}_{minor}_{platform.machine()}.whl")
    t.eq("wheel-reproducible", sha256(env.wheel_again), sha256(env.wheel))
    t.eq("licence", os.path.isfile(os.path.join(package_dir, "LICENSE")), True)

    # The console script: the tool the wheel carries, on the venv's PATH,
    # SQLite linked in (it needs only libc and libm, like the extension).
    script = os.path.join(sys.prefix, "bin", "sqlite-quant")
    t.eq("cli-script", os.path.isfile(script) and os.access(script, os.X_OK), True)
    out = subprocess.run([script, "--version"], capture_output=True, text=True)
    t.eq("cli-version", (out.returncode, re.sub(r" \(SQLite [0-9.]+, kernels [a-z0-9]+\)$", "",
                                                out.stdout.strip())),
         (0, f"sqlite-quant {version}"))
    needed = subprocess.run(["readelf", "-d", tool], check=True, capture_output=True,
                            text=True).stdout
    t.eq("cli-needs-libc-libm", sorted(re.findall(r"\(NEEDED\).*\[(.*)\]", needed)),
         ["libc.so.6", "libm.so.6"])
    out = subprocess.run([script, "info", os.path.join("tests", "data", "gguf", "basic.gguf")],
                         capture_output=True, text=True, cwd=env.repo)
    t.eq("cli-info", (out.returncode, out.stdout.splitlines()[0] if out.stdout else ""),
         (0, next(open(os.path.join(env.repo, "tests", "cli", "info_basic_gguf.out"))).rstrip("\n")))
    out = subprocess.run([script, "quantize", "a", "b"], capture_output=True, text=True)
    t.eq("cli-usage-exit-2", (out.returncode, out.stdout), (2, ""))

    t.eq("loadable-path", sqlite_quant.loadable_path(), os.path.join(package_dir, "quant"))
    t.eq("loadable-file", os.path.isfile(sqlite_quant.loadable_path() + ".so"), True)

    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)
    t.eq("load-q_version", db.execute("SELECT q_version()").fetchone(), (version,))
    # Extension loading is off again afterwards.
    t.raises("load-disables", sqlite3.OperationalError, "not authorized",
             db.execute, "SELECT load_extension(?)", (env.ext,))
    t.eq("entry-point", sqlite_quant.ENTRY_POINT, "sqlite3_quant_init")

    # The loader names the entry point, so the file's name does not matter.
    renamed = os.path.join(env.tmp, "renamed_ext.so")
    with open(env.ext, "rb") as src, open(renamed, "wb") as dst:
        dst.write(src.read())
    saved = _loader.loadable_path
    _loader.loadable_path = lambda: renamed
    try:
        db = sqlite3.connect(":memory:")
        sqlite_quant.load(db)
        t.eq("load-renamed", db.execute("SELECT q_version()").fetchone(), (version,))
        # ... and a failed load still disables extension loading.
        _loader.loadable_path = lambda: os.path.join(env.tmp, "missing")
        db = sqlite3.connect(":memory:")
        t.raises("load-missing", sqlite3.OperationalError,
                 f"{env.tmp}/missing.so: cannot open shared object file: No such file or directory",
                 sqlite_quant.load, db)
        t.raises("load-missing-disables", sqlite3.OperationalError, "not authorized",
                 db.execute, "SELECT load_extension(?)", (env.ext,))
    finally:
        _loader.loadable_path = saved

    # Without numpy the package still loads the extension; only the numpy
    # helpers are missing.
    out = subprocess.run([sys.executable, "-c", NO_NUMPY], check=True,
                         capture_output=True, text=True).stdout
    t.eq("without-numpy", out,
         f"['ENTRY_POINT', 'NOFS_ENTRY_POINT', '__version__', 'load', 'loadable_path']\n{version}\n")

    # A Python whose sqlite3 cannot load extensions (pyenv's default build)
    # has no enable_load_extension: the error says so.
    class NoExtensions:
        def execute(self, *args):
            raise AssertionError("never reached")

    t.raises("load-no-extension-support", RuntimeError,
             "load: this Python's sqlite3 module was built without extension loading (it has"
             " no Connection.enable_load_extension; Python must be configured with"
             " --enable-loadable-sqlite-extensions, as Debian's /usr/bin/python3 is),"
             f" got {sys.executable}",
             sqlite_quant.load, NoExtensions())
