#ifndef itkMeanSquaresImageToImageMetricv4GPU_hxx
#define itkMeanSquaresImageToImageMetricv4GPU_hxx

#include "itkMeanSquaresImageToImageMetricv4GPU.h"

namespace itk
{
template <typename TFixedImage, typename TMovingImage, typename TVirtualImage, typename TInternal, typename TTraits>
void
MeanSquaresImageToImageMetricv4GPU<TFixedImage, TMovingImage, TVirtualImage, TInternal, TTraits>::Initialize()
{
  Superclass::Initialize();
  if (m_Threader.IsNull())
  {
    m_Threader = MultiThreaderBase::New();
  }
  ImageMetricv4State<MetricType> state;
  state.fixedImage = this->m_FixedImage.GetPointer();
  state.movingImage = this->m_MovingImage.GetPointer();
  state.virtualImage = this->m_VirtualImage.GetPointer();
  state.virtualRegion = this->GetVirtualRegion();
  state.sampledPoints = this->m_UseSampledPointSet ? this->m_VirtualSampledPointSet.GetPointer() : nullptr;
  state.fixedTransform = this->m_FixedTransform.GetPointer();
  state.fixedInterpolator = this->m_FixedInterpolator.GetPointer();
  state.movingInterpolator = this->m_MovingInterpolator.GetPointer();
  state.fixedMask = this->m_FixedImageMask.GetPointer();
  state.movingMask = this->m_MovingImageMask.GetPointer();
  state.movingGradientImage = this->m_UseMovingImageGradientFilter ? this->m_MovingImageGradientImage.GetPointer() : nullptr;
  state.gradientFromDefaultCalculator =
    !this->m_UseMovingImageGradientFilter &&
    this->m_MovingImageGradientCalculator.GetPointer() == this->m_DefaultMovingImageGradientCalculator.GetPointer();
  state.needsFixedGradient = this->GetGradientSourceIncludesFixed();
  state.floatingPointCorrection = this->GetUseFloatingPointCorrection();
  m_Scene = std::make_unique<SceneType>();
  m_Scene->Prepare(state, this->RunsOnGPU(), m_Threader);
}

template <typename TFixedImage, typename TMovingImage, typename TVirtualImage, typename TInternal, typename TTraits>
void
MeanSquaresImageToImageMetricv4GPU<TFixedImage, TMovingImage, TVirtualImage, TInternal,
                                   TTraits>::GetValueAndDerivativeExecute() const
{
  auto *      self = const_cast<Self *>(this);
  std::string reason = "Initialize() has not run";
  if (m_Scene && m_Scene->Supported())
  {
    const bool      withDerivative = this->GetComputeDerivative();
    cif::MetricSums sums;
    if (m_Scene->EvaluateMeanSquares(this->m_MovingTransform.GetPointer(), withDerivative, m_Threader, sums,
                                     this->m_DerivativeResult, reason))
    {
      this->m_NumberOfValidPoints = static_cast<SizeValueType>(sums.value[0]);
      // ITK's AfterThreadedExecution: the warning and NumericTraits::max() when no
      // point is valid, else the averages.
      if (this->VerifyNumberOfValidPoints(this->m_Value, *this->m_DerivativeResult))
      {
        const double points = static_cast<double>(this->m_NumberOfValidPoints);
        this->m_Value = sums.value[1] / points;
        if (withDerivative)
        {
          *this->m_DerivativeResult /= points;
        }
      }
      self->SetLastExecutionPath(m_Scene->OnGPU() ? CudaExecutionPath::GPU : CudaExecutionPath::CPU);
      m_LastExecutionReason.clear();
      return;
    }
  }
  else if (m_Scene)
  {
    reason = m_Scene->Reason();
  }
  m_LastExecutionReason = reason;
  self->SetLastExecutionPath(CudaExecutionPath::ITK);
  MetricType::GetValueAndDerivativeExecute();
}

template <typename TFixedImage, typename TMovingImage, typename TVirtualImage, typename TInternal, typename TTraits>
void
MeanSquaresImageToImageMetricv4GPU<TFixedImage, TMovingImage, TVirtualImage, TInternal, TTraits>::PrintSelf(
  std::ostream & os,
  Indent         indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "LastExecutionReason: " << (m_LastExecutionReason.empty() ? "(none)" : m_LastExecutionReason)
     << std::endl;
}
} // namespace itk

#endif
