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
#ifndef cifLaunchBounds_cuh
#define cifLaunchBounds_cuh

namespace cif
{
/** The most resident threads an SM of the architecture being compiled holds: 1024 on
 * Turing (sm_75), 1536 on sm_86, sm_87 and Ada (sm_89), 2048 on sm_80 and Hopper. */
constexpr __host__ __device__ int
MaxThreadsPerSM()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
  return 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
  return 1536;
#else
  return 2048;
#endif
}

/** The minimum of blocks per SM for __launch_bounds__(threads, ...): \a blocks where
 * the compiled architecture's SM holds that many blocks of \a threads, else 1 (no
 * minimum beyond one block): ptxas ignored the larger count anyway, with a warning per
 * kernel ("minnctapersm will be ignored"). */
constexpr __host__ __device__ int
MinBlocksPerSM(int threads, int blocks)
{
  return threads * blocks <= MaxThreadsPerSM() ? blocks : 1;
}
} // namespace cif

#endif
