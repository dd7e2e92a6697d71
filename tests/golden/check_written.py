#!/usr/bin/python3
"""Loads the .pt and .npy files that precheck's writers made (tests/io) with torch and numpy,
and checks them against the MANIFEST the C test wrote beside them.

    check_written.py <dir>

A manifest line is "<file> <dtype> <shape> <hex>": dtype as torch names it without "torch.",
shape as a bracketed comma list, hex the row-major elements as little-endian bytes ("-" for
none). Exit status: 0 when every file loads bit-exactly, 1 when one does not (each failure
printed), 77 when torch or numpy cannot be imported (the C test then skips).
"""

import os
import sys

try:
    import numpy as np
    import torch
except Exception as e:  # not installed, or broken: the test is skipped, not failed
    print("skip: %s" % e)
    sys.exit(77)


def element_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def main(folder):
    failures = 0
    lines = open(os.path.join(folder, "MANIFEST")).read().split("\n")
    checked = 0
    for line in lines:
        if not line or line.startswith("#"):
            continue
        name, dtype, shape, hexdata = line.split(" ")
        shape = tuple(int(x) for x in shape.strip("[]").split(",") if x)
        expected = b"" if hexdata == "-" else bytes.fromhex(hexdata)
        path = os.path.join(folder, name)
        try:
            if name.endswith(".pt"):
                t = torch.load(path, map_location="cpu", weights_only=True)
                got_dtype = str(t.dtype).replace("torch.", "")
                ok = (got_dtype == dtype and tuple(t.shape) == shape and t.is_contiguous()
                      and t.storage_offset() == 0 and element_bytes(t) == expected)
                what = "%s %s contiguous=%s" % (got_dtype, tuple(t.shape), t.is_contiguous())
            else:
                a = np.load(path, allow_pickle=False)
                ok = (str(a.dtype) == dtype and a.shape == shape and a.flags.c_contiguous
                      and a.tobytes() == expected)
                what = "%s %s" % (a.dtype, a.shape)
        except Exception as e:
            ok, what = False, "load failed: %s" % e
        if not ok:
            failures += 1
            print("FAIL %s: expected %s %s, got %s" % (name, dtype, shape, what))
        checked += 1
    print("%d files checked, %d failures (torch %s, numpy %s)" % (
        checked, failures, torch.__version__, np.__version__))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
