"""The sqlite-quant console script: runs the command-line tool the wheel
carries (sqlite_quant/sqlite-quant, the extension and SQLite linked in;
docs/CLI.md) with this process's arguments, in this process's place."""
import os
import sys


def tool_path():
    """The tool's file inside the installed package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "sqlite-quant")


def main():
    path = tool_path()
    # exec: the tool's exit code, signals (Ctrl-C is its own) and output
    # are the command's, with no Python in between.
    os.execv(path, [path] + sys.argv[1:])


if __name__ == "__main__":
    main()
