#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Configures, builds and tests subsets of the library's sub-modules (CIF_SUBMODULES,
# Modules/CMakeLists.txt), the CPU path alone (CudaImageFilters_USE_CUDA=OFF), each in
# its own build folder WORK_DIR/build-subset-<subset>, so that a subset keeps building with the tests,
# CLI modules, examples and benchmarks it can have:
#
#   Testing/SubsetBuilds/build-subsets.sh [--configure-only] [-j N] WORK_DIR SUBSET...
#                                         [-- extra cmake args]
#
# A SUBSET is sub-modules separated by commas ("BSpline", "Resample,Smoothing"), or
# "all" for the default (every sub-module); what a subset needs is added by the
# configure (its message is printed here). A configure that prints a CMake warning
# fails. -j N: build and test jobs (default: the cores). Prints one result line per
# subset with its times; exits 1 when one failed. Logs: WORK_DIR/build-subset-<subset>.log.
set -euo pipefail
configure_only=0
jobs=$(nproc)
while [[ $# -gt 0 && "$1" == -* && "$1" != "--" ]]; do
  case $1 in
    --configure-only) configure_only=1; shift ;;
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 2 ]] || { sed -n '4,/^set -euo/p' "$0" | sed '$d'; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
work=$(cd "$1" && pwd); shift
subsets=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  subsets+=("$1"); shift
done
[[ $# -gt 0 ]] && shift
extra=("$@")

failed=0
for subset in "${subsets[@]}"; do
  folder=$work/build-subset-${subset//,/-}
  log=$folder.log
  args=(-S "$src" -B "$folder" -DCMAKE_BUILD_TYPE=Release -DCudaImageFilters_USE_CUDA=OFF)
  if [[ "$subset" != "all" ]]; then
    args+=("-DCIF_SUBMODULES=${subset//,/;}")
  fi
  args+=("${extra[@]}")
  verdict=ok
  times=""
  SECONDS=0
  if ! cmake "${args[@]}" >"$log" 2>&1; then
    verdict="configure failed"
  elif grep -Eq '^CMake ([A-Za-z]+ )?Warning' "$log"; then
    verdict="configure warned"
  fi
  times="configure ${SECONDS} s"
  grep '^-- CudaImageFilters: CIF_SUBMODULES .* needs ' "$log" | sed 's/^-- //' || true
  if [[ $verdict == ok && $configure_only -eq 0 ]]; then
    SECONDS=0
    cmake --build "$folder" -j"$jobs" >>"$log" 2>&1 || verdict="build failed"
    times+=", build ${SECONDS} s"
    if [[ $verdict == ok ]]; then
      SECONDS=0
      ctest --test-dir "$folder" --output-on-failure -j"$jobs" >>"$log" 2>&1 || verdict="tests failed"
      times+=", ctest ${SECONDS} s ($(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1 || true))"
    fi
  fi
  [[ $verdict == ok ]] || failed=1
  echo "$subset: $verdict ($times); log $log"
done
exit $failed
