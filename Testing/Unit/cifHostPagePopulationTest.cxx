// A fresh host output's pages mapped ahead of the download (cifHostPagePopulation.h,
// itkCudaHostImportImageContainer.h): every page resident afterwards where the system
// supports it, no write lost to a writer that comes first, the container's large
// first-update buffers populated and small ones left alone. CPU only.
#include "cifHostPagePopulation.h"
#include "cifHostWorkArea.h"
#include "itkCudaHostImportImageContainer.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#if defined(__linux__)
#  include <sys/mman.h>
#  include <unistd.h>
#endif

namespace
{
/** Pages of [memory, memory + bytes) not resident (mincore); -1 where unknown. */
long
PagesNotResident(const void * memory, std::size_t bytes)
{
#if defined(__linux__)
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(memory) / page * page;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(memory) + bytes;
  std::vector<unsigned char> resident((last - first + page - 1) / page);
  if (mincore(reinterpret_cast<void *>(first), last - first, resident.data()) != 0)
  {
    return -1;
  }
  long missing = 0;
  for (const unsigned char r : resident)
  {
    missing += (r & 1) ? 0 : 1;
  }
  return missing;
#else
  (void)memory, (void)bytes;
  return -1;
#endif
}

std::uint32_t
FreshSeed()
{
  return std::random_device{}();
}
} // namespace

TEST(HostPagePopulation, EveryPageIsMappedAndNoWriteIsLost)
{
  if (!cif::HostPagePopulation::Supported())
  {
    GTEST_SKIP() << "this system does not map pages ahead (madvise MADV_POPULATE_WRITE): the first writes map them";
  }
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937       rng(seed);
  const std::size_t  count = (std::size_t(200) << 20) / sizeof(std::uint64_t) + rng() % 100000; // ~200 MiB
  auto               area = cif::AllocateHostWorkArea<std::uint64_t>(count);
  ASSERT_GT(PagesNotResident(area.get(), count * sizeof(std::uint64_t)), 0) << "fresh memory already mapped";
  // A writer racing the population from both ends: its values must all be there.
  std::vector<std::size_t> written;
  for (int k = 0; k < 4096; ++k)
  {
    written.push_back(static_cast<std::size_t>(rng() % count));
  }
  {
    cif::HostPagePopulation population(area.get(), count * sizeof(std::uint64_t));
    std::thread             writer([&] {
      for (std::size_t i = 0; i < written.size(); ++i)
      {
        const std::size_t at = i % 2 == 0 ? written[i] : count - 1 - written[i];
        area[at] = 0x9E3779B97F4A7C15ull ^ at;
      }
    });
    writer.join();
    population.Wait();
  }
  EXPECT_EQ(PagesNotResident(area.get(), count * sizeof(std::uint64_t)), 0);
  for (std::size_t i = 0; i < written.size(); ++i)
  {
    const std::size_t at = i % 2 == 0 ? written[i] : count - 1 - written[i];
    ASSERT_EQ(area[at], 0x9E3779B97F4A7C15ull ^ at) << "a write before the population was lost at " << at;
  }
}

TEST(HostPagePopulation, ContainerPopulatesLargeFirstUpdateBuffersOnly)
{
  if (!cif::HostPagePopulation::Supported())
  {
    GTEST_SKIP() << "this system does not map pages ahead (madvise MADV_POPULATE_WRITE)";
  }
  using Container = itk::CudaHostImportImageContainer<itk::SizeValueType, float>;
  const std::size_t minimum = cif::GetHostPagePopulationMinimumBytes();
  ASSERT_EQ(minimum, std::size_t(64) << 20) << "the documented default (CIF_POPULATE_OUTPUT_MIN unset)";
  cif::SetHostPagePopulationMinimumBytes(std::size_t(16) << 20);
  for (const std::size_t mib : { 8, 40 })
  {
    auto              container = Container::New();
    const std::size_t elements = (mib << 20) / sizeof(float);
    container->Reserve(elements);
    float * data = container->GetBufferPointer();
    data[elements - 1] = 1.5f; // a write as the population runs
    // The population runs on its own threads until the buffer goes: residency is
    // read until every page is there (at most 10 s; 40 MiB takes milliseconds).
    long missing = PagesNotResident(data, elements * sizeof(float));
    for (int wait = 0; wait < 1000 && missing > 0 && mib >= 16; ++wait)
    {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      missing = PagesNotResident(data, elements * sizeof(float));
    }
    if (mib < 16)
    {
      EXPECT_GT(missing, 0) << "an 8 MiB buffer was populated below the 16 MiB minimum";
    }
    else
    {
      EXPECT_EQ(missing, 0) << "a 40 MiB buffer was not populated";
    }
    EXPECT_EQ(data[elements - 1], 1.5f);
    container->Initialize(); // frees after the population's threads are done
  }
  cif::SetHostPagePopulationMinimumBytes(minimum);
}
