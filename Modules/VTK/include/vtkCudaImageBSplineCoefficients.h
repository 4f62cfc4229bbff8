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
#ifndef vtkCudaImageBSplineCoefficients_h
#define vtkCudaImageBSplineCoefficients_h

#include "CudaImageFiltersVTKExport.h"
#include "vtkCudaExecutionPath.h"
#include "vtkImageBSplineCoefficients.h"

#include <string>

/**
 * @class vtkCudaImageBSplineCoefficients
 * @brief vtkImageBSplineCoefficients on the GPU (degree 3).
 *
 * A subclass with the same API and the same answers: VTK's poles, its three border
 * modes (Clamp prefilters the half-sample symmetric extension, Repeat the periodic
 * one, Mirror the whole-sample mirror), its causal start (truncated at DBL_EPSILON),
 * every line computed in double and stored in the output type after each axis; float
 * or double output, any number of components, 1-D to 3-D extents starting anywhere.
 * The project's prefilter kernels run it (cif::PrefilterOnDevice and, for float
 * output, cif::PrefilterOnDeviceInDouble).
 *
 * Where there is no GPU (or UseGPU is off) the module's CPU path runs the same line
 * code, threaded by vtkSMPTools. What it does not serve (another degree, Bypass, an
 * empty or missing input, an input whose extent is not the whole extent) goes to the
 * superclass, never to an approximation: GetLastExecutionPath() says which ran.
 *
 * KeepOutputOnDevice: the coefficients stay on the GPU, attached to the output array
 * as a vtkCudaDeviceArray, for a vtkCudaImageReslice downstream (no download, no
 * upload). The output's host memory is then stale: call
 * vtkCudaDeviceArray::SynchronizeHost(array) before reading it on the host (also
 * before the superclass's Evaluate(), which reads the host copy and is not virtual).
 */
class CudaImageFiltersVTK_EXPORT vtkCudaImageBSplineCoefficients : public vtkImageBSplineCoefficients
{
public:
  static vtkCudaImageBSplineCoefficients *
  New();
  vtkTypeMacro(vtkCudaImageBSplineCoefficients, vtkImageBSplineCoefficients);
  void
  PrintSelf(ostream & os, vtkIndent indent) override;

  ///@{
  /** Use the GPU when one is usable (on by default); off forces the CPU path. */
  vtkSetMacro(UseGPU, bool);
  vtkGetMacro(UseGPU, bool);
  vtkBooleanMacro(UseGPU, bool);
  ///@}

  ///@{
  /** Leave the coefficients on the GPU for the next GPU filter (off by default). */
  vtkSetMacro(KeepOutputOnDevice, bool);
  vtkGetMacro(KeepOutputOnDevice, bool);
  vtkBooleanMacro(KeepOutputOnDevice, bool);
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

protected:
  vtkCudaImageBSplineCoefficients() = default;
  ~vtkCudaImageBSplineCoefficients() override = default;

  int
  RequestData(vtkInformation *, vtkInformationVector **, vtkInformationVector *) override;

  bool        UseGPU = true;
  bool        KeepOutputOnDevice = false;
  int         LastExecutionPath = VTK_CUDA_PATH_NONE;
  std::string FallbackReason;

private:
  vtkCudaImageBSplineCoefficients(const vtkCudaImageBSplineCoefficients &) = delete;
  void
  operator=(const vtkCudaImageBSplineCoefficients &) = delete;
};

#endif
