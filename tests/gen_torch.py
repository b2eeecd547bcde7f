#!/usr/bin/python3
"""gen_torch.py: PyTorch checkpoints, which the readers refuse by name.

    /usr/bin/python3 tests/gen_torch.py [tests/data]

Writes tests/data/torch/ (read by tests/readers.test), committed so that
the tests need neither Python nor torch:

  zip.pt     what torch.save writes since PyTorch 1.6: a zip archive whose
             members sit under one folder named after the file ('zip/'),
             'zip/data.pkl' (the pickled state_dict) first, then
             'zip/byteorder', the storages under 'zip/data/' and
             'zip/version';
  legacy.pt  what torch.save(..., _use_new_zipfile_serialization=False)
             writes: pickles back to back, the first a magic number, in
             pickle protocol 2 (first bytes 0x80 0x02).

With torch importable (Debian python3-torch), both are torch.save's own
output for a 2x3 float32 tensor; without it, the same layout is written
here with zipfile and pickle (the members' contents are then stand-ins:
the readers look only at the layout).  Zip members are stamped 1980-01-01,
so a rerun without torch writes the same bytes.
"""
import os
import pickle
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data"),
                   "torch")


def with_torch():
    import torch
    sd = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3)}
    torch.save(sd, os.path.join(OUT, "zip.pt"))
    torch.save(sd, os.path.join(OUT, "legacy.pt"),
               _use_new_zipfile_serialization=False)


def without_torch():
    def member(z, name, data):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        z.writestr(info, data)
    with zipfile.ZipFile(os.path.join(OUT, "zip.pt"), "w", zipfile.ZIP_STORED) as z:
        member(z, "zip/data.pkl", pickle.dumps({"w": "storage 0"}, protocol=2))
        member(z, "zip/byteorder", b"little")
        member(z, "zip/data/0", bytes(range(24)))
        member(z, "zip/version", b"3\n")
    with open(os.path.join(OUT, "legacy.pt"), "wb") as f:
        # torch's legacy magic number, protocol version, then the object.
        f.write(pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2))
        f.write(pickle.dumps(1001, protocol=2))
        f.write(pickle.dumps({"w": "storage 0"}, protocol=2))


def main():
    os.makedirs(OUT, exist_ok=True)
    try:
        import torch  # noqa: F401
    except ImportError:
        without_torch()
        print("gen_torch: torch is not importable; wrote the layout with zipfile and pickle")
    else:
        with_torch()
        print("gen_torch: wrote torch.save's own files")


if __name__ == "__main__":
    main()
