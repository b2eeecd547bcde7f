"""Runs the Python package's tests in the environment the wheel was installed
into (tests/python/venv_test.sh), from the repository's root:

    python tests/python/run.py --wheel W --wheel-again W2 --ext dist/quant.so

Ends with "python: N passed, N failed, N skipped" and exits 1 on a failure."""
import argparse
import os
import sys
import tempfile
import time

import check
import test_arrays
import test_install
import test_load
import test_nofs
import test_quantize
import test_registry
import test_scalars
import test_sqlite_utils
import test_typed

MODULES = [test_install, test_load, test_nofs, test_scalars, test_arrays, test_quantize, test_registry,
           test_sqlite_utils, test_typed]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", required=True, help="the wheel installed here")
    parser.add_argument("--wheel-again", required=True, help="the same wheel built a second time")
    parser.add_argument("--ext", required=True, help="the extension make built (dist/quant.so)")
    args = parser.parse_args()
    started = time.monotonic()
    checks = check.Checks()
    with tempfile.TemporaryDirectory(prefix="sqlite-quant-python-") as tmp:
        env = argparse.Namespace(wheel=args.wheel, wheel_again=args.wheel_again,
                                 ext=os.path.abspath(args.ext), tmp=tmp, repo=os.getcwd())
        for module in MODULES:
            checks.run(module.__name__, module.run, env)
    print(f"python: tests took {time.monotonic() - started:.1f} s")
    print(f"python: {checks.passed} passed, {checks.failed} failed, {len(checks.skipped)} skipped")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
