"""The counting assertions of tests/python: each check is one named
assertion of an exact value; a failure prints what was expected and what came,
and the run goes on to the next check."""
import traceback

import numpy as np


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = []

    def _fail(self, name, detail):
        self.failed += 1
        print(f"FAILED {name}: {detail}")

    def eq(self, name, got, want):
        """got == want, exactly; numpy arrays must also agree in dtype and shape."""
        if isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
            same = (isinstance(got, np.ndarray) and isinstance(want, np.ndarray)
                    and got.dtype == want.dtype and got.shape == want.shape
                    and np.array_equal(got, want, equal_nan=got.dtype.kind == "f"))
        else:
            same = type(got) is type(want) and got == want
        if same:
            self.passed += 1
        else:
            self._fail(name, f"expected {want!r}, got {got!r}")

    def near(self, name, got, want, tol):
        if abs(got - want) <= tol:
            self.passed += 1
        else:
            self._fail(name, f"expected {want!r} within {tol}, got {got!r}")

    def raises(self, name, exc, message, fn, *args, **kwargs):
        """fn(*args, **kwargs) raises exactly `exc` with exactly `message`."""
        try:
            fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 (the type is the assertion)
            if type(e) is exc and str(e) == message:
                self.passed += 1
            else:
                self._fail(name, f"expected {exc.__name__}({message!r}), got {type(e).__name__}({str(e)!r})")
            return
        self._fail(name, f"expected {exc.__name__}({message!r}), nothing was raised")

    def skip(self, name, reason):
        self.skipped.append(name)
        print(f"SKIPPED {name}: {reason}")

    def run(self, name, fn, *args):
        """Runs one test module's checks; an unexpected exception is a failure."""
        try:
            fn(self, *args)
        except Exception:  # noqa: BLE001
            self._fail(name, "unexpected exception\n" + traceback.format_exc())
