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
#ifndef cifProgressTestSupport_h
#define cifProgressTestSupport_h

// ProgressEvent and AbortGenerateData as 3D Slicer's CLI modules use them: an
// observer records the progress of every event, another asks for an abort at a
// given event. What every filter of the module promises (itk::FilterStageProgress):
// the progress rises from 0 to exactly 1 over its stages, and an abort stops it at
// once with itk::ProcessAborted and no output pixels left.
#include "cifTestHelpers.h"
#include "itkImageBase.h"
#include "itkProcessObject.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace cif_test
{
/** Records GetProgress() at every ProgressEvent of \a filter from now on. */
inline std::shared_ptr<std::vector<float>>
RecordProgress(itk::ProcessObject * filter)
{
  auto values = std::make_shared<std::vector<float>>();
  filter->AddObserver(itk::ProgressEvent(),
                      [filter, values](const itk::EventObject &) { values->push_back(filter->GetProgress()); });
  return values;
}

/** At least one event per stage and one at the start, rising strictly from 0 to
 * exactly 1. */
inline void
ExpectProgressRisesToOne(const std::vector<float> & progress, unsigned int stages)
{
  ASSERT_GE(progress.size(), stages + 1u) << "fewer progress events than stages (" << stages << ") plus the start";
  EXPECT_EQ(progress.front(), 0.0f);
  for (std::size_t k = 1; k < progress.size(); ++k)
  {
    EXPECT_GT(progress[k], progress[k - 1]) << "event " << k;
  }
  EXPECT_EQ(progress.back(), 1.0f);
}

/** Sets \a filter's AbortGenerateData at its ProgressEvent number \a event (0: the
 * first), as a cancel button would. */
inline void
AbortAtEvent(itk::ProcessObject * filter, unsigned int event)
{
  auto seen = std::make_shared<unsigned int>(0);
  filter->AddObserver(itk::ProgressEvent(), [filter, seen, event](const itk::EventObject &) {
    if ((*seen)++ == event)
    {
      filter->AbortGenerateDataOn();
    }
  });
}

/** Every output of \a filter is an image without pixels. */
template <unsigned int D>
void
ExpectNoOutputPixels(itk::ProcessObject * filter)
{
  const auto outputs = filter->GetOutputs();
  ASSERT_FALSE(outputs.empty());
  for (const auto & output : outputs)
  {
    const auto * image = dynamic_cast<const itk::ImageBase<D> *>(output.GetPointer());
    ASSERT_NE(image, nullptr);
    EXPECT_EQ(image->GetBufferedRegion().GetNumberOfPixels(), 0u) << "an aborted filter left pixels behind";
  }
}

/** For an abort at the first event and at event \a midway of a new filter from
 * \a makeFilter() each: Update() throws ProcessAborted, no event follows the
 * request (the filter stops between stages, not at the end), and no output pixels
 * are left. */
template <unsigned int D, typename TMakeFilter>
void
ExpectAbortLeavesNoOutput(TMakeFilter && makeFilter, unsigned int midway)
{
  for (unsigned int event : { 0u, midway })
  {
    SCOPED_TRACE("abort at progress event " + std::to_string(event));
    auto filter = makeFilter();
    auto progress = RecordProgress(filter.GetPointer());
    AbortAtEvent(filter.GetPointer(), event);
    EXPECT_THROW(filter->Update(), itk::ProcessAborted);
    EXPECT_EQ(progress->size(), event + 1u) << "progress reported after the abort request";
    ASSERT_FALSE(progress->empty());
    EXPECT_LT(progress->back(), 1.0f);
    ExpectNoOutputPixels<D>(filter.GetPointer());
  }
}

/** The same bits in two images' buffers. */
template <typename TImage>
void
ExpectSameBits(const TImage * a, const TImage * b)
{
  ASSERT_EQ(a->GetBufferedRegion(), b->GetBufferedRegion());
  const std::size_t bytes = a->GetPixelContainer()->Size() * sizeof(typename TImage::InternalPixelType);
  ASSERT_EQ(a->GetPixelContainer()->Size(), b->GetPixelContainer()->Size());
  EXPECT_EQ(std::memcmp(a->GetBufferPointer(), b->GetBufferPointer(), bytes), 0) << "the buffers differ";
}
} // namespace cif_test

#endif
