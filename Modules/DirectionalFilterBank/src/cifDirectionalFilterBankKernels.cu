// GPU path of the directional filter bank: one kernel launch per plan operation,
// each thread computing one output element with the per-sample code the CPU
// reference runs (cifDirectionalFilterBankOps.h). The data stays on the device for
// the whole tree.
#include "cifCudaCheck.cuh"
#include "cifDirectionalFilterBankDevice.h"

namespace cif
{
namespace
{
/** Up to four work buffers, by value (a plan uses four). */
template <typename T>
struct BufferSet
{
  T * pointers[4];
};

template <typename T>
__global__ void
DFBOpKernel(const DFBOp op, const BufferSet<T> buffers, const T * __restrict__ taps, std::int64_t count)
{
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < count)
  {
    RunDFBOpAt<T>(op, buffers.pointers, taps, e);
  }
}
} // namespace

template <typename T>
void
RunDFBOpsOnDevice(const DFBOp * ops, std::size_t count, T * const * deviceBuffers, const T * deviceTaps)
{
  BufferSet<T> buffers{};
  for (int b = 0; b < 4; ++b)
  {
    buffers.pointers[b] = deviceBuffers[b];
  }
  constexpr int threads = 256;
  for (std::size_t k = 0; k < count; ++k)
  {
    const std::int64_t elements = DFBOpOutputCount(ops[k]);
    if (elements == 0)
    {
      continue;
    }
    const auto blocks = static_cast<unsigned int>((elements + threads - 1) / threads);
    DFBOpKernel<T><<<blocks, threads>>>(ops[k], buffers, deviceTaps, elements);
    CIF_CUDA_CHECK_LAUNCH();
  }
}

CIF_INSTANTIATE_DFB(float)
CIF_INSTANTIATE_DFB(double)
} // namespace cif
