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
#include "vtkCudaImageReslice.h"

#include "cifCudaRuntime.h"
#include "cifDeviceBuffer.h"
#include "cifVTKParallelFor.h"
#include "cifVTKPinnedScalars.h"
#include "cifVTKResliceDevice.h"
#include "cifVTKResliceHost.h"
#include "cifVTKTransformFlattening.h"
#include "vtkCudaDeviceArray.h"
#include "vtkCudaImageBSplineCoefficients.h"

#include "vtkAbstractTransform.h"
#include "vtkDataArray.h"
#include "vtkDataSetAttributes.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageData.h"
#include "vtkInformation.h"
#include "vtkInformationVector.h"
#include "vtkMatrix4x4.h"
#include "vtkNew.h"
#include "vtkObjectFactory.h"
#include "vtkPointData.h"
#include "vtkSmartPointer.h"
#include "vtkStreamingDemandDrivenPipeline.h"

#include <algorithm>
#include <vector>

vtkStandardNewMacro(vtkCudaImageReslice);

using cif::vtkmath::PointSource;
using cif::vtkmath::ResliceJob;
using cif::vtkmath::ScalarKind;

struct vtkCudaImageReslice::Plan
{
  ResliceJob                  job; ///< all but the data pointers and the output extent
  vtkDataArray *              coefficients = nullptr;
  std::size_t                 firstComponentBytes = 0; ///< the interpolator's ComponentOffset, in bytes
  std::vector<vtkDataArray *> grids;                   ///< per transform stage: its B-spline grid or nullptr
  vtkAbstractTransform *      hostTransform = nullptr; ///< PointSource::Given: mapped per voxel on the host
};

