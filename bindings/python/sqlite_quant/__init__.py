"""sqlite-quant for Python: the extension, a loader, and numpy helpers.

    import sqlite3, sqlite_quant
    db = sqlite3.connect(":memory:")
    sqlite_quant.load(db)                       # every function
    sqlite_quant.load(db, allow_files=False)    # none that opens a path

loadable_path() and load() need nothing but the standard library.  With
numpy installed, importing the package also makes numpy scalars bind as SQL
numbers (sqlite_quant._scalars), and f32_blob(), npy_blob() and array()
move arrays in and out of the extension's BLOBs without misreading them
(sqlite_quant._arrays).
"""
from ._loader import ENTRY_POINT, NOFS_ENTRY_POINT, load, loadable_path
from ._version import __version__

__all__ = ["ENTRY_POINT", "NOFS_ENTRY_POINT", "__version__", "load", "loadable_path"]

try:
    import numpy as _numpy  # noqa: F401  (optional: only the helpers below need it)
except ImportError:
    _numpy = None
else:
    from . import _scalars
    from ._arrays import array, f32_blob, npy_blob

    _scalars.register()
    __all__ += ["array", "f32_blob", "npy_blob"]
