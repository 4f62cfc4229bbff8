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
// The registration of host inputs uploaded again and again
// (itkCudaHostInputRegistration.h). CPU tests replace the driver's page-locking
// with a recorder and check the order of events against the container's own
// allocations and frees (a pixel type whose operator new[]/delete[] log them): a
// registration is made at the (N+1)-th upload of an owned buffer, and ended before
// the container frees it. The convolution's tests register a real input on the
// device (itkConvolutionGPUImageFilterTest.cxx).
#include "cifPinnedHostMemory.h"
#include "itkCudaHostInputRegistration.h"
#include "itkImportImageContainer.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <new>
#include <set>
#include <vector>

namespace
{
enum class What
{
  Allocated,
  Freed,
  Locked,
  Unlocked
};

struct Event
{
  What         what;
  const void * where;
};

std::vector<Event>     g_Events;
std::set<const void *> g_Locked;
std::set<const void *> g_PinnedElsewhere;

/** A pixel whose arrays log where they are allocated and freed: ImportImageContainer
 * allocates with new[] and frees with delete[]. */
struct TracedFloat
{
  float value;

  static void *
  operator new[](std::size_t bytes)
  {
    void * memory = ::operator new[](bytes);
    g_Events.push_back({ What::Allocated, memory });
    return memory;
  }
  static void
  operator delete[](void * memory) noexcept
  {
    g_Events.push_back({ What::Freed, memory });
    ::operator delete[](memory);
  }
};

using Container = itk::ImportImageContainer<itk::SizeValueType, TracedFloat>;

bool
RecordLock(void * memory, std::size_t)
{
  g_Events.push_back({ What::Locked, memory });
  g_Locked.insert(memory);
  return true;
}
void
RecordUnlock(void * memory)
{
  g_Events.push_back({ What::Unlocked, memory });
  g_Locked.erase(memory);
}
bool
IsLocked(const void * memory)
{
  return g_Locked.count(memory) != 0 || g_PinnedElsewhere.count(memory) != 0;
}

const cif::detail::PageLocking g_Recorder{ &RecordLock, &RecordUnlock, &IsLocked };

constexpr itk::SizeValueType kElements = cif::kSmallestRegisteredHostInput / sizeof(TracedFloat);

std::size_t
Count(What what, const void * where)
{
  std::size_t n = 0;
  for (const Event & e : g_Events)
  {
    n += e.what == what && e.where == where;
  }
  return n;
}

/** Index of the first event \a what at \a where, or -1. */
long
FirstIndex(What what, const void * where)
{
  for (std::size_t i = 0; i < g_Events.size(); ++i)
  {
    if (g_Events[i].what == what && g_Events[i].where == where)
    {
      return static_cast<long>(i);
    }
  }
  return -1;
}

class HostInputRegistration : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    g_Events.clear();
    g_Locked.clear();
    g_PinnedElsewhere.clear();
    m_UploadsBefore = cif::GetHostInputUploadsBeforeRegistration();
    cif::SetHostInputUploadsBeforeRegistration(2);
    cif::detail::SetPageLockingForTesting(&g_Recorder);
  }
  void
  TearDown() override
  {
    cif::ReleaseHostInputRegistrations();
    cif::detail::SetPageLockingForTesting(nullptr);
    cif::SetHostInputUploadsBeforeRegistration(m_UploadsBefore);
  }

  static Container::Pointer
  OwnedContainer(itk::SizeValueType elements = kElements)
  {
    auto c = Container::New();
    c->Reserve(elements);
    return c;
  }

  unsigned m_UploadsBefore = 2;
};

TEST_F(HostInputRegistration, RegistersAtTheThirdUploadOfTheSameBufferOnce)
{
  auto         c = OwnedContainer();
  const void * buffer = c->GetImportPointer();
  const auto   before = cif::GetHostInputRegistrationStatistics();
  itk::NoteHostInputUpload(c.GetPointer());
  itk::NoteHostInputUpload(c.GetPointer());
  EXPECT_EQ(Count(What::Locked, buffer), 0u) << "two uploads go through the staging rings";
  itk::NoteHostInputUpload(c.GetPointer());
  EXPECT_EQ(Count(What::Locked, buffer), 1u) << "the third registers the buffer";
  itk::NoteHostInputUpload(c.GetPointer());
  itk::NoteHostInputUpload(c.GetPointer());
  EXPECT_EQ(Count(What::Locked, buffer), 1u);
  const auto after = cif::GetHostInputRegistrationStatistics();
  EXPECT_EQ(after.registrations, before.registrations + 1);
  EXPECT_EQ(after.registeredBytes, before.registeredBytes + kElements * sizeof(TracedFloat));
}

