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
// A brain registered to a template as antsRegistrationSyN.sh does it, on the GPU: an
// affine stage (itk::ElasticRegistration, Mattes, centres of mass) then SyN
// (itk::SyNImageRegistrationMethodGPU with ANTs' defaults: CC radius 4, learning rate
// 0.1, update variance 3, total variance 0, shrink 8x4x2x1, sigmas 3x2x1x0 voxels,
// 100x70x50x20 iterations). Prints the global normalized correlation before, after
// the affine and after SyN, each stage's time and the range of the Jacobian
// determinant of the SyN field; writes the warped moving image, the composite
// transform (affine + SyN field, ITK's HDF5 format, which antsApplyTransforms and
// Slicer read), its inverse, and a checkerboard of the fixed and the warped moving
// image (mid-axial slice, PNG); with --full-warp also the whole fixed-to-moving map
// (affine and field) as one displacement field on the fixed grid, what
// antsApplyTransforms -o [warp.nii.gz,1] writes, for tools that compare registrations.
//
//   SyNBrainExample FIXED MOVING OUTPUT_PREFIX [--iterations 100 70 50 20] [--radius 4]
//                   [--total-variance 0] [--cpu] [--full-warp]
//
// e.g. FIXED the MNI152 2009a T1 template (nilearn's mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz),
// MOVING Colin27 (Debian's mricron-data: /usr/share/mricron/templates/ch2bet.nii.gz).
#include "cifITKPoolParking.h"
#include "itkCheckerBoardImageFilter.h"
#include "itkCompositeTransform.h"
#include "itkDisplacementFieldJacobianDeterminantFilter.h"
#include "itkElasticRegistration.h"
#include "itkExtractImageFilter.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkMinimumMaximumImageCalculator.h"
#include "itkResampleImageFilter.h"
#include "itkRescaleIntensityImageFilter.h"
#include "itkSyNImageRegistrationMethodGPU.h"
#include "itkSyNRegistrationSetup.h"
#include "itkTransformFileWriter.h"
#include "itkTransformToDisplacementFieldFilter.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

