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
#ifndef cifKernelPresets_h
#define cifKernelPresets_h

#include "CudaImageFiltersExport.h"
#include "cifConvolutionKernel.h"

#include <stdexcept>
#include <string>
#include <vector>

/** \file cifKernelPresets.h
 * The named kernels of the upscaling seed (its section 3.4 and its references):
 * Gaussian, box blur, sharpen, unsharp masking, emboss, edge and ridge detection,
 * darken and lighten (a 3x3 kernel with only a centre weight), identity. */
namespace cif
{
/** A kernel request that cannot be served (bad length, sigma, unknown name);
 * what() says which parameter and why. */
class CudaImageFilters_EXPORT KernelError : public std::invalid_argument
{
public:
  using std::invalid_argument::invalid_argument;
};

/** The seed's Gaussian: exp(-(x^2+y^2) / (2 sigma^2)) on a \a length x \a length grid
 * centred on the middle sample, divided by its sum. \a length must be odd, 3 to 127;
 * \a sigma at least 0.5 (the seed's limits). Throws KernelError otherwise. */
CudaImageFilters_EXPORT ConvolutionKernel
MakeGaussianKernel(int length, double sigma);

/** A \a length x \a length box blur (all weights 1/length^2), odd length 3 to 127. */
CudaImageFilters_EXPORT ConvolutionKernel
MakeBoxKernel(int length);

/** A 3x3 kernel whose only weight is \a centre (darken: 0 < centre < 1; lighten:
 * centre > 1; the seed's examples use 0.5 and 1.5). */
CudaImageFilters_EXPORT ConvolutionKernel
MakeCentreWeightKernel(double centre, const std::string & name);

/** The preset called \a name: "gaussian" (needs \a length and \a sigma), "box"
 * (\a length), "sharpen", "unsharp" (5x5 unsharp masking), "emboss", "edge",
 * "ridge", "darken", "lighten", "identity". Throws KernelError naming the known
 * presets for any other name. */
CudaImageFilters_EXPORT ConvolutionKernel
MakePresetKernel(const std::string & name, int length = 15, double sigma = 5.0);

/** The preset names, for command-line help and tests. */
CudaImageFilters_EXPORT std::vector<std::string>
                        PresetKernelNames();
} // namespace cif

#endif
