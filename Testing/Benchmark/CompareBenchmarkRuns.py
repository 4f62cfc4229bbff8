#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Compares two runs of Testing/Benchmark/RunBenchmarks.sh (two builds, one machine): every
time cell (a column whose header says "ms") of every table row that both runs print, as a
markdown table of before, after and the change; rows slower by more than the tolerance are
marked, and the exit status is 1 if there is one. The peers' columns (ITK, the CPU path,
CuPy, VTK: the host's, not the build's) are left out unless --all-columns.

    Testing/Benchmark/CompareBenchmarkRuns.py BEFORE_DIR AFTER_DIR [--tolerance 3]
"""
import argparse
import os
import re
import sys

NUMBER = re.compile(r"^\**(-?\d+(?:\.\d+)?)")


def tables(path):
    """{(table header, first cell): {column header: cell}} of one output file."""
    rows, header = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("|"):
                header = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not all(set(c) <= set("-: ") for c in cells):
                rows[(" | ".join(header), cells[0])] = dict(zip(header[1:], cells[1:]))
    return rows


def number(cell):
    match = NUMBER.match(cell)
    return float(match.group(1)) if match else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tolerance", type=float, default=3.0, help="percent slower that is marked (3)")
    parser.add_argument("--all-columns", action="store_true", help="the peers' columns too")
    a = parser.parse_args()
    slower = 0
    print("| program | row | column | before | after | change |")
    print("|---|---|---|---|---|---|")
    for name in sorted(os.listdir(a.after)):
        if not name.endswith(".md") or name == "run.md" or not os.path.exists(os.path.join(a.before, name)):
            continue
        before, after = tables(os.path.join(a.before, name)), tables(os.path.join(a.after, name))
        for key in [k for k in after if k in before]:
            for column, cell in after[key].items():
                if "ms" not in column or column not in before[key]:
                    continue
                if not a.all_columns and re.search(r"ITK|CPU|CuPy|VTK", column):
                    continue
                t0, t1 = number(before[key][column]), number(cell)
                if t0 is None or t1 is None or t0 <= 0:
                    continue
                change = 100.0 * (t1 / t0 - 1.0)
                mark = " **slower**" if change > a.tolerance else ""
                slower += bool(mark)
                print("| %s | %s | %s | %g | %g | %+.1f %%%s |" % (name[:-3], key[1], column, t0, t1, change, mark))
        for key in sorted(set(before) ^ set(after)):
            print("| %s | %s | (in one run only: %s) | | | |" % (name[:-3], key[1], "before" if key in before else "after"))
    print("\n%d time(s) more than %g %% slower" % (slower, a.tolerance))
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
