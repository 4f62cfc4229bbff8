#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Hunts flaky tests: runs every GoogleTest binary (*Tests) of a folder N times in a row
# (--gtest_repeat; each repeat draws fresh seeds, and a failing test prints its seed
# through SCOPED_TRACE), then prints one line per binary and a total.
#
#   Testing/RepeatTests.sh [BIN_DIR=build/bin] [N=20] [GTEST_FILTER='*']
#
# On this machine (no GPU) the GPU tests skip and the CPU twins repeat; on the GPU
# machine run it over the bundle: bash .gpu/run bash Testing/RepeatTests.sh .gpu/bin 5
# Exit status 1 when any repeat failed; the failing tests' lines (with their seeds)
# are printed.
set -uo pipefail
bin_dir=${1:-build/bin}
repeats=${2:-20}
filter=${3:-*}
failed_binaries=0
total_runs=0
for exe in "$bin_dir"/*Tests; do
  [[ -x "$exe" ]] || continue
  log=$(mktemp)
  "$exe" --gtest_repeat="$repeats" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1
  status=$?
  tests=$("$exe" --gtest_list_tests --gtest_filter="$filter" | grep -c '^  ')
  failures=$(grep -c '^\[  FAILED  \] [A-Za-z]' "$log" || true)
  total_runs=$((total_runs + tests * repeats))
  if [[ $status -ne 0 || $failures -ne 0 ]]; then
    failed_binaries=$((failed_binaries + 1))
    echo "$(basename "$exe"): $tests tests x $repeats repeats: FAILED (exit $status)"
    grep -B8 '^\[  FAILED  \] [A-Za-z]' "$log" | grep -E 'seed|Failure|FAILED|Expected|actual|Which is' | head -40
  else
    echo "$(basename "$exe"): $tests tests x $repeats repeats: all passed"
  fi
  rm -f "$log"
done
echo "$total_runs test runs; $failed_binaries binaries with a failure"
[[ $failed_binaries -eq 0 ]]