namespace
{
constexpr unsigned int D = 3;
using Image = itk::Image<float, D>;
using FieldTransform = itk::DisplacementFieldTransform<double, D>;
using Field = FieldTransform::DisplacementFieldType;
using Composite = itk::CompositeTransform<double, D>;

double
Seconds(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Where a stage's time goes: each level's first and last iteration, in seconds from the
// stage's start (before the first: set-up and pyramids; after the last: the output).
struct LevelSpan
{
  double       first = 0.0;
  double       last = 0.0;
  unsigned int iterations = 0;
};
using Timeline = std::map<unsigned int, LevelSpan>;

void
Record(Timeline & timeline, unsigned int level, double seconds)
{
  LevelSpan & span = timeline[level];
  span.first = span.iterations == 0 ? seconds : span.first;
  span.last = seconds;
  ++span.iterations;
}

void
PrintTimeline(const char * stage, const Timeline & timeline, double total)
{
  std::printf("%s timeline (s from its start):", stage);
  for (const auto & [level, span] : timeline)
  {
    std::printf(" level %u, %u iterations, %.3f to %.3f;", level, span.iterations, span.first, span.last);
  }
  std::printf(" done %.3f\n", total);
}

/** \a moving on \a fixed's grid through \a transform (linear, 0 outside). */
Image::Pointer
Warp(const Image * fixed, const Image * moving, const itk::Transform<double, D, D> * transform)
{
  auto resample = itk::ResampleImageFilter<Image, Image>::New();
  resample->SetInput(moving);
  resample->SetTransform(transform);
  resample->SetReferenceImage(fixed);
  resample->UseReferenceImageOn();
  resample->Update();
  return resample->GetOutput();
}

/** Pearson's correlation of two images on one grid, over every voxel. */
double
GlobalNCC(const Image * a, const Image * b)
{
  const auto *      x = a->GetBufferPointer();
  const auto *      y = b->GetBufferPointer();
  const std::size_t n = a->GetBufferedRegion().GetNumberOfPixels();
  double            sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (std::size_t k = 0; k < n; ++k)
  {
    sx += x[k];
    sy += y[k];
    sxx += double(x[k]) * x[k];
    syy += double(y[k]) * y[k];
    sxy += double(x[k]) * y[k];
  }
  const double cov = sxy - sx * sy / n, vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
  return cov / std::sqrt(vx * vy);
}

/** The Jacobian determinant of x -> x + field(x) in physical space. ITK's
 * DisplacementFieldJacobianDeterminantFilter differentiates along the image's axes and
 * ignores its direction (flipped for a RAS NIfTI as MNI's), so the vectors go into the
 * axes' frame first: det(I + D^T du/di S^-1) = det(I + du/di S^-1 D^T). */
itk::Image<double, D>::Pointer
JacobianDeterminant(const Field * field)
{
  auto inAxes = Field::New();
  inAxes->CopyInformation(field);
  inAxes->SetRegions(field->GetBufferedRegion());
  inAxes->Allocate();
  const Field::DirectionType toAxes(field->GetDirection().GetTranspose());
  const std::size_t          voxels = field->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t k = 0; k < voxels; ++k)
  {
    inAxes->GetBufferPointer()[k] = toAxes * field->GetBufferPointer()[k];
  }
  auto jacobian = itk::DisplacementFieldJacobianDeterminantFilter<Field, double>::New();
  jacobian->SetInput(inAxes);
  jacobian->Update();
  return jacobian->GetOutput();
}

/** The mid-axial slice of \a image as 8-bit (its own range). */
itk::Image<unsigned char, 2>::Pointer
MidSlice(const Image * image)
{
  auto region = image->GetLargestPossibleRegion();
  auto index = region.GetIndex();
  auto size = region.GetSize();
  index[2] += static_cast<long>(size[2] / 2);
  size[2] = 0;
  auto extract = itk::ExtractImageFilter<Image, itk::Image<float, 2>>::New();
  extract->SetInput(image);
  extract->SetExtractionRegion(Image::RegionType(index, size));
  extract->SetDirectionCollapseToIdentity();
  auto rescale = itk::RescaleIntensityImageFilter<itk::Image<float, 2>, itk::Image<unsigned char, 2>>::New();
  rescale->SetInput(extract->GetOutput());
  rescale->Update();
  return rescale->GetOutput();
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  if (argc < 4)
  {
    std::fprintf(stderr,
                 "usage: SyNBrainExample FIXED MOVING OUTPUT_PREFIX [--iterations I1 I2 ...] [--radius R] "
                 "[--total-variance V] [--cpu] [--full-warp]\n");
    return 2;
  }
  std::vector<unsigned int> iterations{ 100, 70, 50, 20 };
  unsigned int              radius = 4;
  double                    totalVariance = 0.0; // ANTs' SyN[0.1,3,0]
  bool                      useGPU = true;
  bool                      fullWarp = false;
  for (int k = 4; k < argc; ++k)
  {
    if (!std::strcmp(argv[k], "--iterations"))
    {
      iterations.clear();
      while (k + 1 < argc && argv[k + 1][0] != '-')
      {
        iterations.push_back(static_cast<unsigned int>(std::atoi(argv[++k])));
      }
    }
    else if (!std::strcmp(argv[k], "--radius") && k + 1 < argc)
    {
      radius = static_cast<unsigned int>(std::atoi(argv[++k]));
    }
    else if (!std::strcmp(argv[k], "--total-variance") && k + 1 < argc)
    {
      totalVariance = std::atof(argv[++k]);
    }
    else if (!std::strcmp(argv[k], "--cpu"))
    {
      useGPU = false;
    }
    else if (!std::strcmp(argv[k], "--full-warp"))
    {
      fullWarp = true;
    }
    else
    {
      std::fprintf(stderr, "error: unknown argument %s\n", argv[k]);
      return 2;
    }
  }
  if (iterations.empty() || iterations.size() > 4 || radius < 1)
  {
    std::fprintf(stderr, "error: --iterations takes 1 to 4 levels, --radius at least 1\n");
    return 2;
  }
  const std::string prefix = argv[3];
  try
  {
    auto readFixed = itk::ImageFileReader<Image>::New();
    readFixed->SetFileName(argv[1]);
    readFixed->Update();
    auto readMoving = itk::ImageFileReader<Image>::New();
    readMoving->SetFileName(argv[2]);
    readMoving->Update();
    const Image::Pointer fixed = readFixed->GetOutput();
    const Image::Pointer moving = readMoving->GetOutput();
    auto                 identity = itk::IdentityTransform<double, D>::New();
    std::printf("fixed %s, moving %s\n", argv[1], argv[2]);
    std::printf("global NCC before:      %.4f\n", GlobalNCC(fixed, Warp(fixed, moving, identity)));

    // The affine stage: Mattes, centres of mass, three levels.
    itk::ElasticRegistrationSettings affineSettings;
    affineSettings.linearStage = itk::LinearRegistrationStage::Affine;
    affineSettings.linearInitialization = itk::LinearStageInitialization::CentersOfMass;
    affineSettings.bsplineStage = false;
    affineSettings.metric = cif::RegistrationMetricKind::MattesMutualInformation;
    affineSettings.histogramBins = 32;
    affineSettings.levels = 3;
    affineSettings.iterations = { 200, 100, 50 };
    affineSettings.useGPU = useGPU;
    auto                            start = std::chrono::steady_clock::now();
    itk::ElasticRegistration<Image> affine(fixed, moving, affineSettings);
    Timeline                        affineTimeline;
    affine.SetObserver([&](const itk::RegistrationIterationReport & report) {
      if (!report.levelEnded)
      {
        Record(affineTimeline, report.level, Seconds(start));
      }
    });
    affine.Update();
    const double affineSeconds = Seconds(start);
    auto         initial = Composite::New();
    initial->AddTransform(affine.GetTransform());
    initial->FlattenTransformQueue();
    std::printf(
      "global NCC after affine: %.4f (%.2f s)\n", GlobalNCC(fixed, Warp(fixed, moving, initial)), affineSeconds);
    PrintTimeline("affine", affineTimeline, affineSeconds);

    // SyN, ANTs' defaults (antsRegistrationSyN.sh).
    using SyN = itk::SyNImageRegistrationMethodGPU<Image, Image, FieldTransform>;
    itk::SyNStageSettings settings; // ANTs' defaults
    settings.radius = radius;
    settings.iterations = iterations;
    settings.totalFieldVariance = totalVariance;
    auto syn = SyN::New();
    syn->SetUseGPU(useGPU);
    syn->SetMovingInitialTransform(initial);
    itk::ConfigureSyN(syn.GetPointer(), fixed.GetPointer(), moving.GetPointer(), settings);
    Timeline synTimeline;
    syn->AddObserver(itk::IterationEvent(),
                     [&](const itk::EventObject &) { Record(synTimeline, syn->GetCurrentLevel(), Seconds(start)); });
    start = std::chrono::steady_clock::now();
    syn->Update();
    const double synSeconds = Seconds(start);
    const auto * field = syn->GetTransformOutput()->Get();
    auto         full = Composite::New();
    full->AddTransform(initial);
    full->AddTransform(const_cast<FieldTransform *>(field));
    full->FlattenTransformQueue();
    const Image::Pointer warped = Warp(fixed, moving, full);
    std::printf("global NCC after SyN:    %.4f (%.2f s on the %s, %s)\n",
                GlobalNCC(fixed, warped),
                synSeconds,
                itk::ToString(syn->GetLastExecutionPath()),
                syn->GetLastExecutionReason().empty() ? "the module's loop" : syn->GetLastExecutionReason().c_str());
    PrintTimeline("SyN", synTimeline, synSeconds);

    const auto jacobian = JacobianDeterminant(field->GetDisplacementField());
    auto       range = itk::MinimumMaximumImageCalculator<itk::Image<double, D>>::New();
    range->SetImage(jacobian);
    range->Compute();
    std::size_t folded = 0, foldedInBrain = 0;
    const auto  voxels = fixed->GetBufferedRegion().GetNumberOfPixels();
    for (std::size_t k = 0; k < voxels; ++k)
    {
      const bool fold = jacobian->GetBufferPointer()[k] <= 0.0;
      folded += fold ? 1 : 0;
      foldedInBrain += fold && fixed->GetBufferPointer()[k] > 0.0f ? 1 : 0;
    }
    std::printf("Jacobian determinant of the SyN field (total variance %g): %.3f to %.3f; %zu of %zu voxels folded "
                "(%zu inside the template's brain)\n",
                totalVariance,
                range->GetMinimum(),
                range->GetMaximum(),
                folded,
                static_cast<std::size_t>(voxels),
                foldedInBrain);

    auto writer = itk::ImageFileWriter<Image>::New();
    writer->SetInput(warped);
    writer->SetFileName(prefix + "Warped.nii.gz");
    writer->Update();
    auto transformWriter = itk::TransformFileWriterTemplate<double>::New();
    transformWriter->SetInput(full);
    transformWriter->SetFileName(prefix + "Composite.h5");
    transformWriter->Update();
    auto inverse = Composite::New(); // the SyN field's inverse applied last
    inverse->AddTransform(field->GetInverseTransform().GetPointer());
    inverse->AddTransform(initial->GetInverseTransform().GetPointer());
    inverse->FlattenTransformQueue();
    transformWriter->SetInput(inverse);
    transformWriter->SetFileName(prefix + "InverseComposite.h5");
    transformWriter->Update();
    if (fullWarp)
    {
      using FullWarp = itk::Image<itk::Vector<float, D>, D>;
      auto toField = itk::TransformToDisplacementFieldFilter<FullWarp, double>::New();
      toField->SetTransform(full);
      toField->SetReferenceImage(fixed);
      toField->UseReferenceImageOn();
      auto fieldWriter = itk::ImageFileWriter<FullWarp>::New();
      fieldWriter->SetInput(toField->GetOutput());
      fieldWriter->SetFileName(prefix + "FullWarp.nii.gz");
      fieldWriter->Update();
      std::printf("wrote %sFullWarp.nii.gz\n", prefix.c_str());
    }
    auto checker = itk::CheckerBoardImageFilter<itk::Image<unsigned char, 2>>::New();
    checker->SetInput1(MidSlice(fixed));
    checker->SetInput2(MidSlice(warped));
    itk::FixedArray<unsigned int, 2> pattern;
    pattern.Fill(8);
    checker->SetCheckerPattern(pattern);
    auto png = itk::ImageFileWriter<itk::Image<unsigned char, 2>>::New();
    png->SetInput(checker->GetOutput());
    png->SetFileName(prefix + "Checkerboard.png");
    png->Update();
    std::printf("wrote %sWarped.nii.gz, %sComposite.h5, %sInverseComposite.h5, %sCheckerboard.png\n",
                prefix.c_str(),
                prefix.c_str(),
                prefix.c_str(),
                prefix.c_str());
  }
  catch (const std::exception & e)
  {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
