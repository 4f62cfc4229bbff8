#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Builds Documentation/Performance.md, and the benchmark tables of the READMEs, from the
benchmark programs' own output files.

Testing/Benchmark/RunBenchmarks.sh writes one folder per run (run.md and one <Program>.md
per program); a run is committed as Documentation/Performance/<YYYY-MM-DD>-<device>/. The
page shows, for every program, the output of its newest run; a README shows one table of it
where it holds the markers

    <!-- performance: PrefilterBenchmark table=1 -->
    <!-- /performance -->

(table=N: the program's N-th table, from 1; rows="1-4,9" keeps those of its rows), which
this script fills with the command, the device, the date and the table; and one cell of such a table where it holds

    <!-- cell: PrefilterBenchmark table=1 row="512^3 float" column="vs ITK" --><!-- /cell -->

(the row by its first cell, the column by its header; column="@run" gives the device and the
date of the program's run). Nothing between markers is typed by hand.

    Utilities/Documentation/MakePerformancePage.py           # write the page and the tables
    Utilities/Documentation/MakePerformancePage.py --check   # exit 1 if either is stale
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join(ROOT, "Documentation", "Performance")
PAGE = os.path.join(ROOT, "Documentation", "Performance.md")
RUN_FOLDER = re.compile(r"^(\d{4}-\d{2}-\d{2})-(.+)$")
HEADER = re.compile(r"^<!-- (command|date): (.*) -->$")
MARKERS = re.compile(
    r'(<!-- performance: (?P<program>\w+) table=(?P<table>\d+)(?: rows="(?P<rows>[\d,-]+)")? -->\n)(?P<body>.*?)(<!-- /performance -->)',
    re.S,
)
CELLS = re.compile(
    r'(<!-- cell: (?P<program>\w+) table=(?P<table>\d+) row="(?P<row>[^"]*)" column="(?P<column>[^"]*)" -->)'
    r"(?P<body>.*?)(<!-- /cell -->)"
)


class Output:
    """One program's output in one run folder."""

    def __init__(self, folder, program):
        self.folder = folder
        self.program = program
        self.date = RUN_FOLDER.match(folder).group(1)
        self.device = self.read_device()
        self.command = program
        self.details = ""
        self.lines = []
        with open(os.path.join(RUNS, folder, program + ".md"), encoding="utf-8") as f:
            for line in f.read().splitlines():
                header = HEADER.match(line)
                if header and not self.lines:
                    if header.group(1) == "command":
                        self.command = header.group(2)
                    else:  # "DATE, commit: ..., exit status: ..., N s": the date is the folder's
                        self.details = header.group(2).split(", ", 1)[-1]
                elif self.lines or line.strip():
                    self.lines.append(line.rstrip())

    def read_device(self):
        with open(os.path.join(RUNS, self.folder, "run.md"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("- devices: "):
                    return line[len("- devices: ") :].split(",")[0].strip()
        return "unknown device"

    def tables(self):
        found, current = [], []
        for line in self.lines + [""]:
            if line.startswith("|"):
                current.append(line)
            elif current:
                found.append(current)
                current = []
        return found

    def caption(self):
        return "`%s`, %s, %s" % (self.command, self.device, self.date)


def newest_outputs():
    """The newest output of every program, by program name."""
    newest = {}
    if not os.path.isdir(RUNS):
        return newest
    for folder in sorted(os.listdir(RUNS)):
        if not RUN_FOLDER.match(folder) or not os.path.isfile(os.path.join(RUNS, folder, "run.md")):
            continue
        for name in sorted(os.listdir(os.path.join(RUNS, folder))):
            if name.endswith(".md") and name != "run.md":
                newest[name[:-3]] = Output(folder, name[:-3])
    return newest


def markdown_body(lines):
    """The program's lines as markdown: its tables as they are, every other line a paragraph."""
    out, previous_table = [], False
    for line in lines:
        table = line.startswith("|")
        if out and (not table or not previous_table):
            out.append("")
        out.append(line)
        previous_table = table
    while out and not out[-1]:
        out.pop()
    return out


def page(outputs):
    runs = sorted({o.folder for o in outputs.values()})
    text = [
        "# Performance",
        "",
        "Made by `Utilities/Documentation/MakePerformancePage.py` from the benchmark programs' own",
        "output files in [`Performance/`](Performance/) (`Testing/Benchmark/RunBenchmarks.sh` writes",
        "them); do not edit by hand. Each section is a program's newest output, as it printed it.",
        "",
        "Runs:",
        "",
    ]
    for folder in runs:
        with open(os.path.join(RUNS, folder, "run.md"), encoding="utf-8") as f:
            facts = [l.strip()[2:] for l in f if l.startswith("- ")]
        text.append("- [`%s`](Performance/%s/run.md): %s" % (folder, folder, "; ".join(facts)))
    text.append("")
    for program in sorted(outputs):
        o = outputs[program]
        text += ["## " + program, ""]
        text.append(
            "%s (%s; [output](Performance/%s/%s.md))." % (o.caption(), o.details or "no details", o.folder, program)
        )
        text.append("")
        text += markdown_body(o.lines)
        text.append("")
    return "\n".join(text)


def filled_readme(path, text, outputs):
    def fill(match):
        program, table = match.group("program"), int(match.group("table"))
        o = outputs.get(program)
        if o is None or not 1 <= table <= len(o.tables()):
            raise SystemExit("error: %s asks for table %d of %s, which no run has" % (path, table, program))
        link = os.path.relpath(PAGE, os.path.dirname(path)).replace(os.sep, "/") + "#" + program.lower()
        lines = o.tables()[table - 1]
        if match.group("rows"):
            keep = set()
            for part in match.group("rows").split(","):
                first, _, last = part.partition("-")
                keep.update(range(int(first), int(last or first) + 1))
            lines = lines[:2] + [row for i, row in enumerate(lines[2:], 1) if i in keep]
        body = ["%s ([all of its output](%s)):" % (o.caption(), link), ""] + lines
        return match.group(1) + "\n".join(body) + "\n" + match.group(6)

    def cell(match):
        program, table = match.group("program"), int(match.group("table"))
        o = outputs.get(program)
        where = '%s: table %d of %s, row "%s", column "%s"' % (path, table, program, match.group("row"), match.group("column"))
        if o is None or not 1 <= table <= len(o.tables()):
            raise SystemExit("error: %s: no run has that table" % where)
        if match.group("column") == "@run":  # where and when the program ran
            return match.group(1) + "%s, %s" % (o.device.replace("NVIDIA ", ""), o.date) + match.group(7)
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in o.tables()[table - 1]]
        header = rows[0]
        for cells in rows[2:]:
            if cells[0] == match.group("row") and match.group("column") in header:
                return match.group(1) + cells[header.index(match.group("column"))] + match.group(7)
        raise SystemExit("error: %s: no such cell" % where)

    return CELLS.sub(cell, MARKERS.sub(fill, text))


def readmes():
    for directory, folders, files in os.walk(ROOT):
        folders[:] = [d for d in folders if not d.startswith(".") and not d.startswith("build")]
        for name in files:
            if name == "README.md":
                yield os.path.join(directory, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page or a README table is stale")
    check = parser.parse_args().check
    outputs = newest_outputs()
    wanted = {PAGE: page(outputs) + "\n"}
    for path in readmes():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if MARKERS.search(text) or CELLS.search(text):
            wanted[path] = filled_readme(path, text, outputs)
    stale = []
    for path, text in wanted.items():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    if check and stale:
        print("error: stale; run Utilities/Documentation/MakePerformancePage.py: " + ", ".join(stale), file=sys.stderr)
        return 1
    if not check:
        print("MakePerformancePage: %d file(s) written%s" % (len(stale), (": " + ", ".join(stale)) if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
