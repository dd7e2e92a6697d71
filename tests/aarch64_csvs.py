#!/usr/bin/env python3
"""Compares the CSVs precheck wrote on aarch64 (under qemu) with those of x86-64 for the same
run (tests/aarch64.sh): same file kinds, same rows in the same order. Every row must be the same
byte for byte, except the rows matched by a pattern of tests/aarch64_differences.txt (which says
why each may differ); in those, only cells that are numbers on both sides may differ: names,
dtypes, shapes, statuses, verdicts and messages must still be the same.

usage: aarch64_csvs.py DIFFERENCES_FILE X86_DIR A64_DIR [X86_DIR A64_DIR ...]
Prints one line per directory pair and each row that differs; exits 1 on a forbidden difference.
"""
import csv
import fnmatch
import glob
import os
import sys


def patterns(path):
    """The allowed rows: (pattern, reason) per line, '#' comments and blank lines skipped."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                pattern, _, reason = line.partition(" ")
                out.append((pattern, reason.strip()))
    return out


def is_number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def rows(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def kind(path):
    """accuracy_checking_details_20261203085837.csv -> accuracy_checking_details"""
    return os.path.basename(path).rsplit("_", 1)[0]


def compare(allowed, x86_dir, a64_dir):
    x86 = {kind(p): p for p in glob.glob(os.path.join(x86_dir, "*.csv"))}
    a64 = {kind(p): p for p in glob.glob(os.path.join(a64_dir, "*.csv"))}
    bad = []
    if not x86 or sorted(x86) != sorted(a64):
        return 0, 0, [f"CSV files differ: x86-64 {sorted(x86)}, aarch64 {sorted(a64)}"]
    total = differing = 0
    for k in sorted(x86):
        a, b = rows(x86[k]), rows(a64[k])
        if len(a) != len(b):
            bad.append(f"{k}: {len(a)} rows on x86-64, {len(b)} on aarch64")
            continue
        header = a[0]
        for ra, rb in zip(a, b):
            total += 1
            if ra == rb:
                continue
            differing += 1
            name = ra[0] if ra else ""
            why = next((r for p, r in allowed if fnmatch.fnmatchcase(name, p)), None)
            cells = [
                f"{header[i] if i < len(header) else i}: {x} | {y}"
                for i, (x, y) in enumerate(zip(ra, rb))
                if x != y
            ]
            forbidden = len(ra) != len(rb) or any(
                not (is_number(x) and is_number(y)) for x, y in zip(ra, rb) if x != y
            )
            if why is None or forbidden:
                bad.append(
                    f"{k}: {name}: "
                    + ("not listed in the differences file" if why is None else "a non-number differs")
                    + "; " + "; ".join(cells)
                )
            else:
                print(f"  {k}: {name}: numbers differ ({len(cells)} cells; {why})")
    return total, differing, bad


def main():
    if len(sys.argv) < 4 or len(sys.argv) % 2:
        sys.exit(__doc__)
    allowed = patterns(sys.argv[1])
    failed = False
    for x86_dir, a64_dir in zip(sys.argv[2::2], sys.argv[3::2]):
        total, differing, bad = compare(allowed, x86_dir, a64_dir)
        label = os.path.basename(os.path.normpath(a64_dir))
        print(f"{label}: {total} rows, {total - differing} identical, {differing} differ"
              + (f", {len(bad)} NOT ALLOWED" if bad else " (allowed)"))
        for line in bad:
            print("  FAIL " + line)
        failed |= bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
