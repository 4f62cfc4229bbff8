#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Builds CudaImageFilters against one ITK source tree both ways a user builds it,
# and runs the tests:
#   1. a minimal ITK (the modules the project uses), installed;
#   2. standalone: find_package(ITK) against that installation;
#   3. in-tree: the project copied to ITK's Modules/Remote/CudaImageFilters and built
#      inside ITK's own build tree with -DModule_CudaImageFilters=ON.
# The C++ side alone (CudaImageFilters_USE_CUDA=OFF): every ITK check is about the
# ITK-facing code, which the GPU build shares.
#
#   Testing/ITKVersions/build-against-itk.sh [--only standalone|in-tree] [--cudacommon REPO
#                                            [--cudacommon-tag TAG]] ITK_SOURCE_DIR [WORK_DIR]
#                                            [-- extra ITK cmake args]
#
# WORK_DIR (default ~/.cache/cudaimagefilters-itk) keeps the ITK builds and
# installations, so that a second run rebuilds only the project. Extra arguments
# after -- go to ITK's configure (e.g. -DITK_LEGACY_REMOVE=ON) and name the ITK
# build (its folders get a suffix). --cudacommon REPO adds ITK's remote module
# CudaCommon (RTKConsortium/ITKCudaCommon) to the in-tree build, fetched by ITK's own
# CudaCommon.remote.cmake from REPO (a local clone: its GIT_REPOSITORY is pointed
# there; --cudacommon-tag TAG builds another of its commits than ITK's file names: the
# one ITK 5.4.7 names predates CUDA 13); it needs the CUDA toolkit. Prints one result
# line per way and the times.
set -euo pipefail
only=""
cudacommon=""
cudacommon_tag=""
while [[ $# -gt 0 && "$1" == --* && "$1" != "--" ]]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --cudacommon) cudacommon=$(cd "$2" && pwd); shift 2 ;;
    --cudacommon-tag) cudacommon_tag=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 ]] || { sed -n '4,/^set -euo/p' "$0" | sed '$d'; exit 2; }
