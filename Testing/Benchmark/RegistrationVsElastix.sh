#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The module's elastic registration next to Debian's elastix 5.0.1 on the same
# smooth-noise pairs with a known B-spline warp (ElasticRegistrationExample makes
# them): elastix with its B-spline schedule (elastix/bspline-mattes.txt: 3 levels x
# 250 iterations, 2048 random samples per iteration, Mattes, final grid 16 voxels) on
# all host cores, then the module through ITK's ImageRegistrationMethodv4 with the
# same levels, iterations and grid: with 2048 new random points every iteration
# (elastix's schedule: the metric twins' random points per evaluation and a stochastic
# gradient descent), with 2048 random points per level (ITK's RANDOM strategy draws
# them once per level), and dense (every voxel, every iteration); and the ElasticRegistrationCLI module
# end to end (reading the pair, registering, writing the transform: B-spline stage
# alone, Mattes with 32 bins, the same levels, iterations and grid; 2048 new random points
# every iteration, 2048 per level, then dense) as a user would run it, its field made by
# BSplineDisplacementFieldCLI. Prints each run's time and its deformation error
# against the known warp.
#
#   RegistrationVsElastix.sh BIN_DIR [sizes, default "128 256"] [seed, default 7]
#   (BIN_DIR holds ElasticRegistrationExample, elastix and transformix, or they are on PATH;
#    CLI_DIR, default BIN_DIR/../cli-modules, the CLI modules: their row is left out without them;
#    DROPIN_DIR, default BIN_DIR/../elastix-gpu, the elastix drop-in: the same, with elastix's file)
set -euo pipefail
bin=${1:?usage: RegistrationVsElastix.sh BIN_DIR [sizes] [seed]}
sizes=${2:-"128 256"}
seed=${3:-7}
here=$(cd "$(dirname "$0")" && pwd)
params="$here/elastix/bspline-mattes.txt"
example="$bin/ElasticRegistrationExample"
elastix=$(command -v "$bin/elastix" || command -v elastix)
transformix=$(command -v "$bin/transformix" || command -v transformix)
cli=${CLI_DIR:-$bin/../cli-modules}
dropin=${DROPIN_DIR:-$bin/../elastix-gpu}
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "RegistrationVsElastix: $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo 'no GPU'), $cores host cores"
for n in $sizes; do
  d="$work/$n"; mkdir -p "$d/elastix" "$d/field"
  common=(--size "$n" --seed "$seed" --no-affine --levels 3 --iterations 250 --grid-spacing 16)
  "$example" "${common[@]}" --write "$d" > /dev/null
  start=$(date +%s.%N)
  "$elastix" -f "$d/fixed.mha" -m "$d/moving.mha" -p "$params" -out "$d/elastix" -threads "$cores" > "$d/elastix.log" 2>&1
  end=$(date +%s.%N)
  "$transformix" -def all -tp "$d/elastix/TransformParameters.0.txt" -out "$d/field" > "$d/transformix.log" 2>&1
  error=$("$example" "${common[@]}" --field-error "$d/field/deformationField.mha" | grep -o 'mean .*')
  printf '%5s^3  %-53s %8.2f s   %s\n' "$n" "elastix 5.0.1 ($cores threads)" "$(awk "BEGIN { print $end - $start }")" "$error"
  if [[ -x "$dropin/elastix" ]]; then # the module's elastix drop-in, the same parameter file
    mkdir -p "$d/dropin" "$d/dropin-field"
    start=$(date +%s.%N)
    "$dropin/elastix" -f "$d/fixed.mha" -m "$d/moving.mha" -p "$params" -out "$d/dropin" > "$d/dropin.log" 2>&1
    end=$(date +%s.%N)
    "$dropin/transformix" -def all -tp "$d/dropin/TransformParameters.0.txt" -out "$d/dropin-field" > /dev/null 2>&1
    error=$("$example" "${common[@]}" --field-error "$d/dropin-field/deformationField.mha" | grep -o 'mean .*')
    printf '%5s^3  %-53s %8.2f s   %s\n' "$n" "elastix drop-in (the same file)" "$(awk "BEGIN { print $end - $start }")" "$error"
  fi
  for run in "--metric mattes --samples 2048 --new-samples" "--metric mattes --samples 2048" "--metric mattes" \
    "--metric meansquares"; do
    out=$("$example" "${common[@]}" $run 2>&1)
    t=$(echo "$out" | grep -o 'total [0-9.e+-]* s' | grep -o '[0-9.e+-]*' | head -1)
    e=$(echo "$out" | grep -o 'warp (inner 80 %, voxels): mean .*' | sed 's/.*voxels): //')
    printf '%5s^3  %-53s %8.2f s   %s\n' "$n" "module ($run)" "$t" "$e"
  done
  if [[ -x "$cli/ElasticRegistrationCLI" && -x "$cli/BSplineDisplacementFieldCLI" ]]; then
    fraction=$(awk "BEGIN { print 2048 / ($n * $n * $n) }")
    for sampling in "randomEveryIteration --pointsPerIteration 2048" "random --samplingPercentage $fraction" "dense"; do
      start=$(date +%s.%N)
      "$cli/ElasticRegistrationCLI" --stages bspline --metric MattesMI --histogramBins 32 --levels 3 --iterations 250 \
        --gridSpacing 16 --sampling $sampling --seed 121212 \
        --outputTransform "$d/cli.h5" "$d/fixed.mha" "$d/moving.mha" > "$d/cli.log" 2>&1
      end=$(date +%s.%N)
      "$cli/BSplineDisplacementFieldCLI" --transform "$d/cli.h5" --referenceVolume "$d/fixed.mha" "$d/cli-field.mha" > "$d/cli-field.log" 2>&1
      error=$("$example" "${common[@]}" --field-error "$d/cli-field.mha" | grep -o 'mean .*')
      path=$(grep -o 'wrote the transform ([A-Z,]*' "$d/cli.log" | sed 's/.*(//; s/,$//')
      case $sampling in
        dense) kind="dense" ;;
        randomEveryIteration*) kind="2048 new random every iteration" ;;
        *) kind="2048 random per level" ;;
      esac
      label="ElasticRegistrationCLI ($kind, $path)"
      printf '%5s^3  %-53s %8.2f s   %s\n' "$n" "$label" "$(awk "BEGIN { print $end - $start }")" "$error"
    done
  else
    echo "(no ElasticRegistrationCLI / BSplineDisplacementFieldCLI in $cli: its row is left out)"
  fi
done
