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
#ifndef cifStreamingWriterTestSupport_h
#define cifStreamingWriterTestSupport_h

// A filter's output written by a streaming MetaImage writer and read back, for the
// streaming tests (the binaries that include this link ITKIOMeta).
// The writer and reader are given their image IO instead of using ITK's generated
// factory list, which this build's ITK components do not produce.
#undef ITK_IO_FACTORY_REGISTER_MANAGER
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkMetaImageIO.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace cif_test
{
/** \a image (a filter's output) written to a temporary MetaImage file in
 * \a divisions pieces, each asked of the filter as its own requested region, then
 * read back whole (the file is removed). \a name makes the file name unique. */
template <typename TImage>
typename TImage::Pointer
WriteStreamedAndReadBack(const TImage * image, unsigned int divisions, const std::string & name)
{
  const std::string file = testing::TempDir() + "cif_streamed_" + name + ".mha";
  auto              writer = itk::ImageFileWriter<TImage>::New();
  writer->SetInput(image);
  writer->SetFileName(file);
  writer->SetImageIO(itk::MetaImageIO::New());
  writer->SetNumberOfStreamDivisions(divisions);
  writer->Update();
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(file);
  reader->SetImageIO(itk::MetaImageIO::New());
  reader->Update();
  typename TImage::Pointer read = reader->GetOutput();
  read->DisconnectPipeline();
  std::remove(file.c_str());
  return read;
}
} // namespace cif_test

#endif
