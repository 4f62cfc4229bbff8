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
// FatbinLoadBenchmark: what loading one kernel module costs, per fat binary: the
// driver finds the entry for the GPU, decompresses it and loads its kernels, which is
// what the first launch of a kernel family pays under CUDA's lazy loading. Built apart
// from the library (driver API only), to compare compression modes of one source:
//
//   nvcc -fatbin -arch=sm_90 --compress-mode=size -o size.fatbin kernels.cu   (and =default, =none)
//   g++ -O2 -o FatbinLoadBenchmark FatbinLoadBenchmark.cxx -I$CUDA/include -lcuda
//   FatbinLoadBenchmark [--runs 15] size.fatbin default.fatbin none.fatbin
//
// Prints, per file: its bytes, the median and the range of cuModuleLoadData plus the
// loading of every kernel in it (cuModuleEnumerateFunctions, cuFuncLoad), in ms.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace
{
void
Check(CUresult status, const char * what)
{
  if (status != CUDA_SUCCESS)
  {
    const char * message = nullptr;
    cuGetErrorString(status, &message);
    std::fprintf(stderr, "FatbinLoadBenchmark: %s failed: %s\n", what, message ? message : "unknown error");
    std::exit(1);
  }
}

double
LoadMilliseconds(const std::vector<char> & image, unsigned int & kernels)
{
  const auto start = std::chrono::steady_clock::now();
  CUmodule   module = nullptr;
  Check(cuModuleLoadData(&module, image.data()), "cuModuleLoadData");
  Check(cuModuleGetFunctionCount(&kernels, module), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(kernels);
  Check(cuModuleEnumerateFunctions(functions.data(), kernels, module), "cuModuleEnumerateFunctions");
  for (CUfunction f : functions)
  {
    Check(cuFuncLoad(f), "cuFuncLoad");
  }
  const auto stop = std::chrono::steady_clock::now();
  Check(cuModuleUnload(module), "cuModuleUnload");
  return std::chrono::duration<double, std::milli>(stop - start).count();
}
} // namespace

int
main(int argc, char ** argv)
{
  int                      runs = 15;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i)
  {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
    {
      runs = std::max(1, std::atoi(argv[++i]));
    }
    else
    {
      files.push_back(a);
    }
  }
  if (files.empty())
  {
    std::fprintf(stderr, "usage: FatbinLoadBenchmark [--runs N] FILE.fatbin...\n");
    return 2;
  }
  Check(cuInit(0), "cuInit");
  CUdevice device = 0;
  Check(cuDeviceGet(&device, 0), "cuDeviceGet");
  char name[256] = {};
  Check(cuDeviceGetName(name, sizeof(name), device), "cuDeviceGetName");
  CUcontext context = nullptr;
  Check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  Check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  std::printf("device: %s; %d loads of each file (the first one included)\n", name, runs);
  std::printf("%-40s %12s %8s %10s %10s %10s\n", "file", "bytes", "kernels", "median ms", "min ms", "max ms");
  for (const std::string & file : files)
  {
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
      std::fprintf(stderr, "FatbinLoadBenchmark: cannot read %s\n", file.c_str());
      return 1;
    }
    const std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<double>     times;
    unsigned int            kernels = 0;
    for (int r = 0; r < runs; ++r)
    {
      times.push_back(LoadMilliseconds(image, kernels));
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    std::printf("%-40s %12zu %8u %10.3f %10.3f %10.3f\n",
                file.c_str(),
                image.size(),
                kernels,
                sorted[sorted.size() / 2],
                sorted.front(),
                sorted.back());
  }
  Check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  return 0;
}
