#ifndef itkBSplinePrefilterGPUFactory_h
#define itkBSplinePrefilterGPUFactory_h

#include "CudaImageFiltersExport.h"
#include "itkCudaFilterFactory.h"

namespace itk
{
/** \class BSplinePrefilterGPUFactory
 * \brief Makes BSplineDecompositionImageFilter<...>::New() return the GPU filter.
 *
 * After BSplinePrefilterGPUFactory::RegisterOneFactory(), every
 * itk::BSplineDecompositionImageFilter<itk::Image<TIn, D>, itk::Image<TOut, D>>::New()
 * with TIn in {unsigned char, short, unsigned short, int, float, double}, TOut in
 * {float, double} and D in 1..4, with RGB/vector pixels of float and double for D
 * in 2..3, and VectorImage<float, 2|3> and VectorImage<double, 3>, returns a BSplinePrefilterGPUImageFilter: existing pipelines run on
 * the GPU unchanged. Other types keep ITK's filter.
 *
 * \ingroup CudaImageFilters
 */
class CudaImageFilters_EXPORT BSplinePrefilterGPUFactory : public CudaFilterFactory<BSplinePrefilterGPUFactory>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BSplinePrefilterGPUFactory);
  using Self = BSplinePrefilterGPUFactory;
  using Superclass = CudaFilterFactory<BSplinePrefilterGPUFactory>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(BSplinePrefilterGPUFactory, ObjectFactoryBase);

protected:
  BSplinePrefilterGPUFactory();
  ~BSplinePrefilterGPUFactory() override = default;

private:
  template <typename TInputImage, typename TOutputImage>
  void
  OverrideFor();
  template <typename TIn, typename TOut, unsigned int VDimension>
  void
  OverrideForScalars();
};
} // namespace itk

#endif
