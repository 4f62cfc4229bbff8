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
// elastix's parameter files run one after another, as elastix runs its -p files: what
// the elastix drop-in and ElasticRegistrationCLI's --parameterFile share.
#ifndef cifElastixRegistrationChain_h
#define cifElastixRegistrationChain_h

#include "cifElastixRegistrationStage.h"
#include "cifScopedSmoothingFactory.h"
#include "itkElasticRegistration.h"
#include "itkElastixParameterFile.h"

#include <functional>
#include <string>
#include <vector>

namespace cif
{
/** What a caller of RunElastixRegistrationChain sees: each stage's start, its
 * iterations (ElasticRegistration's reports) and its end, with the stage's own
 * transform and the chain so far. Any may be empty; any may throw to stop the run. */
template <unsigned int D>
struct ElastixChainObserver
{
  using Registration = itk::ElasticRegistration<itk::Image<float, D>>;
  std::function<void(std::size_t, const ElastixRegistrationStage &)>         stageStarts;
  std::function<void(std::size_t, const itk::RegistrationIterationReport &)> iteration;
  std::function<
    void(std::size_t, const Registration &, itk::Transform<double, D, D> *, itk::CompositeTransform<double, D> *)>
    stageEnded;
};

/** The files at \a paths read as stages (ReadElastixRegistrationStage: every refusal
 * before any image), each with the metric's \a useGPU. */
inline std::vector<ElastixRegistrationStage>
ReadElastixRegistrationStages(const std::vector<std::string> & paths, bool useGPU)
{
  std::vector<ElastixRegistrationStage> stages;
  for (const auto & path : paths)
  {
    stages.push_back(ReadElastixRegistrationStage(itk::ElastixParameterFile::Read(path)));
    stages.back().settings.useGPU = useGPU;
  }
  return stages;
}

/** Runs \a stages in order on \a fixed and \a moving (masks optional), each on top of
 * \a initial (may be null) and the stages before it, as elastix composes its -p files;
 * resolves each stage for the fixed image first (ResolveForImages). Returns the chain
 * in ITK's order: the stage added last is applied first, \a initial applied last. */
template <unsigned int D>
typename itk::CompositeTransform<double, D>::Pointer
RunElastixRegistrationChain(const itk::Image<float, D> *          fixed,
                            const itk::Image<float, D> *          moving,
                            const itk::Image<unsigned char, D> *  fixedMask,
                            const itk::Image<unsigned char, D> *  movingMask,
                            std::vector<ElastixRegistrationStage> stages,
                            const itk::Transform<double, D, D> *  initial,
                            const ElastixChainObserver<D> &       observer)
{
  const auto &              spacing = fixed->GetSpacing();
  const auto &              size = fixed->GetLargestPossibleRegion().GetSize();
  const std::vector<double> voxels(size.begin(), size.end());
  for (auto & stage : stages)
  {
    ResolveForImages(stage, std::vector<double>(spacing.begin(), spacing.end()), voxels);
  }
  auto chain = itk::CompositeTransform<double, D>::New();
  if (initial)
  {
    chain->AddTransform(const_cast<itk::Transform<double, D, D> *>(initial));
  }
  for (std::size_t n = 0; n < stages.size(); ++n)
  {
    const auto & stage = stages[n];
    if (observer.stageStarts)
    {
      observer.stageStarts(n, stage);
    }
    typename ElastixChainObserver<D>::Registration registration(fixed, moving, stage.settings);
    registration.SetFixedMask(fixedMask);
    registration.SetMovingMask(movingMask);
    if (chain->GetNumberOfTransforms() > 0)
    {
      registration.SetInitialTransform(chain);
    }
    if (observer.iteration)
    {
      registration.SetObserver(
        [&observer, n](const itk::RegistrationIterationReport & r) { observer.iteration(n, r); });
    }
    {
      const ScopedSmoothingFactory smoothingOnTheGPU(stage.settings.useGPU);
      registration.Update();
    }
    itk::Transform<double, D, D> * result = registration.GetLinearTransform();
    if (result == nullptr)
    {
      result = registration.GetBSplineTransform();
    }
    chain->AddTransform(result);
    if (observer.stageEnded)
    {
      observer.stageEnded(n, registration, result, chain);
    }
  }
  return chain;
}
} // namespace cif

#endif
