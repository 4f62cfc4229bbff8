#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Line coverage of the CPU path: builds the project without CUDA, instrumented
# (--coverage, -O1), in WORK_DIR/build-coverage, runs its whole ctest suite, then
# reports with gcovr the lines of the library, the CLI modules and the applications
# (Modules/*/include, Modules/*/src, Plugin, Applications; tests, benchmarks and
# examples are not counted, as ITK's dashboards count) that the tests executed:
# one line per sub-module and the total, the figure ITK's compliance levels ask for
# (75 % for four stars, 90 % for five).
#
#   Testing/Coverage/measure-coverage.sh [-j N] WORK_DIR [-- extra cmake args]
#
# gcovr (Debian's package) is installed when missing. Writes WORK_DIR/coverage.json
# (gcovr's summary) and WORK_DIR/coverage.txt (per file). Template code is counted
# where it is instantiated: a header line no test instantiates is not a line to gcov.
set -euo pipefail
jobs=$(nproc)
if [[ "${1:-}" == "-j" ]]; then jobs=$2; shift 2; fi
[[ $# -ge 1 ]] || { sed -n '4,/^set -euo/p' "$0" | sed '$d'; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
work=$(cd "$1" && pwd); shift
[[ "${1:-}" == "--" ]] && shift
build=$work/build-coverage
if ! command -v gcovr > /dev/null; then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get install -y -qq --no-install-recommends gcovr > "$work/gcovr-install.log" 2>&1 ||
    { cat "$work/gcovr-install.log" >&2; exit 1; }
fi
SECONDS=0
# -O1: the tests' run time stays near the release build's (-O0 makes the registration
# tests several times slower); NDEBUG as in the release build.
cmake -S "$src" -B "$build" -DCudaImageFilters_USE_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG" -DCMAKE_CXX_FLAGS=--coverage \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage "$@" > "$work/coverage-configure.log"
cmake --build "$build" -j"$jobs" > "$work/coverage-build.log" 2>&1 ||
  { tail -30 "$work/coverage-build.log" >&2; exit 1; }
build_seconds=$SECONDS
SECONDS=0
find "$build" -name '*.gcda' -delete
# A failing test still leaves its counts; the suite's result is reported, not hidden.
tests=ok
ctest --test-dir "$build" -j"$jobs" > "$work/coverage-ctest.log" 2>&1 || tests=failed
test_seconds=$SECONDS
counted=("--filter" "$src/Modules/[A-Za-z]+/(include|src)/" "--filter" "$src/Plugin/"
         "--filter" "$src/Applications/" "--exclude" ".*/Testing/.*")
gcovr -r "$src" --object-directory "$build" -j "$jobs" --gcov-ignore-parse-errors "${counted[@]}" \
  --json-summary "$work/coverage.json" --txt "$work/coverage.txt" > /dev/null
python3 - "$work/coverage.json" "$src" <<'PY'
import json, re, sys
summary = json.load(open(sys.argv[1]))
groups = {}
for f in summary["files"]:
    name = f["filename"]
    m = re.match(r"Modules/([A-Za-z]+)/", name)
    group = m.group(1) if m else name.split("/")[0]
    covered, total = groups.get(group, (0, 0))
    groups[group] = (covered + f["line_covered"], total + f["line_total"])
for group, (covered, total) in sorted(groups.items()):
    print(f"{group:24s} {100.0 * covered / max(total, 1):5.1f} % of {total:6d} lines")
print(f"{'all':24s} {summary['line_percent']:5.1f} % of {summary['line_total']:6d} lines "
      f"({summary['line_covered']} executed)")
PY
echo "coverage: build $build_seconds s, ctest $test_seconds s (tests $tests: $(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$work/coverage-ctest.log" | tail -1 || true))"
[[ $tests == ok ]]
