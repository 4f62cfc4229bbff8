#!/usr/bin/env bash
# The module's elastic registration next to Debian's elastix 5.0.1 on the same
# smooth-noise pairs with a known B-spline warp (ElasticRegistrationExample makes
# them): elastix with its B-spline schedule (elastix/bspline-mattes.txt: 3 levels x
# 250 iterations, 2048 random samples per iteration, Mattes, final grid 16 voxels) on
# all host cores, then the module through ITK's ImageRegistrationMethodv4 with the
# same levels, iterations and grid, once with 2048 random points per level (ITK's
# RANDOM strategy draws them once per level; elastix draws new ones every iteration)
# and once dense (every voxel, every iteration). Prints each run's time and its
# deformation error against the known warp.
#
#   RegistrationVsElastix.sh BIN_DIR [sizes, default "128 256"] [seed, default 7]
#   (BIN_DIR holds ElasticRegistrationExample, elastix and transformix, or they are on PATH)
set -euo pipefail
bin=${1:?usage: RegistrationVsElastix.sh BIN_DIR [sizes] [seed]}
sizes=${2:-"128 256"}
seed=${3:-7}
here=$(cd "$(dirname "$0")" && pwd)
params="$here/elastix/bspline-mattes.txt"
example="$bin/ElasticRegistrationExample"
elastix=$(command -v "$bin/elastix" || command -v elastix)
transformix=$(command -v "$bin/transformix" || command -v transformix)
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
  printf '%5s^3  elastix 5.0.1 (%s threads)          %8.2f s   %s\n' "$n" "$cores" "$(awk "BEGIN { print $end - $start }")" "$error"
  for run in "--metric mattes --samples 2048" "--metric mattes" "--metric meansquares"; do
    out=$("$example" "${common[@]}" $run 2>&1)
    t=$(echo "$out" | grep -o 'total [0-9.e+-]* s' | grep -o '[0-9.e+-]*' | head -1)
    e=$(echo "$out" | grep -o 'warp (inner 80 %, voxels): mean .*' | sed 's/.*voxels): //')
    printf '%5s^3  module %-34s %8.2f s   %s\n' "$n" "($run)" "$t" "$e"
  done
done