namespace
{
bool
KindOf(int vtkType, ScalarKind & kind)
{
  switch (vtkType)
  {
    case VTK_CHAR:
    case VTK_SIGNED_CHAR:
      kind = ScalarKind::Int8;
      return true;
    case VTK_UNSIGNED_CHAR:
      kind = ScalarKind::UInt8;
      return true;
    case VTK_SHORT:
      kind = ScalarKind::Int16;
      return true;
    case VTK_UNSIGNED_SHORT:
      kind = ScalarKind::UInt16;
      return true;
    case VTK_INT:
      kind = ScalarKind::Int32;
      return true;
    case VTK_UNSIGNED_INT:
      kind = ScalarKind::UInt32;
      return true;
    case VTK_FLOAT:
      kind = ScalarKind::Float32;
      return true;
    case VTK_DOUBLE:
      kind = ScalarKind::Float64;
      return true;
    default:
      return false;
  }
}

/** Output slices per batch of host-mapped positions (3 doubles per voxel): batches of
 * at most 2^23 voxels (192 MiB), at least one slice. */
int
SlicesPerBatch(const ResliceJob & job)
{
  const std::int64_t slice = std::max<std::int64_t>(job.OutputSize(0) * job.OutputSize(1), 1);
  return static_cast<int>(std::max<std::int64_t>(1, (std::int64_t{ 1 } << 23) / slice));
}

/** VTK's positions for the output slices of \a batch, through a transform only the
 * host can evaluate: index matrix (and perspective), the transform, then the input's
 * origin and spacing (vtkResliceApplyTransform). */
void
MapOnHost(const ResliceJob & batch, vtkAbstractTransform * transform, double * points)
{
  ResliceJob matrixOnly = batch;
  matrixOnly.source = PointSource::Matrix;
  const std::int64_t nx = batch.OutputSize(0), ny = batch.OutputSize(1);
  cif::vtkmath::SMPParallelFor()(batch.OutputVoxels() / nx, [&](std::int64_t row) {
    const int j = batch.outputExtent[2] + static_cast<int>(row % ny);
    const int k = batch.outputExtent[4] + static_cast<int>(row / ny);
    for (std::int64_t x = 0; x < nx; ++x)
    {
      const std::int64_t voxel = row * nx + x;
      double             p[3];
      cif::vtkmath::InputPosition<PointSource::Matrix>(
        matrixOnly, batch.outputExtent[0] + static_cast<int>(x), j, k, voxel, p);
      transform->InternalTransformPoint(p, p);
      for (int a = 0; a < 3; ++a)
      {
        points[3 * voxel + a] = (p[a] - batch.inputOrigin[a]) * batch.inputInverseSpacing[a];
      }
    }
  });
}

/** Runs \a job over its output extent with \a run(job), in batches of slices with
 * host-mapped positions when the transform needs them; \a pointBuffer(count) gives
 * where the batch's positions go and \a publish(points, count) makes them readable by
 * \a run (an upload for the GPU). */
template <typename TRun, typename TPointBuffer, typename TPublish>
void
RunInBatches(ResliceJob             job,
             vtkAbstractTransform * hostTransform,
             std::size_t            outputVoxelBytes,
             TRun &&                run,
             TPointBuffer &&        pointBuffer,
             TPublish &&            publish)
{
  if (job.source != PointSource::Given)
  {
    run(job);
    return;
  }
  const int          slices = SlicesPerBatch(job);
  const int          zLast = job.outputExtent[5];
  const std::int64_t sliceVoxels = job.OutputSize(0) * job.OutputSize(1);
  char * const       output = static_cast<char *>(job.output);
  for (int z = job.outputExtent[4]; z <= zLast; z += slices)
  {
    ResliceJob batch = job;
    batch.outputExtent[4] = z;
    batch.outputExtent[5] = std::min(zLast, z + slices - 1);
    batch.output = output + (z - job.outputExtent[4]) * sliceVoxels * outputVoxelBytes;
    double * points = pointBuffer(batch.OutputVoxels());
    MapOnHost(batch, hostTransform, points);
    batch.points = publish(points, batch.OutputVoxels());
    run(batch);
  }
}

/** Slabs of a pinned output, each downloaded while the next computes (chosen, not
 * swept: more slabs shorten the last, unhidden download but cut the sheared kernel's
 * walk into shorter pieces with the same ragged edges). With 4, VTKBenchmark's
 * oblique reslice with host data took 1.09-1.23x the bus floor on an H100
 * (Modules/VTK/README.md). */
constexpr int kOverlappedSlabs = 4;

/** \a job in \a slabs pieces along output z (fewer where the output is thinner), in
 * order: \a run(slab job, its output bytes). */
template <typename TRun>
void
ResliceInSlabs(const ResliceJob & job, std::size_t outputVoxelBytes, int slabs, TRun && run)
{
  const int          depth = static_cast<int>(job.OutputSize(2));
  const int          count = std::max(1, std::min(slabs, depth));
  const std::int64_t sliceBytes = job.OutputSize(0) * job.OutputSize(1) * static_cast<std::int64_t>(outputVoxelBytes);
  char * const       output = static_cast<char *>(job.output);
  for (int n = 0; n < count; ++n)
  {
    const int  first = depth * n / count, last = depth * (n + 1) / count - 1;
    ResliceJob slab = job;
    slab.outputExtent[4] = job.outputExtent[4] + first;
    slab.outputExtent[5] = job.outputExtent[4] + last;
    slab.output = output + first * sliceBytes;
    run(slab, static_cast<std::size_t>((last - first + 1) * sliceBytes));
  }
}
} // namespace

void
vtkCudaImageReslice::PrintSelf(ostream & os, vtkIndent indent)
{
  this->Superclass::PrintSelf(os, indent);
  os << indent << "UseGPU: " << (this->UseGPU ? "On\n" : "Off\n");
  os << indent << "PrefilterInput: " << (this->PrefilterInput ? "On\n" : "Off\n");
  os << indent << "LastExecutionPath: " << this->GetLastExecutionPathAsString() << "\n";
}

