#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Runs every benchmark program with the command whose tables the documentation shows and
# writes each program's output, as printed, to OUT_DIR/<Program>.md, with the command,
# device, date and commit in a header; OUT_DIR/run.md describes the machine; OUT_DIR.tar
# holds the folder in one file.
# Utilities/Documentation/MakePerformancePage.py builds Documentation/Performance.md (and the
# READMEs' tables) from such folders, committed as Documentation/Performance/<date>-<device>/.
#
#   Testing/Benchmark/RunBenchmarks.sh BIN_DIR OUT_DIR [--commit HASH] [--quick] [PROGRAM...]
#
# --quick: the GPU rows only, 5 repeats (no ITK, VTK or CPU-path peers), for comparing two
# builds on one machine (Testing/Benchmark/CompareBenchmarkRuns.py). Naming programs runs
# those alone. Run it from the repository root (the CuPy peers are read from here).
set -uo pipefail
usage="usage: RunBenchmarks.sh BIN_DIR OUT_DIR [--commit HASH] [--quick] [PROGRAM...]"
[[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
bin=$1 out=$2
shift 2
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
quick=0
only=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --commit) commit=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) only+=("$1"); shift ;;
  esac
done
[[ -d $bin ]] || { echo "error: no folder $bin" >&2; exit 2; }
mkdir -p "$out"
cupy=Testing/Benchmark/cupy_peer.py
table_cupy=Testing/Benchmark/cupy_table_peer.py
# program | time limit (s) | arguments | --quick arguments
commands=(
  "PrefilterBenchmark|240|--sizes 256 512 --cupy $cupy|--sizes 256 512 --repeat 5 --itk-max 0"
  "ResampleBenchmark|240|--sizes 256 512 --cupy $cupy|--sizes 256 512 --repeat 5 --itk-max 0"
  "TextureModeBenchmark|120|256 512|256 512 --repeat 5"
  "ConvolutionBenchmark|240|--cupy $cupy|--repeat 5 --itk-max 0"
  "DirectionalFilterBankBenchmark|240|--sizes 1024 4096|--sizes 1024 4096 --repeat 5 --itk-max 0"
  "TableLookupBenchmark|240|--cupy $table_cupy|--repeat 5"
  "RegistrationBenchmark|300|--sizes 256 --no-itk --no-cpu-path --repeat 15|--sizes 256 --no-itk --no-cpu-path --repeat 5"
  "SyNBenchmark|300|--size 128|--size 128 --no-itk --no-cpu-path"
  "HostTransferBenchmark|240|--size 512 --image 4096 --repeat 30|--size 512 --image 4096 --repeat 5"
  "LargeDataBenchmark|300|--size 1024|--size 1024 --no-limited"
  "LatencyBenchmark|180|--runs 15|--runs 5"
  "VTKBenchmark|240|--sizes 256 512 --repeat 10|--sizes 256 512 --repeat 5 --itk-max 0"
)
{
  echo "# Benchmark run"
  echo
  echo "- date: $(date -u +%Y-%m-%d)"
  echo "- commit: $commit"
  gpus=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null)
  echo "- devices: ${gpus:-none}" | sed '2,$s/^/  /'
  echo "- host: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "- mode: $([[ $quick -eq 1 ]] && echo 'quick (GPU rows, 5 repeats)' || echo 'full')"
} > "$out/run.md"
status=0
for entry in "${commands[@]}"; do
  IFS='|' read -r program limit arguments quick_arguments <<< "$entry"
  if [[ ${#only[@]} -gt 0 ]] && ! printf '%s\n' "${only[@]}" | grep -qx "$program"; then continue; fi
  [[ $quick -eq 1 ]] && arguments=$quick_arguments
  if [[ ! -x $bin/$program ]]; then
    echo "$program: not built, skipped"
    continue
  fi
  SECONDS=0
  # shellcheck disable=SC2086 # the arguments are words
  timeout "$limit" "$bin/$program" $arguments > "$out/$program.out" 2>&1
  rc=$?
  {
    echo "<!-- command: $program $arguments -->"
    echo "<!-- date: $(date -u +%Y-%m-%d), commit: $commit, exit status: $rc, $SECONDS s -->"
    echo
    cat "$out/$program.out"
  } > "$out/$program.md"
  rm -f "$out/$program.out"
  echo "$program: exit status $rc, $SECONDS s"
  [[ $rc -eq 0 ]] || status=1
done
tar -cf "$out.tar" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null || true
exit $status
