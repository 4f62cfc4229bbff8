#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# elastix 5.0.1 (Debian, all host cores) and the module's elastix drop-in with the same
# parameter files (elastix/brain-affine.txt then elastix/brain-bspline.txt) on a real
# pair: by default the MNI152 2009a template (fixed; nilearn's copy) and Colin27's
# brain (moving; Debian's mricron-data). Prints each run's time and the global NCC
# between the fixed image and its result (and before: the moving image on the fixed
# grid as it lies). With ElasticRegistrationCLI in cli-modules/, the same files through
# its --parameterFile too. SHOW_LOG=1 prints the drop-in's time lines (each level, the
# adaptive descent's estimate, the metric's timing report).
#
#   ElastixDropInVsElastix.sh BIN_DIR [FIXED MOVING]
#   (BIN_DIR: the build's bin/, beside elastix-gpu/ and cli-modules/; elastix on PATH;
#    FIXED defaults to $MNI152, MOVING to /usr/share/mricron/templates/ch2bet.nii.gz)
set -euo pipefail
bin=${1:?usage: ElastixDropInVsElastix.sh BIN_DIR [FIXED MOVING]}
fixed=${2:-${MNI152:?set MNI152 to mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz or give FIXED MOVING}}
moving=${3:-/usr/share/mricron/templates/ch2bet.nii.gz}
here=$(cd "$(dirname "$0")" && pwd)
params=(-p "$here/elastix/brain-affine.txt" -p "$here/elastix/brain-bspline.txt")
dropin="$bin/../elastix-gpu/elastix"
check="$bin/CLITestVolumes"
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "ElastixDropInVsElastix: $(date -u +%F), ${gpu:-no GPU}, $cores host cores"
echo "fixed $(basename "$fixed"), moving $(basename "$moving")"
"$bin/../cli-modules/CubicResampleCLI" --referenceVolume "$fixed" "$moving" "$work/before.mha" > /dev/null
printf '%-40s %10s   %s\n' "before registration" "" "$("$check" ncc "$fixed" "$work/before.mha")"
run() { # label, executable, output folder
  mkdir -p "$3"
  local start end
  start=$(date +%s.%N)
  "$2" -f "$fixed" -m "$moving" "${params[@]}" -out "$3" -threads "$cores" > "$3/stdout.txt" 2>&1 || {
    echo "$1 failed:"; tail -3 "$3/stdout.txt"; return 0; }
  end=$(date +%s.%N)
  printf '%-40s %8.2f s   %s\n' "$1" "$(awk "BEGIN { print $end - $start }")" "$("$check" ncc "$fixed" "$3/result.1.mha")"
}
if command -v elastix > /dev/null && ! elastix --version | grep -q drop-in; then
  run "elastix $(elastix --version | grep -o '[0-9.]*$') ($cores threads)" "$(command -v elastix)" "$work/elastix"
fi
run "drop-in (${gpu:-CPU path})" "$dropin" "$work/dropin"
if [[ -n "${SHOW_LOG:-}" ]]; then
  grep -E "Reading the images|Estimated in|Metric timing|Time spent in resolution|Stage [0-9] took|Time spent on saving|Total time" "$work/dropin/elastix.log" || true
fi
cli="$bin/../cli-modules/ElasticRegistrationCLI"
if [[ -x "$cli" ]]; then
  start=$(date +%s.%N)
  if "$cli" --parameterFile "$here/elastix/brain-affine.txt" --parameterFile "$here/elastix/brain-bspline.txt" \
    --outputVolume "$work/cli.mha" "$fixed" "$moving" > "$work/cli.txt" 2>&1; then
    end=$(date +%s.%N)
    printf '%-40s %8.2f s   %s\n' "ElasticRegistrationCLI --parameterFile" "$(awk "BEGIN { print $end - $start }")" \
      "$("$check" ncc "$fixed" "$work/cli.mha")"
  else
    echo "ElasticRegistrationCLI failed:"; tail -3 "$work/cli.txt"
  fi
fi
