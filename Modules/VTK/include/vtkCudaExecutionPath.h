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
#ifndef vtkCudaExecutionPath_h
#define vtkCudaExecutionPath_h

/** \file vtkCudaExecutionPath.h
 * Which code produced a vtkCuda* filter's last output (GetLastExecutionPath()). */
enum vtkCudaExecutionPath
{
  VTK_CUDA_PATH_NONE = 0, ///< not run yet
  VTK_CUDA_PATH_GPU = 1,  ///< the CUDA kernels
  VTK_CUDA_PATH_CPU = 2,  ///< the module's CPU path: the kernels' own code, threaded by vtkSMPTools
  VTK_CUDA_PATH_VTK = 3   ///< the VTK superclass, for what the module does not serve
};

inline const char *
vtkCudaExecutionPathAsString(int path)
{
  switch (path)
  {
    case VTK_CUDA_PATH_GPU:
      return "GPU";
    case VTK_CUDA_PATH_CPU:
      return "CPU";
    case VTK_CUDA_PATH_VTK:
      return "VTK";
    default:
      return "None";
  }
}

#endif
