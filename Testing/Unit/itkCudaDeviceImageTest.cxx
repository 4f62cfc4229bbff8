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
// CudaDeviceImage: an itk::Image on the host, with a device copy synchronised lazily.
#include "cifDeviceBuffer.h"
#include "cifTestHelpers.h"
#include "itkCudaDeviceImage.h"

namespace
{
using Image = itk::CudaDeviceImage<float, 3>;
using Residency = itk::CudaDeviceImageDataManager::Residency;

TEST(CudaDeviceImage, BehavesAsAnImageOnTheHost)
{
  auto image =
    cif_test::MakeImage<Image>({ { 5, 6, 7 } }, { { 1, 2, 3 } }, cif_test::Content::Random, cif_test::FreshSeed());
  EXPECT_EQ(image->GetDataManager()->GetResidency(), Residency::HostOnly);
  image->SetPixel({ { 2, 3, 4 } }, 42.5f);
  EXPECT_EQ(image->GetPixel({ { 2, 3, 4 } }), 42.5f);
  EXPECT_EQ(image->GetBufferBytes(), 5u * 6u * 7u * sizeof(float));

  auto grafted = Image::New();
  grafted->Graft(image);
  EXPECT_EQ(grafted->GetDataManager(), image->GetDataManager());
  EXPECT_EQ(grafted->GetPixel({ { 2, 3, 4 } }), 42.5f);
}

/** Every host write path bumps the data manager's MTime (what the resampler's kept
 * texture compares): writes through the non-const accessors need not touch the
 * image's own MTime. Reads through a const image do not. */
TEST(CudaDeviceImage, HostWritesBumpTheDataManagersTime)
{
  auto image = cif_test::MakeImage<Image>({ { 5, 6, 7 } }, {}, cif_test::Content::Random, cif_test::FreshSeed());
  const itk::ModifiedTimeType before = image->GetDataManager()->GetMTime();
  const Image *               constImage = image.GetPointer();
  EXPECT_NE(constImage->GetBufferPointer(), nullptr);
  EXPECT_EQ(image->GetDataManager()->GetMTime(), before) << "a const read counted as a write";
  image->GetBufferPointer()[0] = 3.0f;
  const itk::ModifiedTimeType afterWrite = image->GetDataManager()->GetMTime();
  EXPECT_GT(afterWrite, before);
  image->SetPixel({ { 1, 1, 1 } }, 4.0f);
  EXPECT_GT(image->GetDataManager()->GetMTime(), afterWrite);
}

TEST(CudaDeviceImage, SynchronisesLazily)
{
  CIF_REQUIRE_GPU();
  auto image = cif_test::MakeImage<Image>({ { 32, 16, 8 } }, {}, cif_test::Content::Random, cif_test::FreshSeed());
  const std::vector<float> original(image->GetBufferPointer(), image->GetBufferPointer() + 32 * 16 * 8);
  cif::TransferCounters::Reset();

  image->GetDeviceBufferForReading();
  image->GetDeviceBufferForReading();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 1u) << "a current device copy was uploaded again";
  EXPECT_EQ(image->GetDataManager()->GetResidency(), Residency::Both);

  // "Device work": the host copy becomes stale and is downloaded on first host access.
  const itk::ModifiedTimeType beforeDeviceWrite = image->GetDataManager()->GetMTime();
  image->GetDeviceBufferForWriting(true);
  EXPECT_EQ(image->GetDataManager()->GetResidency(), Residency::DeviceOnly);
  EXPECT_GT(image->GetDataManager()->GetMTime(), beforeDeviceWrite) << "a device write left no trace";
  const Image * constImage = image.GetPointer();
  EXPECT_EQ(std::vector<float>(constImage->GetBufferPointer(), constImage->GetBufferPointer() + original.size()),
            original);
  EXPECT_EQ(cif::TransferCounters::Get().downloads, 1u);
  EXPECT_EQ(image->GetDataManager()->GetResidency(), Residency::Both);

  // A host write makes the device copy stale: the next device read uploads again.
  image->GetBufferPointer()[0] = -1.0f;
  EXPECT_EQ(image->GetDataManager()->GetResidency(), Residency::HostOnly);
  image->GetDeviceBufferForReading();
  EXPECT_EQ(cif::TransferCounters::Get().uploads, 2u);

  // Initialize() drops the device copy and the image starts over on the host.
  image->Initialize();
  EXPECT_EQ(image->GetDataManager()->GetDeviceBufferBytes(), 0u);
}
} // namespace
