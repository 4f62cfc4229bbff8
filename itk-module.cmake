# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# ITK's description of the CudaImageFilters module, read by ITK's module system when
# the module is built inside ITK's tree (Modules/Remote/CudaImageFilters,
# -DModule_CudaImageFilters=ON); standalone builds find an installed ITK instead.
set(DOCUMENTATION "GPU (CUDA) twins of ITK filters that give ITK's answer: the cubic \
B-spline prefilter, cubic resampling and B-spline deformation fields, convolution and \
zoom, recursive Gaussian smoothing, N-D cubic table lookups, the Bamberger-Smith \
directional filter bank, and the v4 registration metrics (MeanSquares, Mattes mutual \
information, Correlation, ANTs' neighbourhood correlation) with whole registrations, \
ANTs' SyN among them. Each filter subclasses or mirrors \
the ITK class it replaces, is tested voxel by voxel against ITK's CPU code, and runs \
the same arithmetic on a CPU path where no GPU is present. Slicer CLI modules and VTK \
adapters come with it.")

# The ITK modules the library links (DEPENDS), those whose headers it includes but
# whose libraries it does not need (COMPILE_DEPENDS: ITKConvolution would bring
# ITKFFT's FFTW libraries), and those only the Slicer CLI modules, the examples and
# the tests use (PRIVATE_DEPENDS). The standalone build reads these lists too
# (CMakeLists.txt), so they are the one place that names them.
set(CudaImageFilters_ITK_DEPENDS
  ITKCommon
  ITKImageFunction
  ITKImageGrid
  ITKTransform
  ITKDisplacementField
  ITKIOImageBase
  ITKImageGradient
  ITKSpatialObjects
  ITKMetricsv4
  ITKOptimizersv4
  ITKRegistrationMethodsv4)
set(CudaImageFilters_ITK_COMPILE_DEPENDS
  ITKImageFilterBase
  ITKSmoothing
  ITKConvolution
  ITKRegistrationCommon)
set(CudaImageFilters_ITK_PRIVATE_DEPENDS
  ITKIOPNG
  ITKIONRRD
  ITKIOMeta
  ITKIONIFTI
  ITKIOJPEG
  ITKIOTIFF
  ITKIOBMP
  ITKIOTransformBase
  ITKIOTransformInsightLegacy
  ITKIOTransformHDF5
  ITKIOTransformMatlab
  ITKExpat
  ITKImageCompare)

itk_module(CudaImageFilters
  DEPENDS
    ${CudaImageFilters_ITK_DEPENDS}
  COMPILE_DEPENDS
    ${CudaImageFilters_ITK_COMPILE_DEPENDS}
  PRIVATE_DEPENDS
    ${CudaImageFilters_ITK_PRIVATE_DEPENDS}
  DESCRIPTION
    "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
)
