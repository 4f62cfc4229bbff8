#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The module's affine + SyN against its peers on one brain pair, scored by one scorer
# (syn_peers.py score: global NCC after, the Jacobian determinant of the whole
# fixed-to-moving map and its folded voxels, all from each tool's map on the fixed grid):
#
#   Testing/Benchmark/SyNVsPeers.sh FIXED MOVING WORK [--module BIN] [--fireants] [--antspy]
#                                   [--repeats N]
#
#   --module BIN   SyNBrainExample from BIN (GPU; the CPU path with CIF_SYN_CPU=1)
#   --fireants     FireANTs on the GPU (python3 with torch and fireants), N runs, the best
#                  after the first
#   --antspy       ANTsPy's ants.registration(type_of_transform='SyN') on every host core
# Prints a Markdown table; each tool's own output is kept in WORK/<tool>.log.
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '4,14p' "$0"; exit 2; }
fixed=$1 moving=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
module="" run_fireants=0 run_antspy=0 repeats=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --module) module=$2; shift 2 ;;
    --fireants) run_fireants=1; shift ;;
    --antspy) run_antspy=1; shift ;;
    --repeats) repeats=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
export ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS=${ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS:-$(nproc)}
rows=()
row() { # row NAME WHERE SECONDS WARP
  local figures
  figures=$(python3 "$here/syn_peers.py" score "$fixed" "$moving" "$4")
  # ncc N jacobian MIN MAX folded F of V
  read -r _ ncc _ jmin jmax _ folded _ voxels <<<"$figures"
  rows+=("| $1 | $2 | $3 | $ncc | $jmin to $jmax | $folded of $voxels |")
}

row "before (the identity)" "" "" identity
if [[ -n "$module" ]]; then
  where=GPU
  flags=(--full-warp)
  if [[ "${CIF_SYN_CPU:-0}" == 1 ]]; then where="CPU path, $(nproc) threads"; flags+=(--cpu); fi
  for k in $(seq 1 "$repeats"); do
    "$module/SyNBrainExample" "$fixed" "$moving" "$work/module-" "${flags[@]}" >"$work/module-$k.log" 2>&1
  done
  cat "$work/module-1.log"
  seconds=()
  for k in $(seq 1 "$repeats"); do
    a=$(sed -nE 's/^global NCC after affine: [0-9.]+ \(([0-9.]+) s\).*/\1/p' "$work/module-$k.log")
    s=$(sed -nE 's/^global NCC after SyN: +[0-9.]+ \(([0-9.]+) s.*/\1/p' "$work/module-$k.log")
    seconds+=("$(python3 -c "print('%.2f' % ($a + $s))")")
  done
  row "module: affine + SyN (\`SyNBrainExample\`)" "$where" "${seconds[*]}" "$work/module-FullWarp.nii.gz"
fi
if [[ $run_fireants == 1 ]]; then
  mkdir -p "$work/fireants"
  python3 "$here/syn_peers.py" fireants "$fixed" "$moving" "$work/fireants" --repeats "$repeats" 2>&1 | tee "$work/fireants.log" | grep -E '^(fireants|seconds)'
  runs=$(sed -nE 's/^fireants loss ([a-z]+) runs (.*)/\2 (\1)/p' "$work/fireants.log")
  row "FireANTs $(python3 -c 'import importlib.metadata as m; print(m.version("fireants"))'): moments, affine, SyN" GPU "$runs" "$work/fireants/FullWarp.nii.gz"
fi
if [[ $run_antspy == 1 ]]; then
  mkdir -p "$work/antspy"
  python3 "$here/syn_peers.py" antspy "$fixed" "$moving" "$work/antspy" 2>&1 | tee "$work/antspy.log" | grep -E '^(antspy|seconds)'
  seconds=$(sed -nE 's/^seconds ([0-9.]+)/\1/p' "$work/antspy.log")
  row "ANTsPy $(python3 -c 'import importlib.metadata as m; print(m.version("antspyx"))'): \`type_of_transform='SyN'\`" "CPU, $ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS threads" "$seconds" "$work/antspy/FullWarp.nii.gz"
fi

echo
echo "| registration | where | seconds (each run) | global NCC after | Jacobian determinant | folded voxels |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
