#ifndef cifMaxDimension_h
#define cifMaxDimension_h

namespace cif
{
/** Image axes the resampling layer handles: 1-D to 4-D, as its transforms. Points,
 * indices and matrices of resampling are arrays of this size (code loops over the D
 * axes in use; the others stay 0, or identity, or a single sample of unit weight),
 * so every caller passes arrays of kMaxDimension entries. */
constexpr int kMaxDimension = 4;

/** Axes of coefficient grids and of cubic evaluation at points (the point evaluator,
 * CubicBSplineTable): 1-D to 6-D. A separate bound so that the resampling kernels,
 * which never go past 4-D, keep their 4-entry arrays (registers, shared memory);
 * only CoefficientGrid and ImageFrame carry the wider arrays. */
constexpr int kMaxGridDimension = 6;
static_assert(kMaxGridDimension >= kMaxDimension, "grids hold every resampled image");
} // namespace cif

#endif
