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
#ifndef vtkCudaImageReslice_h
#define vtkCudaImageReslice_h

#include "CudaImageFiltersVTKExport.h"
#include "vtkCudaExecutionPath.h"
#include "vtkImageReslice.h"

#include <string>

/**
 * @class vtkCudaImageReslice
 * @brief vtkImageReslice on the GPU for cubic B-spline interpolation.
 *
 * A subclass with the same API and the same answers. It runs on the GPU when its
 * interpolator is a vtkImageBSplineInterpolator of degree 3; everything else the
 * superclass computes (never an approximation): GetLastExecutionPath() says which
 * ran and GetFallbackReason() why.
 *
 * As in VTK, the interpolator reads B-spline coefficients, not samples: feed it the
 * output of vtkImageBSplineCoefficients or vtkCudaImageBSplineCoefficients (with
 * KeepOutputOnDevice the coefficients never leave the GPU), or an itk::CudaDeviceImage of
 * coefficients through the ITK bridge, or turn PrefilterInput on to have this filter
 * compute the coefficients of its (sample) input itself, on the device, exactly as
 * vtkImageBSplineCoefficients would with the border mode that Wrap/Mirror select.
 *
 * Served on the GPU: ResliceAxes (any 4x4, oblique or perspective), a homogeneous
 * ResliceTransform (folded into VTK's index matrix, as VTK does), a forward cubic
 * vtkBSplineTransform, a vtkGeneralTransform of linear and B-spline transforms
 * (nested too); any other transform is evaluated on the host for every output voxel
 * and the interpolation still runs on the device. OutputSpacing, OutputOrigin,
 * OutputExtent (and everything else the superclass's RequestInformation decides),
 * BackgroundColor/Level, Border/BorderThickness, Wrap, Mirror, ScalarShift/Scale,
 * OutputScalarType (char to unsigned int, float, double), the interpolator's
 * ComponentOffset/Count, any number of components, float or double coefficients.
 * Not served (superclass): stencils in or out, slabs, other interpolators, 64-bit
 * integer output, an empty input (VTK reports its error).
 *
 * The arithmetic is VTK 9.1's step by step in double (cifVTKResliceMath.h), so CPU
 * path, GPU and VTK agree to the last bit on this machine's tests but for the odd
 * rounding; VTK 9.1 ignores the input's direction matrix, and so does this class.
 */
class CudaImageFiltersVTK_EXPORT vtkCudaImageReslice : public vtkImageReslice
{
public:
  static vtkCudaImageReslice *
  New();
  vtkTypeMacro(vtkCudaImageReslice, vtkImageReslice);
  void
  PrintSelf(ostream & os, vtkIndent indent) override;

  ///@{
  /** Use the GPU when one is usable (on by default); off forces the CPU path. */
  vtkSetMacro(UseGPU, bool);
  vtkGetMacro(UseGPU, bool);
  vtkBooleanMacro(UseGPU, bool);
  ///@}

  ///@{
  /** Compute the B-spline coefficients of the input first (off by default: the
   * input is taken to be coefficients, as VTK's interpolator takes it). The
   * prefilter's border follows Wrap/Mirror (clamp otherwise), its output type is
   * double for double input and float otherwise, as vtkImageBSplineCoefficients'
   * OutputScalarType would be set. */
  vtkSetMacro(PrefilterInput, bool);
  vtkGetMacro(PrefilterInput, bool);
  vtkBooleanMacro(PrefilterInput, bool);
  ///@}

  /** VTK_CUDA_PATH_GPU, _CPU or _VTK (the superclass) for the last execution. */
  vtkGetMacro(LastExecutionPath, int);
  const char *
  GetLastExecutionPathAsString()
  {
    return vtkCudaExecutionPathAsString(this->LastExecutionPath);
  }
  /** Why the last execution went to the superclass ("" otherwise). */
  const char *
  GetFallbackReason()
  {
    return this->FallbackReason.c_str();
  }
  /** How the last GPU or CPU execution positioned its samples: "index matrix",
   * "transform stages on the device" or "transform mapped on the host". */
  const char *
  GetLastPositioning()
  {
    return this->LastPositioning.c_str();
  }

protected:
  vtkCudaImageReslice() = default;
  ~vtkCudaImageReslice() override = default;

  int
  RequestInformation(vtkInformation *, vtkInformationVector **, vtkInformationVector *) override;
  int
  RequestData(vtkInformation *, vtkInformationVector **, vtkInformationVector *) override;
  void
  ThreadedRequestData(vtkInformation *        request,
                      vtkInformationVector ** inputVector,
                      vtkInformationVector *  outputVector,
                      vtkImageData ***        inData,
                      vtkImageData **         outData,
                      int                     extent[6],
                      int                     threadId) override;

  bool        UseGPU = true;
  bool        PrefilterInput = false;
  int         LastExecutionPath = VTK_CUDA_PATH_NONE;
  std::string FallbackReason;
  std::string LastPositioning;

private:
  vtkCudaImageReslice(const vtkCudaImageReslice &) = delete;
  void
  operator=(const vtkCudaImageReslice &) = delete;

  struct Plan;
  /** What the module's path needs for this execution, or why it cannot serve it. */
  std::string
  MakePlan(vtkImageData * coefficients, vtkInformation * outInfo, Plan & plan);
  /** The coefficients of \a input (PrefilterInput), on the device when \a onDevice. */
  vtkImageData *
  PrefilterOf(vtkImageData * input, bool onDevice);

  /** While true the superclass only allocates the output (its threads do nothing). */
  bool AllocatingOnly = false;
};

#endif