TEST_F(HostInputRegistration, EndsBeforeTheContainerFreesItsBuffer)
{
  auto         c = OwnedContainer();
  const void * buffer = c->GetImportPointer();
  const auto   before = cif::GetHostInputRegistrationStatistics();
  for (int i = 0; i < 3; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  ASSERT_EQ(Count(What::Locked, buffer), 1u);
  c = nullptr; // the last reference: DeleteEvent, then the destructor's delete[]
  const long unlocked = FirstIndex(What::Unlocked, buffer);
  const long freed = FirstIndex(What::Freed, buffer);
  ASSERT_GE(unlocked, 0) << "never unregistered";
  ASSERT_GE(freed, 0);
  EXPECT_LT(unlocked, freed) << "the buffer was freed while still registered";
  EXPECT_EQ(cif::GetHostInputRegistrationStatistics().registeredBytes, before.registeredBytes);
}

TEST_F(HostInputRegistration, AReplacedBufferIsUnregisteredAndCountedAgain)
{
  auto         c = OwnedContainer();
  const void * first = c->GetImportPointer();
  for (int i = 0; i < 3; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  ASSERT_EQ(Count(What::Locked, first), 1u);

  c->Reserve(kElements); // the same size: the same buffer, Modified() all the same
  EXPECT_EQ(Count(What::Unlocked, first), 0u) << "an unchanged buffer keeps its registration";

  c->Reserve(2 * kElements); // grows: a new buffer, the old one freed
  const void * second = c->GetImportPointer();
  ASSERT_NE(second, first);
  EXPECT_EQ(Count(What::Unlocked, first), 1u);
  EXPECT_EQ(g_Locked.count(first), 0u);
  for (int i = 0; i < 2; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, second), 0u) << "the new buffer's uploads count from zero";
  itk::NoteHostInputUpload(c.GetPointer());
  EXPECT_EQ(Count(What::Locked, second), 1u);

  c->Initialize(); // frees the buffer
  EXPECT_EQ(Count(What::Unlocked, second), 1u);
  EXPECT_TRUE(g_Locked.empty());
}

TEST_F(HostInputRegistration, BuffersTheContainerDoesNotOwnAreNeverRegistered)
{
  std::vector<TracedFloat> callers(kElements);
  auto                     imported = Container::New();
  imported->SetImportPointer(callers.data(), kElements, false);
  for (int i = 0; i < 5; ++i)
  {
    itk::NoteHostInputUpload(imported.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, callers.data()), 0u) << "the caller may free it behind the container's back";

  auto         c = OwnedContainer();
  const void * buffer = c->GetImportPointer();
  for (int i = 0; i < 3; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  ASSERT_EQ(Count(What::Locked, buffer), 1u);
  c->SetContainerManageMemory(false); // now someone else's to free
  EXPECT_EQ(Count(What::Unlocked, buffer), 1u);
  c->SetContainerManageMemory(true);
}

TEST_F(HostInputRegistration, SmallBuffersAndACountOfZeroAreLeftAlone)
{
  auto small = OwnedContainer(kElements / 4);
  for (int i = 0; i < 5; ++i)
  {
    itk::NoteHostInputUpload(small.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, small->GetImportPointer()), 0u);

  cif::SetHostInputUploadsBeforeRegistration(0);
  auto c = OwnedContainer();
  for (int i = 0; i < 5; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, c->GetImportPointer()), 0u);
}

TEST_F(HostInputRegistration, PinnedBuffersAndThoseOverTheCapAreLeftAlone)
{
  auto c = OwnedContainer();
  g_PinnedElsewhere.insert(c->GetImportPointer());
  for (int i = 0; i < 5; ++i)
  {
    itk::NoteHostInputUpload(c.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, c->GetImportPointer()), 0u);
  const void * pinned = c->GetImportPointer();
  c = nullptr;
  EXPECT_EQ(Count(What::Unlocked, pinned), 0u) << "not ours to unregister";

  const std::size_t limit = cif::GetPinnedHostLimit();
  cif::SetPinnedHostLimit(cif::GetPinnedHostBytes() + kElements * sizeof(TracedFloat) / 2);
  auto d = OwnedContainer();
  for (int i = 0; i < 5; ++i)
  {
    itk::NoteHostInputUpload(d.GetPointer());
  }
  cif::SetPinnedHostLimit(limit);
  EXPECT_EQ(Count(What::Locked, d->GetImportPointer()), 0u) << "past the pinned-memory cap";
}

TEST_F(HostInputRegistration, ReleaseEndsEveryRegistration)
{
  auto a = OwnedContainer(), b = OwnedContainer();
  for (int i = 0; i < 3; ++i)
  {
    itk::NoteHostInputUpload(a.GetPointer());
    itk::NoteHostInputUpload(b.GetPointer());
  }
  ASSERT_EQ(g_Locked.size(), 2u);
  cif::ReleaseHostInputRegistrations();
  EXPECT_TRUE(g_Locked.empty());
  for (int i = 0; i < 3; ++i)
  {
    itk::NoteHostInputUpload(a.GetPointer());
  }
  EXPECT_EQ(Count(What::Locked, a->GetImportPointer()), 2u) << "counted from zero again, then registered again";
}
} // namespace
