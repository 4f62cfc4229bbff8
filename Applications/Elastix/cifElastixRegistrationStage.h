/*=========================================================================
 *
 *  Copyright the CudaImageFilters contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
// One elastix registration parameter file read as one stage of
// itk::ElasticRegistration: what the elastix drop-in runs for each -p. Every key the
// file has is either served (its value changes what runs, as in elastix) or refused
// with the file, the line and the reason, before any image is read.
#ifndef cifElastixRegistrationStage_h
#define cifElastixRegistrationStage_h

#include "itkElastixParameterFile.h"
#include "itkElasticRegistrationSettings.h"

#include <string>
#include <vector>

namespace cif
{
/** What one parameter file asks for: the stage's settings and elastix's output. */
struct ElastixRegistrationStage
{
  /** The file, and its image dimension (FixedImageDimension; 0 when absent). */
  std::string  parameterFile;
  unsigned int dimension = 0;
  /** elastix's (Transform ...) and (Metric ...), as written (for the log). */
  std::string transformName;
  std::string metricName;
  std::string optimizerName;
  /** One stage: linearStage or bsplineStage. */
  itk::ElasticRegistrationSettings settings;
  /** FinalGridSpacingInVoxels (elastix's default, 16) when no spacing in physical
   * units is given: settings.gridSpacing is set from it and the fixed image's spacing
   * by ResolveGridSpacing. 0: settings.gridSpacing is already physical. */
  double gridSpacingInVoxels = 0.0;
  /** The pyramids' schedule (levels x axes, coarsest first; empty: elastix's default
   * 2^(L-1-l)), and what they do with it: a Gaussian of half the factor in voxels
   * (smoothing, recursive), shrinking by the factor (recursive, shrinking). */
  std::vector<std::vector<unsigned int>> pyramidSchedule;
  bool                                   pyramidSmooths = true;
  bool                                   pyramidShrinks = false;
  /** UseRandomSampleRegion, and SampleRegionSize as written (elastix's order: level
   * by level, axis by axis, a missing entry taking the first; empty: elastix's default
   * from the fixed image, see ResolveForImages). */
  bool                useRandomSampleRegion = false;
  std::vector<double> sampleRegionSize;

  // What elastix writes after the stage (transformix reads the same keys).
  bool         writeResultImage = true;
  std::string  resultImageFormat = "mhd";
  std::string  resultImagePixelType = "short";
  bool         compressResultImage = false;
  unsigned int finalBSplineInterpolationOrder = 3;
  double       defaultPixelValue = 0.0;
  /** ITKTransformOutputFileNameExtension ("h5", "tfm", ...; empty: none written) and
   * WriteITKCompositeTransform: the stage, and the chain so far, as ITK transform files. */
  std::string itkTransformExtension;
  bool        writeITKCompositeTransform = false;
};

/** Reads \a file as elastix 5 reads a registration parameter file; throws an
 * itk::ExceptionObject "PATH:LINE: ..." naming the first key whose value the module
 * does not serve (or a key it does not know), before any work. */
ElastixRegistrationStage
ReadElastixRegistrationStage(const itk::ElastixParameterFile & file);

/** What depends on the fixed image: the schedule's shrink factors and sigmas for its
 * dimension (spacing.size()), the grid spacing from gridSpacingInVoxels and its
 * \a spacing (the same on every axis unless given in physical units), the random
 * sample region per level from its \a size in voxels (elastix's default: a third of
 * the longest extent, at most each axis's extent; no box larger than the image);
 * throws an itk::ExceptionObject when the file's dimension is not the image's. */
void
ResolveForImages(ElastixRegistrationStage &  stage,
                 const std::vector<double> & spacing,
                 const std::vector<double> & size = {});

/** The keys the drop-in serves, alphabetically (for the manual and the tests). */
std::vector<std::string>
ServedElastixRegistrationKeys();
} // namespace cif

#endif
