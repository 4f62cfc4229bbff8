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
// Oblique reslice: reads a volume in any format ITK reads (or makes a synthetic
// phantom when given none), hands it to VTK without a copy (cifITKVTKBridge.h),
// cuts an oblique slice through it with vtkCudaImageReslice (cubic B-spline, the
// coefficients computed on the device: PrefilterInput), checks the slice against
// VTK's own vtkImageBSplineCoefficients + vtkImageReslice, and renders the slice and
// a volume view with the slice's plane offscreen into a PNG.
//
//   ObliqueResliceExample [output.png] [volume file | phantom edge length, default 128] [--no-render]
//
// Debian's VTK renders through X only: run it under xvfb-run where there is no
// display (the test does).
#include "cifITKPoolParking.h"
#include "cifCudaRuntime.h"
#include "cifExampleTiming.h"
#include "cifITKVTKBridge.h"
#include "vtkCudaImageReslice.h"

#include "itkImageFileReader.h"
#include "itkImageRegionIteratorWithIndex.h"

#include "vtkCamera.h"
#include "vtkColorTransferFunction.h"
#include "vtkGPUVolumeRayCastMapper.h"
#include "vtkImageActor.h"
#include "vtkImageBSplineCoefficients.h"
#include "vtkImageBSplineInterpolator.h"
#include "vtkImageMapToColors.h"
#include "vtkImageMapper3D.h"
#include "vtkImageReslice.h"
#include "vtkLookupTable.h"
#include "vtkMatrix4x4.h"
#include "vtkNew.h"
#include "vtkOutlineSource.h"
#include "vtkPNGWriter.h"
#include "vtkPlane.h"
#include "vtkPlaneSource.h"
#include "vtkPiecewiseFunction.h"
#include "vtkPolyDataMapper.h"
#include "vtkProperty.h"
#include "vtkRenderWindow.h"
#include "vtkRenderer.h"
#include "vtkTextActor.h"
#include "vtkTextProperty.h"
#include "vtkTransform.h"
#include "vtkVolume.h"
#include "vtkVolumeProperty.h"
#include "vtkWindowToImageFilter.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>

