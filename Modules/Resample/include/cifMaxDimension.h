#ifndef cifMaxDimension_h
#define cifMaxDimension_h

namespace cif
{
/** Image axes the resampling layer handles: 1-D to 4-D, as the prefilter. Points,
 * indices and matrices are arrays of this size (code loops over the D axes in use;
 * the others stay 0, or identity, or a single sample of unit weight), so every
 * caller passes arrays of kMaxDimension entries. */
constexpr int kMaxDimension = 4;
} // namespace cif

#endif
