#ifndef cifDirectionalFilterBankHost_h
#define cifDirectionalFilterBankHost_h

// The CPU path of the directional filter bank: runs a plan operation by operation,
// each one's rows spread over `parallelFor` (ITK's threader on the ITK side), with
// the same per-sample code the GPU kernels run.
#include "cifDirectionalFilterBankPlan.h"

#include <vector>

namespace cif
{
/** Work buffers of a plan on the host. */
template <typename T>
struct DFBHostBuffers
{
  std::vector<std::vector<T>> storage;
  std::vector<T *>            pointers;

  explicit DFBHostBuffers(const DFBPlan & plan)
  {
    for (std::int64_t size : plan.bufferSizes)
    {
      storage.emplace_back(static_cast<std::size_t>(size));
    }
    for (auto & b : storage)
    {
      pointers.push_back(b.data());
    }
  }
  T *
  At(const DFBArray & a)
  {
    return storage[a.buffer].data() + a.offset;
  }
};

template <typename T, typename TParallelFor>
void
RunDFBPlanOnHost(const DFBPlan & plan, DFBHostBuffers<T> & buffers, TParallelFor && parallelFor)
{
  const std::vector<T> taps(plan.taps.begin(), plan.taps.end());
  for (const DFBOp & op : plan.ops)
  {
    const DFBOpPointers<T> pointers = ResolveDFBOp(op, buffers.pointers.data());
    DispatchDFBOpKind(op.kind, [&](auto kind) {
      constexpr int K = decltype(kind)::value;
      parallelFor(op.out0.rows, [&](std::int64_t row) {
        for (int j = 0; j < op.out0.cols; ++j)
        {
          RunDFBOpKindAt<K, T>(op, pointers, taps.data(), static_cast<int>(row), j);
        }
      });
    });
  }
}

/** A sequential parallelFor, for tools and tests that do not bring a threader. */
struct SequentialFor
{
  template <typename TBody>
  void
  operator()(std::int64_t count, TBody && body) const
  {
    for (std::int64_t i = 0; i < count; ++i)
    {
      body(i);
    }
  }
};
} // namespace cif

#endif
