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
#ifndef cifBoundaryMode_h
#define cifBoundaryMode_h

#include <ostream>

namespace cif
{
/** How a signal continues past its ends; one enum for every filter of the module.
 * Mirror is ITK's (whole-sample symmetric: x[-k] = x[k]) and the default for parity
 * with ITK. ClampToEdge repeats the edge sample (a texture unit's clamp addressing,
 * the mode of the prefilter paper's GPU code). Periodic continues with the other end
 * (the directional filter bank works on one period). Constant (resampling only)
 * gives a fixed value outside the image. HalfSampleMirror (prefilter only) is the
 * half-sample symmetric extension x[-1-k] = x[k], x[n+k] = x[n-1-k]: the extension
 * VTK's vtkImageBSplineCoefficients computes for its "clamp" border mode (the
 * interpolation side of VTK's clamp then clamps indices, a separate matter). */
enum class BoundaryMode : int
{
  Mirror = 0,
  ClampToEdge = 1,
  Periodic = 2,
  Constant = 3,
  HalfSampleMirror = 4
};

inline const char *
ToString(BoundaryMode mode)
{
  switch (mode)
  {
    case BoundaryMode::Mirror:
      return "Mirror";
    case BoundaryMode::ClampToEdge:
      return "ClampToEdge";
    case BoundaryMode::Periodic:
      return "Periodic";
    case BoundaryMode::Constant:
      return "Constant";
    case BoundaryMode::HalfSampleMirror:
      return "HalfSampleMirror";
  }
  return "Unknown";
}

inline std::ostream &
operator<<(std::ostream & os, BoundaryMode mode)
{
  return os << ToString(mode);
}
} // namespace cif

#endif
