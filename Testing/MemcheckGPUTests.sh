#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Runs compute-sanitizer's memcheck, with the leak check, over every GoogleTest binary
# (*Tests) of a folder on a GPU machine, and fails on any error other than the
# deliberate ones, which it counts per binary: out of memory (the tests that fill the
# device or ask for more than it has: cudaErrorMemoryAllocation) and invalid device
# ordinals (the tests that name a device that does not exist: cudaErrorInvalidDevice).
#
#   bash .gpu/run bash Testing/MemcheckGPUTests.sh [BIN_DIR=.gpu/bin] [GTEST_FILTER='*GPU*']
#
# One line per binary: its tests' result, leaked bytes, deliberate OOM reports, other
# errors (printed); a final line; exit status 1 on any leak or other error.
set -uo pipefail
bin_dir=${1:-.gpu/bin}
filter=${2:-*GPU*}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
bad=0
for exe in "$bin_dir"/*Tests; do
  [[ -x "$exe" ]] || continue
  log=$(mktemp)
  "$sanitizer" --tool memcheck --leak-check full "$exe" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1
  status=$?
  leaked=$(grep -oP 'LEAK SUMMARY: \K[0-9]+(?= bytes leaked)' "$log" | tail -1)
  # Each sanitizer report starts with "========= " and a first line naming the error.
  reports=$(grep -E '^========= (Program hit|Invalid|Uninitialized|Leaked|Race|Barrier|Misaligned|Out-of-range|Malloc|Cuda API|Error)' "$log")
  deliberate='cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|out of memory|cudaErrorInvalidDevice|invalid device ordinal'
  oom=$(grep -cE 'cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|out of memory' <<<"$reports")
  ordinals=$(grep -cE 'cudaErrorInvalidDevice|invalid device ordinal' <<<"$reports")
  others=$(grep -vE "$deliberate" <<<"$reports" | grep -c . )
  tests=$(grep -E '^\[  (PASSED|FAILED)  \]' "$log" | tr '\n' ' ')
  if [[ "$tests" == "[  PASSED  ] 0 tests. " ]]; then
    # no test of this binary matches the filter: nothing ran on the device (the
    # sanitizer then reports that the program ended before any CUDA call)
    echo "$(basename "$exe"): no test matches $filter"
    rm -f "$log"
    continue
  fi
  echo "$(basename "$exe"): ${tests:-no tests run} leaked ${leaked:-?} bytes; deliberate reports: $oom out of memory, $ordinals invalid device; other errors: $others (exit $status)"
  if [[ "${leaked:-0}" != "0" || $others -ne 0 || $status -ne 0 ]]; then
    bad=1
    grep -vE "$deliberate" <<<"$reports" | sort | uniq -c | head -10
    grep -E '^\[  FAILED  \]|Failure|Expected|Which is|actual' "$log" | head -12
    grep -A4 'Leaked' "$log" | head -20
  fi
  rm -f "$log"
done
[[ $bad -eq 0 ]] && echo "memcheck: clean (no leak, no error but the deliberate ones)" || echo "memcheck: FAILED"
exit $bad