namespace
{
using Volume = itk::Image<float, 3>;

/** A 3-D Shepp-Logan-like phantom: nested ellipsoids of different densities with a
 * faint ripple, so that the cubic interpolation has edges and texture to keep. */
Volume::Pointer
MakePhantom(unsigned int n)
{
  auto volume = Volume::New();
  volume->SetRegions(Volume::SizeType{ { n, n, n } });
  Volume::SpacingType spacing;
  spacing.Fill(200.0 / n); // a 200 mm cube
  volume->SetSpacing(spacing);
  volume->Allocate();
  struct Ellipsoid
  {
    double c[3], r[3], density;
  };
  const Ellipsoid parts[] = {
    { { 0, 0, 0 }, { 0.69, 0.92, 0.81 }, 1.0 },
    { { 0, -0.0184, 0 }, { 0.6624, 0.874, 0.78 }, -0.8 },
    { { 0.22, 0, 0 }, { 0.11, 0.31, 0.22 }, -0.2 },
    { { -0.22, 0, 0 }, { 0.16, 0.41, 0.28 }, -0.2 },
    { { 0, 0.35, -0.15 }, { 0.21, 0.25, 0.41 }, 0.1 },
    { { 0, 0.1, 0.25 }, { 0.046, 0.046, 0.05 }, 0.3 },
    { { -0.08, -0.605, 0 }, { 0.046, 0.023, 0.05 }, 0.4 },
    { { 0.06, -0.605, 0 }, { 0.023, 0.046, 0.02 }, 0.4 },
    { { 0.3, 0.4, 0.3 }, { 0.12, 0.08, 0.15 }, 0.5 },
  };
  for (itk::ImageRegionIteratorWithIndex<Volume> it(volume, volume->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    double x[3];
    for (int a = 0; a < 3; ++a)
    {
      x[a] = 2.0 * it.GetIndex()[a] / (n - 1) - 1.0;
    }
    double value = 0.02 * std::sin(9 * x[0]) * std::cos(7 * x[1] + 2 * x[2]);
    for (const Ellipsoid & e : parts)
    {
      double q = 0;
      for (int a = 0; a < 3; ++a)
      {
        q += (x[a] - e.c[a]) * (x[a] - e.c[a]) / (e.r[a] * e.r[a]);
      }
      // a soft edge about two voxels wide: band-limited enough to resample cleanly
      const double t = std::min(std::max((1.0 - std::sqrt(q)) * (n - 1) / 4.0 + 0.5, 0.0), 1.0);
      value += e.density * t * t * (3.0 - 2.0 * t);
    }
    it.Set(static_cast<float>(1000.0 * value));
  }
  return volume;
}

using cif_example::Milliseconds;

vtkSmartPointer<vtkTextActor>
Label(const std::string & text)
{
  auto label = vtkSmartPointer<vtkTextActor>::New();
  label->SetInput(text.c_str());
  label->GetTextProperty()->SetFontSize(15);
  label->GetTextProperty()->SetColor(1.0, 1.0, 0.85);
  label->SetPosition(10, 10);
  return label;
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  std::cout << "ObliqueResliceExample: an oblique cubic B-spline slice through a volume with vtkCudaImageReslice "
               "(GPU, or the module's CPU path), checked against VTK's vtkImageReslice, rendered with a volume view "
               "into a PNG"
            << std::endl;
  std::string output = "oblique_reslice.png", source = "128";
  bool        render = true;
  int         positional = 0;
  for (int i = 1; i < argc; ++i)
  {
    if (std::strcmp(argv[i], "--no-render") == 0)
    {
      render = false;
    }
    else if (positional++ == 0)
    {
      output = argv[i];
    }
    else
    {
      source = argv[i];
    }
  }
  try
  {
    // The volume, in ITK: a file, or the phantom.
    Volume::Pointer volume;
    const bool      isNumber = source.find_first_not_of("0123456789") == std::string::npos;
    if (isNumber)
    {
      const int n = std::stoi(source);
      if (n < 16 || n > 1024)
      {
        std::cerr << "phantom edge length must be 16..1024\n";
        return 2;
      }
      volume = MakePhantom(static_cast<unsigned int>(n));
      std::cout << "volume: synthetic phantom " << n << "^3" << std::endl;
    }
    else
    {
      volume = itk::ReadImage<Volume>(source);
      std::cout << "volume: " << source << ", " << volume->GetBufferedRegion().GetSize() << std::endl;
    }

    // To VTK without a copy: the VTK array wraps the ITK buffer.
    vtkSmartPointer<vtkImageData> image = cif::ImageToVTK(volume.GetPointer());
    double                        range[2];
    image->GetScalarRange(range);

    // An oblique plane through the centre: tilted 35 degrees about (1, 1, 0).
    double center[3];
    image->GetCenter(center);
    vtkNew<vtkTransform> plane;
    plane->Translate(center);
    plane->RotateWXYZ(35.0, 1.0, 1.0, 0.0);
    vtkNew<vtkMatrix4x4> axes;
    axes->DeepCopy(plane->GetMatrix());

    vtkNew<vtkCudaImageReslice>         reslice;
    vtkNew<vtkImageBSplineInterpolator> interpolator;
    reslice->SetInputData(image);
    reslice->SetInterpolator(interpolator);
    reslice->PrefilterInputOn(); // the coefficients, on the device when there is one
    reslice->SetResliceAxes(axes);
    reslice->SetOutputDimensionality(2);
    reslice->SetBackgroundLevel(range[0]);
    const double gpuTime = Milliseconds([&] { reslice->Update(); });

    // VTK's own CPU pipeline, for comparison.
    vtkNew<vtkImageBSplineCoefficients> coefficients;
    coefficients->SetInputData(image);
    vtkNew<vtkImageReslice>             reference;
    vtkNew<vtkImageBSplineInterpolator> referenceInterpolator;
    reference->SetInputConnection(coefficients->GetOutputPort());
    reference->SetInterpolator(referenceInterpolator);
    reference->SetResliceAxes(axes);
    reference->SetOutputDimensionality(2);
    reference->SetBackgroundLevel(range[0]);
    const double vtkTime = Milliseconds([&] { reference->Update(); });

    vtkDataArray * a = reslice->GetOutput()->GetPointData()->GetScalars();
    vtkDataArray * b = reference->GetOutput()->GetPointData()->GetScalars();
    double         worst = 0;
    for (vtkIdType i = 0; i < b->GetNumberOfValues(); ++i)
    {
      worst = std::max(worst, std::fabs(a->GetComponent(i, 0) - b->GetComponent(i, 0)));
    }
    const int * e = reslice->GetOutput()->GetExtent();
    std::cout << "slice: " << (e[1] - e[0] + 1) << " x " << (e[3] - e[2] + 1) << ", path "
              << reslice->GetLastExecutionPathAsString() << (cif::IsGPUAvailable() ? "" : " (no GPU here)") << ", "
              << gpuTime << " ms with the prefilter; VTK's two filters " << vtkTime << " ms" << std::endl;
    std::cout << "max |difference| to VTK: " << worst << " (" << worst / (range[1] - range[0]) << " of the range)"
              << std::endl;
    if (worst > 1e-5 * (range[1] - range[0]))
    {
      std::cerr << "the slice differs from VTK's\n";
      return 1;
    }
    if (!render)
    {
      return 0;
    }

    // Left: the slice. Right: the volume, its outline and the slice in its plane.
    vtkNew<vtkLookupTable> gray;
    gray->SetTableRange(range[0], range[0] + 0.6 * (range[1] - range[0]));
    gray->SetSaturationRange(0, 0);
    gray->SetValueRange(0, 1);
    gray->SetRampToLinear();
    gray->Build();
    vtkNew<vtkImageMapToColors> colors;
    colors->SetInputConnection(reslice->GetOutputPort());
    colors->SetLookupTable(gray);
    vtkNew<vtkImageActor> slice;
    slice->GetMapper()->SetInputConnection(colors->GetOutputPort());
    vtkNew<vtkRenderer> left;
    left->SetViewport(0.0, 0.0, 0.5, 1.0);
    left->AddActor(slice);
    left->AddActor2D(
      Label(std::string("oblique slice, vtkCudaImageReslice (") + reslice->GetLastExecutionPathAsString() + ")"));
    left->ResetCamera();
    left->GetActiveCamera()->Zoom(1.35);

    // the slice's frame in its plane (placed by the reslice axes), over the volume cut there
    double sliceBounds[6];
    reslice->GetOutput()->GetBounds(sliceBounds);
    vtkNew<vtkPlaneSource> frame;
    frame->SetOrigin(sliceBounds[0], sliceBounds[2], 0.0);
    frame->SetPoint1(sliceBounds[1], sliceBounds[2], 0.0);
    frame->SetPoint2(sliceBounds[0], sliceBounds[3], 0.0);
    vtkNew<vtkPolyDataMapper> frameMapper;
    frameMapper->SetInputConnection(frame->GetOutputPort());
    vtkNew<vtkActor> slice3D;
    slice3D->SetMapper(frameMapper);
    slice3D->SetUserMatrix(axes);
    slice3D->GetProperty()->SetRepresentationToWireframe();
    slice3D->GetProperty()->SetColor(1.0, 0.85, 0.2);
    slice3D->GetProperty()->SetLineWidth(2.0);
    // faint tissue, bright inclusions, a thin shell; the near half cut away at the
    // slice's plane, so that the slice shows as the cut face
    const double                 r0 = range[0], span = range[1] - range[0];
    vtkNew<vtkPiecewiseFunction> opacity;
    opacity->AddPoint(r0, 0.0);
    opacity->AddPoint(r0 + 0.12 * span, 0.0);
    opacity->AddPoint(r0 + 0.2 * span, 0.004);
    opacity->AddPoint(r0 + 0.27 * span, 0.3);
    opacity->AddPoint(r0 + 0.7 * span, 0.5);
    opacity->AddPoint(r0 + 0.85 * span, 0.03);
    opacity->AddPoint(range[1], 0.04);
    vtkNew<vtkColorTransferFunction> color;
    color->AddRGBPoint(r0, 0.0, 0.0, 0.0);
    color->AddRGBPoint(r0 + 0.2 * span, 0.55, 0.6, 0.75);
    color->AddRGBPoint(r0 + 0.3 * span, 0.95, 0.55, 0.2);
    color->AddRGBPoint(r0 + 0.7 * span, 1.0, 0.9, 0.4);
    color->AddRGBPoint(range[1], 0.9, 0.9, 0.95);
    vtkNew<vtkVolumeProperty> property;
    property->SetScalarOpacity(opacity);
    property->SetColor(color);
    property->SetInterpolationTypeToLinear();
    vtkNew<vtkGPUVolumeRayCastMapper> mapper; // OpenGL ray casting (Mesa's llvmpipe under Xvfb)
    mapper->SetInputData(image);
    vtkNew<vtkPlane> cut;
    cut->SetOrigin(center);
    cut->SetNormal(-axes->GetElement(0, 2), -axes->GetElement(1, 2), -axes->GetElement(2, 2));
    mapper->AddClippingPlane(cut);
    vtkNew<vtkVolume> volumeActor;
    volumeActor->SetMapper(mapper);
    volumeActor->SetProperty(property);
    vtkNew<vtkOutlineSource> outline;
    outline->SetBounds(image->GetBounds());
    vtkNew<vtkPolyDataMapper> outlineMapper;
    outlineMapper->SetInputConnection(outline->GetOutputPort());
    vtkNew<vtkActor> outlineActor;
    outlineActor->SetMapper(outlineMapper);
    outlineActor->GetProperty()->SetColor(0.6, 0.7, 0.9);
    vtkNew<vtkRenderer> right;
    right->SetViewport(0.5, 0.0, 1.0, 1.0);
    right->SetBackground(0.08, 0.09, 0.12);
    right->AddVolume(volumeActor);
    right->AddActor(slice3D);
    right->AddActor(outlineActor);
    right->AddActor2D(Label("volume cut at the slice's plane (frame)"));
    right->GetActiveCamera()->SetPosition(1, -2.2, 1.2);
    right->GetActiveCamera()->SetViewUp(0, 0, 1);
    right->ResetCamera();
    right->GetActiveCamera()->Zoom(1.25);

    vtkNew<vtkRenderWindow> window;
    window->SetOffScreenRendering(1);
    window->SetSize(960, 480);
    window->AddRenderer(left);
    window->AddRenderer(right);
    window->Render();
    vtkNew<vtkWindowToImageFilter> capture;
    capture->SetInput(window);
    capture->ReadFrontBufferOff();
    vtkNew<vtkPNGWriter> writer;
    writer->SetFileName(output.c_str());
    writer->SetInputConnection(capture->GetOutputPort());
    writer->Write();
    std::cout << "wrote " << output << std::endl;
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