int
vtkCudaImageReslice::RequestInformation(vtkInformation *        request,
                                        vtkInformationVector ** inputVector,
                                        vtkInformationVector *  outputVector)
{
  const int rval = this->Superclass::RequestInformation(request, inputVector, outputVector);
  if (rval && this->PrefilterInput && this->OutputScalarType <= 0)
  {
    // The output type of vtkImageBSplineCoefficients -> vtkImageReslice: the
    // coefficients' type (double for double input, float otherwise).
    vtkInformation * inInfo = inputVector[0]->GetInformationObject(0);
    vtkInformation * outInfo = outputVector->GetInformationObject(0);
    vtkInformation * inScalars = vtkDataObject::GetActiveFieldInformation(
      inInfo, vtkDataObject::FIELD_ASSOCIATION_POINTS, vtkDataSetAttributes::SCALARS);
    vtkInformation * outScalars = vtkDataObject::GetActiveFieldInformation(
      outInfo, vtkDataObject::FIELD_ASSOCIATION_POINTS, vtkDataSetAttributes::SCALARS);
    if (inScalars && outScalars)
    {
      const bool isDouble = inScalars->Get(vtkDataObject::FIELD_ARRAY_TYPE()) == VTK_DOUBLE;
      vtkDataObject::SetPointDataActiveScalarInfo(
        outInfo, isDouble ? VTK_DOUBLE : VTK_FLOAT, outScalars->Get(vtkDataObject::FIELD_NUMBER_OF_COMPONENTS()));
    }
  }
  return rval;
}

vtkImageData *
vtkCudaImageReslice::PrefilterOf(vtkImageData * input, bool onDevice)
{
  vtkNew<vtkImageData> samples;
  samples->ShallowCopy(input);
  vtkNew<vtkCudaImageBSplineCoefficients> prefilter;
  prefilter->SetInputData(samples);
  prefilter->SetSplineDegree(3);
  prefilter->SetBorderMode(this->Mirror ? VTK_IMAGE_BORDER_MIRROR
                                        : (this->Wrap ? VTK_IMAGE_BORDER_REPEAT : VTK_IMAGE_BORDER_CLAMP));
  prefilter->SetOutputScalarType(input->GetScalarType() == VTK_DOUBLE ? VTK_DOUBLE : VTK_FLOAT);
  prefilter->SetUseGPU(onDevice);
  prefilter->SetKeepOutputOnDevice(onDevice);
  prefilter->Update();
  if (prefilter->GetOutput()->GetPointData()->GetScalars() == nullptr)
  {
    return nullptr;
  }
  vtkImageData * coefficients = vtkImageData::New();
  coefficients->ShallowCopy(prefilter->GetOutput()); // shares the array and its device copy
  return coefficients;
}

