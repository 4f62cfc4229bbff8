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
#ifndef cifVTKPinnedScalars_h
#define cifVTKPinnedScalars_h

#include "CudaImageFiltersVTKExport.h"

class vtkDataArray;
class vtkImageData;

/** \file cifVTKPinnedScalars.h
 * Pinned host memory for the VTK filters' outputs: what Core's
 * UseCudaHostPixelContainer (itkCudaHostImportImageContainer.h) does for ITK images.
 *
 * A download into pinned memory is one DMA at the bus's speed, and it can overlap the
 * kernels that make the next piece; into VTK's ordinary arrays it goes through the
 * staging rings (cifPinnedStaging.h), about 1.15x the pinned time and nothing
 * overlapped. Pinning costs once (about 0.4-0.6 ms per MiB, cifPinnedHostMemory.h), so,
 * as for ITK images, an output is pinned from its filter's second update on: when
 * VTK kept the output's scalars from the previous update (vtkImageData::
 * AllocateScalars keeps an array of the same type that nothing else holds), and they
 * hold at least cif::GetPinnedOutputMinimumBytes(). VTK keeps the pinned array in
 * turn, so later updates download into it at no further cost; the array frees its
 * memory through cif::FreePinnedHostMemory when it goes. */
namespace cif
{
namespace vtkmath
{
/** \a image's point scalars, replaced first by an array in pinned memory (same type,
 * name, components and tuples; the values are not kept, so call it before the output
 * is written) when \a reused says VTK kept them from the previous update, they are
 * large enough and not pinned yet. Without CUDA, past the pinned cap, or where the
 * driver refuses: the scalars as they were. */
CudaImageFiltersVTK_EXPORT vtkDataArray *
PinReusedScalars(vtkImageData * image, bool reused);

/** For an input that a program hands to the GPU filters again and again (a volume
 * resliced at many angles, say): \a image's point scalars replaced by a copy of them
 * in pinned memory (same type, name, components, tuples and values), so that every
 * later upload of them is one DMA at the bus's speed instead of a staged copy of
 * ordinary memory (about 1.4-1.8x the pinned time for 64 MiB; Modules/VTK/README.md).
 * The module cannot do this by itself for inputs: a vtkDataArray may move its memory
 * without telling anyone, so only its owner may swap it. Call it on an image that the
 * program owns, before the filters read it, and write through the image's (new)
 * scalars afterwards: a pointer to the old array no longer reaches the image. Returns
 * the scalars in effect: the pinned copy, or the scalars as they were where they are
 * empty or already pinned, without CUDA, past the pinned cap (cifPinnedHostMemory.h)
 * or where the driver refuses. The pinned memory goes back when the array goes. */
CudaImageFiltersVTK_EXPORT vtkDataArray *
PinScalars(vtkImageData * image);
} // namespace vtkmath
} // namespace cif

#endif
