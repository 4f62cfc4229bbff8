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
#ifndef cifContextCreation_h
#define cifContextCreation_h

namespace cif_bench
{
/** Milliseconds that creating the CUDA context of the current device takes
 * (cudaFree(0), what the first CUDA call of a process pays); -1 without CUDA or a
 * device. Call it first in a fresh process. */
double
CreateContextMs();
} // namespace cif_bench

#endif