std::string
vtkCudaImageReslice::MakePlan(vtkImageData * input, vtkInformation * outInfo, Plan & plan)
{
  auto * interpolator = vtkImageBSplineInterpolator::SafeDownCast(this->GetInterpolator());
  if (!interpolator || interpolator->GetSplineDegree() != 3)
  {
    return "the interpolator is not a vtkImageBSplineInterpolator of degree 3";
  }
  vtkDataArray * scalars = input ? input->GetPointData()->GetScalars() : nullptr;
  if (!scalars)
  {
    return "the input has no scalars";
  }
  const int * e = input->GetExtent();
  if (e[1] < e[0] || e[3] < e[2] || e[5] < e[4])
  {
    return "the input is empty";
  }
  if (scalars->GetDataType() != VTK_FLOAT && scalars->GetDataType() != VTK_DOUBLE)
  {
    return "the coefficients are neither float nor double";
  }
  if (this->GetStencil() || this->GenerateStencilOutput)
  {
    return "a stencil";
  }
  if (this->SlabNumberOfSlices > 1)
  {
    return "slab mode";
  }
  if (this->HasConvertScalars)
  {
    return "a subclass converts the scalars";
  }
  vtkInformation * outScalars = vtkDataObject::GetActiveFieldInformation(
    outInfo, vtkDataObject::FIELD_ASSOCIATION_POINTS, vtkDataSetAttributes::SCALARS);
  ResliceJob & job = plan.job;
  if (!outScalars || !KindOf(outScalars->Get(vtkDataObject::FIELD_ARRAY_TYPE()), job.outputKind))
  {
    return "the output scalar type (64-bit integers are not served)";
  }

  // The coefficients, as vtkAbstractImageInterpolator::Update sees them.
  plan.coefficients = scalars;
  const int ncomp = scalars->GetNumberOfComponents();
  const int first = std::min(std::max(interpolator->GetComponentOffset(), 0), ncomp - 1);
  plan.firstComponentBytes = static_cast<std::size_t>(first) * scalars->GetDataTypeSize();
  job.inputIsDouble = scalars->GetDataType() == VTK_DOUBLE;
  job.components = interpolator->ComputeNumberOfComponents(ncomp);
  std::copy(e, e + 6, job.inputExtent);
  job.inputIncrement[0] = ncomp;
  job.inputIncrement[1] = job.inputIncrement[0] * (e[1] - e[0] + 1);
  job.inputIncrement[2] = job.inputIncrement[1] * (e[3] - e[2] + 1);
  job.border = static_cast<cif::vtkmath::Border>(interpolator->GetBorderMode());
  const double tolerance = interpolator->GetTolerance();
  const int    halfKernel = 4 / 2; // ComputeSupportSize: degree + 1
  const double lowest = VTK_INT_MIN + halfKernel, highest = VTK_INT_MAX - halfKernel;
  for (int a = 0; a < 3; ++a)
  {
    double margin = 0.5 * (e[2 * a] == e[2 * a + 1]);
    margin = margin > tolerance ? margin : tolerance;
    const double low = e[2 * a] - margin, high = e[2 * a + 1] + margin;
    job.bounds[2 * a] = low > lowest ? low : lowest;
    job.bounds[2 * a + 1] = high < highest ? high : highest;
  }

  // Output index -> input index: VTK's index matrix; a non-homogeneous transform
  // (the optimized transform) follows it in world coordinates.
  for (int r = 0; r < 4; ++r)
  {
    for (int c = 0; c < 4; ++c)
    {
      job.matrix[r][c] = this->IndexMatrix->GetElement(r, c);
    }
  }
  job.perspective = job.matrix[3][0] != 0 || job.matrix[3][1] != 0 || job.matrix[3][2] != 0 || job.matrix[3][3] != 1;
  job.source = PointSource::Matrix;
  if (this->OptimizedTransform)
  {
    double spacing[3];
    input->GetOrigin(job.inputOrigin);
    input->GetSpacing(spacing);
    for (int a = 0; a < 3; ++a)
    {
      job.inputInverseSpacing[a] = 1.0 / spacing[a];
    }
    const std::string why = cif::vtkmath::FlattenTransform(this->OptimizedTransform, job.stages, plan.grids);
    if (why.empty())
    {
      job.source = PointSource::Stages;
    }
    else
    {
      job.source = PointSource::Given;
      job.stages.count = 0;
      plan.grids.clear();
      plan.hostTransform = this->OptimizedTransform;
    }
  }
  for (int c = 0; c < 4; ++c)
  {
    job.background[c] = this->BackgroundColor[c];
  }
  job.scalarShift = this->ScalarShift;
  job.scalarScale = this->ScalarScale;
  return "";
}

void
vtkCudaImageReslice::ThreadedRequestData(vtkInformation *        request,
                                         vtkInformationVector ** inputVector,
                                         vtkInformationVector *  outputVector,
                                         vtkImageData ***        inData,
                                         vtkImageData **         outData,
                                         int                     extent[6],
                                         int                     threadId)
{
  if (this->AllocatingOnly)
  {
    return; // the module's path fills the whole output after the superclass allocated it
  }
  this->Superclass::ThreadedRequestData(request, inputVector, outputVector, inData, outData, extent, threadId);
}

