#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# GPU transformix: Debian's transformix 5.0.1 next to the module's CLIs on the same
# elastix transform parameter files, end to end (read the files, compute, write the
# result), and how far the two results lie apart.
#
# The files: an affine transform (TransformParameters.0.txt) then a cubic B-spline
# with a 16-voxel grid (TransformParameters.1.txt, which names the affine as its
# initial transform: elastix's chain after an affine-then-B-spline registration),
# written here with fixed pseudo-random coefficients of up to 3 voxels. The B-spline's
# grid reaches a cell past every point the affine maps the volume to: at the edge of
# its valid region a B-spline's displacement jumps to zero, and there float rounding
# decides which side a point falls on (at 256^3 a few voxels near that edge gave
# differences of a whole displacement when the grid was only as large as the volume).
# The volume: ElasticRegistrationExample's smooth-noise fixed image (float, N^3).
#   - field: `transformix -def all` against BSplineDisplacementFieldCLI
#   - image: `transformix -in` (cubic B-spline final interpolator) against CubicResampleCLI
#
#   TransformixVsModule.sh BIN_DIR [sizes, default "256"] [repeats, default 3]
#   BIN_DIR holds ElasticRegistrationExample, BSplineDisplacementFieldCLI,
#   CubicResampleCLI and CLITestVolumes (and transformix, or it is on PATH)
# Prints the fastest of the repeats of each run, and the largest difference found.
set -euo pipefail
bin=${1:?usage: TransformixVsModule.sh BIN_DIR [sizes] [repeats]}
sizes=${2:-"256"}
repeats=${3:-3}
transformix=$(command -v "$bin/transformix" || command -v transformix)
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1 || true)
echo "TransformixVsModule: $(date -u +%F), ${gpu:-no GPU}, $cores host cores"

# seconds of the fastest of $repeats runs of a command (its output to $work/log)
fastest() {
  local best=""
  for ((r = 0; r < repeats; r++)); do
    local start end
    start=$(date +%s.%N)
    "$@" > "$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }
    end=$(date +%s.%N)
    best=$(awk -v b="$best" -v t="$(awk "BEGIN { print $end - $start }")" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  echo "$best"
}

# the lines every parameter file of the chain shares: the fixed grid and the final resampling
image_lines() { # N
  cat << EOF
(FixedImageDimension 3)
(MovingImageDimension 3)
(FixedInternalImagePixelType "float")
(MovingInternalImagePixelType "float")
(Size $1 $1 $1)
(Index 0 0 0)
(Spacing 1 1 1)
(Origin 0 0 0)
(Direction 1 0 0 0 1 0 0 0 1)
(UseDirectionCosines "true")
(ResampleInterpolator "FinalBSplineInterpolator")
(FinalBSplineInterpolationOrder 3)
(Resampler "DefaultResampler")
(DefaultPixelValue 0)
(ResultImageFormat "mha")
(ResultImagePixelType "float")
(CompressResultImage "false")
EOF
}

for n in $sizes; do
  d="$work/$n"
  mkdir -p "$d/transformix" "$d/module"
  "$bin/ElasticRegistrationExample" --size "$n" --seed 7 --write "$d" > /dev/null
  center=$(awk -v n="$n" 'BEGIN { print (n - 1) / 2 }')
  {
    echo '(Transform "AffineTransform")'
    echo '(NumberOfParameters 12)'
    echo '(TransformParameters 1.0213 0.0297 -0.0108 -0.0219 0.9826 0.0403 0.0151 -0.0294 1.0087 1.4731 -0.7519 0.5063)'
    echo '(InitialTransformParametersFileName "NoInitialTransform")'
    echo '(HowToCombineTransforms "Compose")'
    echo "(CenterOfRotationPoint $center $center $center)"
    image_lines "$n"
  } > "$d/TransformParameters.0.txt"
  nodes=$((n / 16 + 5))
  {
    echo '(Transform "BSplineTransform")'
    echo "(NumberOfParameters $((3 * nodes * nodes * nodes)))"
    awk -v count=$((3 * nodes * nodes * nodes)) 'BEGIN {
      srand(7); printf "(TransformParameters";
      for (i = 0; i < count; ++i) printf " %.6f", 6 * rand() - 3;
      print ")" }'
    echo "(InitialTransformParametersFileName \"$d/TransformParameters.0.txt\")"
    echo '(HowToCombineTransforms "Compose")'
    echo "(GridSize $nodes $nodes $nodes)"
    echo '(GridIndex 0 0 0)'
    echo '(GridSpacing 16 16 16)'
    echo '(GridOrigin -32 -32 -32)'
    echo '(GridDirection 1 0 0 0 1 0 0 0 1)'
    echo '(BSplineTransformSplineOrder 3)'
    echo '(UseCyclicTransform "false")'
    image_lines "$n"
  } > "$d/TransformParameters.1.txt"
  tp="$d/TransformParameters.1.txt"

  t=$(fastest "$transformix" -def all -tp "$tp" -out "$d/transformix" -threads "$cores")
  printf '%5s^3  field  transformix 5.0.1 (%s threads)   %8.3f s\n' "$n" "$cores" "$t"
  t=$(fastest "$bin/BSplineDisplacementFieldCLI" --transform "$tp" "$d/module/field.mha")
  printf '%5s^3  field  BSplineDisplacementFieldCLI      %8.3f s   ' "$n" "$t"
  "$bin/CLITestVolumes" close "$d/transformix/deformationField.mha" "$d/module/field.mha" 1e-4 | tail -1 || true

  t=$(fastest "$transformix" -in "$d/fixed.mha" -tp "$tp" -out "$d/transformix" -threads "$cores")
  printf '%5s^3  image  transformix 5.0.1 (%s threads)   %8.3f s\n' "$n" "$cores" "$t"
  t=$(fastest "$bin/CubicResampleCLI" --transform "$tp" "$d/fixed.mha" "$d/module/image.mha")
  printf '%5s^3  image  CubicResampleCLI                 %8.3f s   ' "$n" "$t"
  "$bin/CLITestVolumes" close "$d/transformix/result.mha" "$d/module/image.mha" 1e-3 | tail -1 || true
done