itk_src=$(cd "$1" && pwd); shift
work=${HOME}/.cache/cudaimagefilters-itk
if [[ $# -ge 1 && "$1" != "--" ]]; then work=$1; shift; fi
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
project=$(cd "$(dirname "$0")/../.." && pwd)
jobs=$(nproc)
version=$(sed -nE 's/^set\(ITK_VERSION_(MAJOR|MINOR|PATCH) "([0-9]+)"\)/\2/p' "$itk_src/CMake/itkVersion.cmake" | paste -sd.)
git_version=$(git -C "$itk_src" describe --tags 2>/dev/null || true)
[[ -n "$version" ]] || { echo "error: no ITK version found in $itk_src/CMake/itkVersion.cmake" >&2; exit 2; }
suffix=""
if [[ ${#extra[@]} -gt 0 ]]; then suffix="-$(printf '%s' "${extra[*]}" | tr -c 'A-Za-z0-9=' '_' | tr '=' '-')"; fi
name="itk-${version}${suffix}"
mkdir -p "$work"
itk_build=$work/$name-build
itk_install=$work/$name
logs=$work/$name-logs
mkdir -p "$logs"
echo "ITK $version${git_version:+ ($git_version)} from $itk_src; work folder $work; logs in $logs"

# The ITK modules of itk-module.cmake's DEPENDS, COMPILE_DEPENDS and PRIVATE_DEPENDS lists.
modules=$(sed -n '/^set(CudaImageFilters_ITK_/,/)/p' "$project/itk-module.cmake" | grep -oE '\bITK[A-Za-z0-9]+' | sort -u)
step() { # step NAME LOG COMMAND...: runs one step quietly, prints its time, the log's tail on failure
  local what=$1 log=$2; shift 2
  local t0=$SECONDS
  if "$@" >"$log" 2>&1; then
    echo "  $what: $((SECONDS - t0)) s"
  else
    echo "  $what: FAILED after $((SECONDS - t0)) s (log $log):"; tail -30 "$log"; return 1
  fi
}
itk_args=(-DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF -DITK_BUILD_DEFAULT_MODULES=OFF -DCMAKE_BUILD_TYPE=Release
          -DBUILD_SHARED_LIBS=ON -DITK_WRAP_PYTHON=OFF -DCMAKE_INSTALL_PREFIX="$itk_install" "${extra[@]}")
for m in $modules; do itk_args+=("-DModule_$m=ON"); done

if [[ ! -f "$itk_install/.complete" ]]; then
  echo "ITK $version: minimal build (${modules//$'\n'/ })"
  step "configure" "$logs/itk-configure.log" cmake -S "$itk_src" -B "$itk_build" "${itk_args[@]}"
  step "build" "$logs/itk-build.log" cmake --build "$itk_build" -j"$jobs"
  step "install" "$logs/itk-install.log" cmake --install "$itk_build"
  touch "$itk_install/.complete"
else
  echo "ITK $version: installed in $itk_install (reused)"
fi

results=()
warnings() { # the CMake and compiler warnings of a log
  grep -cE 'CMake Warning|CMake Deprecation Warning|warning:' "$1" || true
}
run_ctest() { # run_ctest BUILD_DIR LOG: the summary line of ctest
  ctest --test-dir "$1" -j"$jobs" --output-on-failure >"$2" 2>&1 || true
  grep -E 'tests passed|tests failed' "$2" | tail -1
}

if [[ "$only" != "in-tree" ]]; then
echo "standalone (find_package(ITK) against $itk_install)"
standalone=$work/$name-standalone
itk_dir=$(dirname "$(find "$itk_install/" -name ITKConfig.cmake | head -1)")
t0=$SECONDS
step "configure" "$logs/standalone-configure.log" cmake -S "$project" -B "$standalone" -DCMAKE_BUILD_TYPE=Release \
  -DITK_DIR="$itk_dir" -DCudaImageFilters_USE_CUDA=OFF
found=$(grep -oE 'CudaImageFilters: ITK [0-9.]+' "$logs/standalone-configure.log" | grep -oE '[0-9.]+$')
[[ "$found" == "$version" ]] || { echo "error: the configure found ITK $found, not $version" >&2; exit 1; }
step "build" "$logs/standalone-build.log" cmake --build "$standalone" -j"$jobs"
summary=$(run_ctest "$standalone" "$logs/standalone-ctest.log")
w=$(( $(warnings "$logs/standalone-configure.log") + $(warnings "$logs/standalone-build.log") ))
results+=("ITK $version${suffix:+ ($suffix)}, standalone: $summary; $w warnings; $((SECONDS - t0)) s")
echo "  ${results[-1]}"

fi

if [[ "$only" != "standalone" ]]; then
echo "in-tree (Modules/Remote/CudaImageFilters, -DModule_CudaImageFilters=ON${cudacommon:+, with CudaCommon})"
intree_args=()
if [[ -n "$cudacommon" ]]; then
  remote_file=$itk_src/Modules/Remote/CudaCommon.remote.cmake
  [[ -f "$remote_file.orig" ]] || cp "$remote_file" "$remote_file.orig"
  sed -E "s#^( *GIT_REPOSITORY ).*#\1$cudacommon#" "$remote_file.orig" >"$remote_file"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  intree_args+=(-DModule_CudaCommon=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90)
  [[ -z "$cudacommon_tag" ]] || intree_args+=(-DModule_CudaCommon_GIT_TAG="$cudacommon_tag")
fi
remote=$itk_src/Modules/Remote/CudaImageFilters
rm -rf "$remote"
mkdir -p "$remote"
# The working tree as it is (tracked and untracked-not-ignored files), not a commit.
(cd "$project" && git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$remote")
t0=$SECONDS
step "configure" "$logs/intree-configure.log" cmake -S "$itk_src" -B "$itk_build" "${itk_args[@]}" \
  -DModule_CudaImageFilters=ON -DCudaImageFilters_USE_CUDA=OFF -DCudaImageFilters_BUILD_TESTING=ON \
  -DCudaImageFilters_BUILD_EXAMPLES=ON "${intree_args[@]}"
step "build" "$logs/intree-build.log" cmake --build "$itk_build" -j"$jobs"
summary=$(run_ctest "$itk_build/Modules/Remote/CudaImageFilters" "$logs/intree-ctest.log")
w=$(( $(warnings "$logs/intree-configure.log") + $(warnings "$logs/intree-build.log") ))
results+=("ITK $version${suffix:+ ($suffix)}, in-tree: $summary; $w warnings; $((SECONDS - t0)) s")
echo "  ${results[-1]}"
# Leave ITK's build as it was found: the modules off again (their folders stay, unused).
cmake -S "$itk_src" -B "$itk_build" -DModule_CudaImageFilters=OFF -DModule_CudaCommon=OFF >/dev/null 2>&1 || true
[[ -z "$cudacommon" ]] || mv "$remote_file.orig" "$remote_file"
fi

echo "results ($(date -u +%Y-%m-%d), $(nproc) cores):"
printf '  %s\n' "${results[@]}"
