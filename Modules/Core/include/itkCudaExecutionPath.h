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
#ifndef itkCudaExecutionPath_h
#define itkCudaExecutionPath_h

namespace itk
{
/** Which code produced a module filter's last output. */
enum class CudaExecutionPath
{
  None, ///< not run yet
  GPU,  ///< the CUDA kernels
  CPU,  ///< the module's CPU path (the same math, ITK's threader)
  ITK   ///< the ITK superclass, for what the module does not handle
};

inline const char *
ToString(CudaExecutionPath path)
{
  switch (path)
  {
    case CudaExecutionPath::GPU:
      return "GPU";
    case CudaExecutionPath::CPU:
      return "CPU";
    case CudaExecutionPath::ITK:
      return "ITK";
    default:
      return "None";
  }
}
} // namespace itk

#endif