int
vtkCudaImageReslice::RequestData(vtkInformation *        request,
                                 vtkInformationVector ** inputVector,
                                 vtkInformationVector *  outputVector)
{
  vtkInformation * inInfo = inputVector[0]->GetInformationObject(0);
  vtkInformation * outInfo = outputVector->GetInformationObject(0);
  auto *           input = vtkImageData::SafeDownCast(inInfo->Get(vtkDataObject::DATA_OBJECT()));
  const bool       onDevice = this->UseGPU && cif::IsGPUAvailable();
  this->LastPositioning.clear();

  // The coefficients the interpolator reads: the input, or what PrefilterInput makes.
  vtkSmartPointer<vtkImageData> prefiltered;
  vtkImageData *                coefficients = input;
  if (this->PrefilterInput && input && input->GetPointData()->GetScalars())
  {
    prefiltered.TakeReference(this->PrefilterOf(input, onDevice));
    if (!prefiltered)
    {
      vtkErrorMacro(<< "RequestData: the prefilter of the input failed");
      return 0;
    }
    coefficients = prefiltered;
  }

  Plan              plan;
  const std::string why = this->MakePlan(coefficients, outInfo, plan);
  if (!why.empty())
  {
    this->FallbackReason = why;
    this->LastExecutionPath = VTK_CUDA_PATH_VTK;
    if (!coefficients)
    {
      return this->Superclass::RequestData(request, inputVector, outputVector);
    }
    vtkCudaDeviceArray::SynchronizeHost(coefficients->GetPointData()->GetScalars()); // VTK reads the host copy
    if (!prefiltered)
    {
      return this->Superclass::RequestData(request, inputVector, outputVector);
    }
    // The superclass interpolates what its input information holds: the coefficients.
    vtkSmartPointer<vtkDataObject> samples = inInfo->Get(vtkDataObject::DATA_OBJECT());
    inInfo->Set(vtkDataObject::DATA_OBJECT(), prefiltered);
    const int rval = this->Superclass::RequestData(request, inputVector, outputVector);
    inInfo->Set(vtkDataObject::DATA_OBJECT(), samples);
    return rval;
  }
  this->FallbackReason.clear();

  // The superclass allocates the output (and its threads do nothing). Scalars it
  // kept from the previous update may become pinned (cifVTKPinnedScalars.h).
  auto *               outputBefore = vtkImageData::SafeDownCast(outInfo->Get(vtkDataObject::DATA_OBJECT()));
  const vtkDataArray * scalarsBefore = outputBefore ? outputBefore->GetPointData()->GetScalars() : nullptr;
  this->AllocatingOnly = true;
  const int allocated = this->Superclass::RequestData(request, inputVector, outputVector);
  this->AllocatingOnly = false;
  if (!allocated)
  {
    return 0;
  }
  auto *         output = vtkImageData::SafeDownCast(outInfo->Get(vtkDataObject::DATA_OBJECT()));
  vtkDataArray * outScalars = output->GetPointData()->GetScalars();
  ResliceJob &   job = plan.job;
  output->GetExtent(job.outputExtent);
  if (job.OutputVoxels() == 0)
  {
    this->LastExecutionPath = onDevice ? VTK_CUDA_PATH_GPU : VTK_CUDA_PATH_CPU;
    return 1;
  }
  const std::size_t voxelBytes = static_cast<std::size_t>(job.components) * outScalars->GetDataTypeSize();
  const std::size_t outBytes = static_cast<std::size_t>(job.OutputVoxels()) * voxelBytes;
  const std::size_t inBytes =
    static_cast<std::size_t>(plan.coefficients->GetNumberOfValues()) * plan.coefficients->GetDataTypeSize();
  this->LastPositioning = job.source == PointSource::Matrix   ? "index matrix"
                          : job.source == PointSource::Stages ? "transform stages on the device"
                                                              : "transform mapped on the host";

  if (onDevice)
  {
    outScalars = cif::vtkmath::PinReusedScalars(output, outScalars == scalarsBefore);
    try
    {
      vtkCudaDeviceArray * resident = vtkCudaDeviceArray::Get(plan.coefficients);
      cif::RequireDeviceMemory((resident ? 0 : inBytes) + outBytes, "vtkCudaImageReslice: coefficients and output");
      cif::DeviceBuffer input;
      const void *      coefficientsOnDevice = nullptr;
      if (resident)
      {
        coefficientsOnDevice = resident->GetDeviceData();
      }
      else
      {
        input.Allocate(inBytes);
        input.Upload(plan.coefficients->GetVoidPointer(0), inBytes);
        coefficientsOnDevice = input.Data();
      }
      job.input = static_cast<const char *>(coefficientsOnDevice) + plan.firstComponentBytes;
      std::vector<cif::DeviceBuffer> grids;
      for (int s = 0; s < job.stages.count; ++s)
      {
        if (vtkDataArray * grid = plan.grids[s])
        {
          const std::size_t bytes = static_cast<std::size_t>(grid->GetNumberOfValues()) * grid->GetDataTypeSize();
          grids.emplace_back(bytes);
          grids.back().Upload(grid->GetVoidPointer(0), bytes);
          job.stages.stage[s].grid = grids.back().Data();
        }
      }
      cif::DeviceBuffer output(outBytes);
      job.output = output.Data();
      if (job.source != PointSource::Given)
      {
        // Into pinned scalars the output comes down in slabs along z, each while the
        // next computes; into ordinary ones in one staged download at the end.
        cif::OverlappedDownload download(outScalars->GetVoidPointer(0), output.Data(), outBytes);
        ResliceInSlabs(
          job, voxelBytes, download.Overlaps() ? kOverlappedSlabs : 1, [&](const ResliceJob & slab, std::size_t bytes) {
            cif::vtkmath::ResliceOnDevice(slab);
            download.Ready(bytes);
          });
        download.Finish();
      }
      else
      {
        // Positions mapped on the host, in batches of slices.
        std::vector<double> hostPoints;
        cif::DeviceBuffer   devicePoints;
        RunInBatches(
          job,
          plan.hostTransform,
          voxelBytes,
          [](const ResliceJob & batch) { cif::vtkmath::ResliceOnDevice(batch); },
          [&](std::int64_t count) {
            hostPoints.resize(static_cast<std::size_t>(3 * count));
            return hostPoints.data();
          },
          [&](const double * points, std::int64_t count) {
            const std::size_t bytes = static_cast<std::size_t>(3 * count) * sizeof(double);
            if (devicePoints.Bytes() < bytes)
            {
              devicePoints.Allocate(bytes);
            }
            devicePoints.Upload(points, bytes);
            return static_cast<const double *>(devicePoints.Data());
          });
        output.Download(outScalars->GetVoidPointer(0), outBytes);
      }
    }
    catch (const cif::CudaError & e)
    {
      vtkErrorMacro(<< "RequestData: " << e.what());
      return 0;
    }
    this->LastExecutionPath = VTK_CUDA_PATH_GPU;
    return 1;
  }

  // CPU path: the kernel's per-voxel code over the rows, threaded by vtkSMPTools.
  vtkCudaDeviceArray::SynchronizeHost(plan.coefficients);
  job.input = static_cast<const char *>(plan.coefficients->GetVoidPointer(0)) + plan.firstComponentBytes;
  for (int s = 0; s < job.stages.count; ++s)
  {
    if (vtkDataArray * grid = plan.grids[s])
    {
      job.stages.stage[s].grid = grid->GetVoidPointer(0);
    }
  }
  job.output = outScalars->GetVoidPointer(0);
  std::vector<double> points;
  RunInBatches(
    job,
    plan.hostTransform,
    voxelBytes,
    [](const ResliceJob & batch) { cif::vtkmath::ResliceOnHost(batch, cif::vtkmath::SMPParallelFor()); },
    [&](std::int64_t count) {
      points.resize(static_cast<std::size_t>(3 * count));
      return points.data();
    },
    [](const double * p, std::int64_t) { return p; });
  this->LastExecutionPath = VTK_CUDA_PATH_CPU;
  return 1;
}
