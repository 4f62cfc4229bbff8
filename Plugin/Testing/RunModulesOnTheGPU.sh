#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Runs every CLI module as Slicer runs it (LoadCLIModule: library loaded by symbol, a
# real process-information struct, a return file) and requires the GPU path
# (executionPath = GPU), then checks the outputs as the CTest cases do. For a machine
# with a GPU, where CTest is not at hand (the device machine of DESIGN.md §6):
#
#   RunModulesOnTheGPU.sh BIN LIB
#     BIN: LoadCLIModule and CLITestVolumes; LIB: the modules' lib<Name>Lib.so
#   EXPECTED_PATH=CPU checks the CPU path instead (a machine without a GPU)
# Prints one line per check and "N passed, N failed" last; returns 1 on any failure.
set -u
bin=$1 lib=$2
data=$(mktemp -d) out=$(mktemp -d)
trap 'rm -rf "$data" "$out"' EXIT
mkdir -p "$out/subbands"
"$bin/CLITestVolumes" make "$data" > /dev/null || { echo "cannot make the test volumes"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
check() { # name, command...
  local name=$1; shift
  if "$@" > "$out/log" 2>&1; then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$out/log" | tail -15; fi
}
gpu() { # module library, module arguments...: run as Slicer does, on the GPU path
  local module=$1; shift
  "$bin/LoadCLIModule" --expect "executionPath=${EXPECTED_PATH:-GPU}" "$lib/lib${module}Lib.so" "$@"
}
cpu() { # module library, module arguments...: the same run on the CPU path (--cpu), for reference
  local module=$1; shift
  "$bin/LoadCLIModule" --expect "executionPath=CPU" "$lib/lib${module}Lib.so" --cpu "$@"
}
check "BSplinePrefilterCLI vector volume" gpu BSplinePrefilterCLI "$data/vector3d.nii.gz" "$out/prefilter.nrrd"
check "  same grid, float components" "$bin/CLITestVolumes" same-grid "$data/vector3d.nii.gz" "$out/prefilter.nrrd" --component-type float
check "CubicResampleCLI RGB, rotation" gpu CubicResampleCLI --transform "$here/rotation10.tfm" --defaultValue 7 "$data/rgb2d.nrrd" "$out/rgb.nrrd"
check "  RGB kept" "$bin/CLITestVolumes" same-grid "$data/rgb2d.nrrd" "$out/rgb.nrrd"
check "CubicResampleCLI B-spline warp" gpu CubicResampleCLI --transform "$data/bspline3d.tfm" "$data/scalar3d.nrrd" "$out/warped.nrrd"
check "BSplineDisplacementFieldCLI translation" gpu BSplineDisplacementFieldCLI --transform "$here/translation3d.tfm" --referenceVolume "$data/scalar3d.nrrd" "$out/field.nrrd"
check "  field = translation" "$bin/CLITestVolumes" constant-field "$out/field.nrrd" 1,2,3 1e-5
check "BSplineDisplacementFieldCLI B-spline" gpu BSplineDisplacementFieldCLI --transform "$data/bspline3d.tfm" --referenceVolume "$data/scalar3d.nrrd" "$out/field-bspline.nii.gz"
# elastix transform parameter files (an affine then a B-spline, chained): the file's grid
# and default value, and the same answer as the CPU path (and as transformix, where it is installed)
check "CubicResampleCLI elastix chain" gpu CubicResampleCLI --transform "$data/elastix3d.txt" "$data/scalar3d.nrrd" "$out/elastix.nrrd"
check "  the elastix file's grid and default" "$bin/CLITestVolumes" elastix-grid "$data/elastix3d.txt" "$out/elastix.nrrd" --default 7
check "  its CPU path" cpu CubicResampleCLI --transform "$data/elastix3d.txt" "$data/scalar3d.nrrd" "$out/elastix-cpu.nrrd"
check "  GPU = CPU (short: within 1)" "$bin/CLITestVolumes" close "$out/elastix-cpu.nrrd" "$out/elastix.nrrd" 1
check "BSplineDisplacementFieldCLI elastix chain" gpu BSplineDisplacementFieldCLI --transform "$data/elastix3d.txt" "$out/field-elastix.nrrd"
check "  the elastix file's grid" "$bin/CLITestVolumes" elastix-grid "$data/elastix3d.txt" "$out/field-elastix.nrrd"
check "  its CPU path" cpu BSplineDisplacementFieldCLI --transform "$data/elastix3d.txt" "$out/field-elastix-cpu.nrrd"
check "  GPU = CPU (within 1e-5)" "$bin/CLITestVolumes" close "$out/field-elastix-cpu.nrrd" "$out/field-elastix.nrrd" 1e-5
if command -v transformix > /dev/null; then
  check "  = transformix -def all (within 1e-5)" sh -c "transformix -def all -tp '$data/elastix3d.txt' -out '$out' > '$out/transformix.log' && '$bin/CLITestVolumes' close '$out/deformationField.mhd' '$out/field-elastix.nrrd' 1e-5"
  check "CubicResampleCLI = transformix -in (short: within 1)" sh -c "transformix -in '$data/scalar3d.nrrd' -tp '$data/elastix3d.txt' -out '$out' > '$out/transformix.log' && '$bin/CLITestVolumes' close '$out/result.mhd' '$out/elastix.nrrd' 1"
else
  echo "(transformix not installed here: the elastix outputs are checked against the CPU path only)"
fi
check "ConvolutionCLI RGB gaussian" gpu ConvolutionCLI --kernel gaussian --kernelSize 5 --sigma 1 "$data/rgb2d.nrrd" "$out/conv.nrrd"
check "ConvolutionCLI vector, kernel file" gpu ConvolutionCLI --kernel file --kernelFile "$here/kernel3x3.txt" --normalize "$data/vector3d.nii.gz" "$out/conv-vector.nii.gz"
check "ZoomCLI RGB, sharpen" gpu ZoomCLI --center 20,16 --size 10,8 --zoom 3 --enhancement sharpen "$data/rgb2d.nrrd" "$out/zoom.nrrd"
check "ZoomCLI identity on a volume" gpu ZoomCLI --zoom 1 --interpolation nearest "$data/scalar3d.nrrd" "$out/zoom-identity.nrrd"
check "  equal to its input" "$bin/CLITestVolumes" close "$data/scalar3d.nrrd" "$out/zoom-identity.nrrd" 0
check "DirectionalFilterBankCLI decompose" gpu DirectionalFilterBankCLI --mode decompose --levels 4 --inputVolume "$data/plane.mha" --subbandDirectory "$out/subbands"
check "DirectionalFilterBankCLI reconstruct" gpu DirectionalFilterBankCLI --mode reconstruct --levels 4 --subbandDirectory "$out/subbands" --outputVolume "$out/rebuilt.mha"
check "  perfect reconstruction" "$bin/CLITestVolumes" close "$data/plane.mha" "$out/rebuilt.mha" 1e-3
check "DirectionalFilterBankCLI denoise" gpu DirectionalFilterBankCLI --shifts 2 --inputVolume "$data/slice.nrrd" --outputVolume "$out/denoised.nrrd"
# elastic registration of the pairs CLITestVolumes makes (a known smooth warp): the
# metric on the GPU, the moving volume brought closer (through the transform file, as
# CubicResampleCLI applies it, and in the module's own output), and the CPU path's run
reg=("$data/reg-fixed3d.nrrd" "$data/reg-moving3d.nrrd")
check "ElasticRegistrationCLI affine,bspline MeanSquares" gpu ElasticRegistrationCLI --metric MeanSquares --levels 2 --iterations 15,10 --gridSpacing 10 --outputTransform "$out/reg.h5" --outputVolume "$out/reg.nrrd" "${reg[@]}"
check "  the output volume closer (MSD < 0.5x)" "$bin/CLITestVolumes" closer "${reg[@]}" "$out/reg.nrrd" 0.5
check "  the transform file applied: closer" sh -c "'$bin/LoadCLIModule' '$lib/libCubicResampleCLILib.so' --transform '$out/reg.h5' --referenceVolume '${reg[0]}' '${reg[1]}' '$out/reg-applied.nrrd' && '$bin/CLITestVolumes' closer '${reg[0]}' '${reg[1]}' '$out/reg-applied.nrrd' 0.5"
check "ElasticRegistrationCLI Mattes, random points" gpu ElasticRegistrationCLI --metric MattesMI --sampling random --samplingPercentage 0.5 --levels 2 --iterations 15,10 --gridSpacing 10 --outputVolume "$out/reg-mattes.nrrd" "${reg[@]}"
check "  closer" "$bin/CLITestVolumes" closer "${reg[@]}" "$out/reg-mattes.nrrd" 0.5
check "ElasticRegistrationCLI Correlation" gpu ElasticRegistrationCLI --metric Correlation --levels 2 --iterations 15,10 --gridSpacing 10 --outputVolume "$out/reg-correlation.nrrd" "${reg[@]}"
check "  closer" "$bin/CLITestVolumes" closer "${reg[@]}" "$out/reg-correlation.nrrd" 0.5
check "ElasticRegistrationCLI rigid,bspline 2-D Mattes" gpu ElasticRegistrationCLI --stages rigid,bspline --levels 2 --iterations 15,10 --gridSpacing 10 --outputVolume "$out/reg2d.nrrd" "$data/reg-fixed2d.nrrd" "$data/reg-moving2d.nrrd"
check "  closer" "$bin/CLITestVolumes" closer "$data/reg-fixed2d.nrrd" "$data/reg-moving2d.nrrd" "$out/reg2d.nrrd" 0.5
check "  its CPU path" cpu ElasticRegistrationCLI --metric MeanSquares --levels 2 --iterations 15,10 --gridSpacing 10 --outputVolume "$out/reg-cpu.nrrd" "${reg[@]}"
check "ElasticRegistrationCLI stops when aborted" "$bin/LoadCLIModule" --abort-at 0.0701 --absent "$out/reg-aborted.h5" --absent "$out/reg-aborted.nrrd" "$lib/libElasticRegistrationCLILib.so" \
  --metric MeanSquares --levels 2 --iterations 15,10 --outputTransform "$out/reg-aborted.h5" --outputVolume "$out/reg-aborted.nrrd" "${reg[@]}"
for module in BSplinePrefilterCLI CubicResampleCLI BSplineDisplacementFieldCLI ConvolutionCLI; do
  check "$module stops when aborted" "$bin/LoadCLIModule" --abort-at 0.3 --absent "$out/aborted.nrrd" "$lib/lib${module}Lib.so" \
    $([[ $module == *Resample* || $module == *Field* ]] && echo --transform "$data/bspline3d.tfm") \
    $([[ $module == *Field* ]] && echo --referenceVolume) "$data/scalar3d.nrrd" "$out/aborted.nrrd"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
