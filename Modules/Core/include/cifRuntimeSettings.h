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
#ifndef cifRuntimeSettings_h
#define cifRuntimeSettings_h

#include "CudaImageFiltersExport.h"

#include <cstddef>
#include <functional>
#include <string>

/** \file cifRuntimeSettings.h
 * The library's runtime settings: every CIF_* environment variable it reads, read
 * once, in one place (the table in Modules/Core/README.md). The Slicer CLI modules
 * and other hosts have no other way to tune the library, so these exist; a
 * function call (SetDeviceMemoryLimit, SetPinnedHostLimit, SetPinnedStagingSettings,
 * ...) takes precedence over the value here. A value that does not parse is reported
 * once on stderr and the default is used, so a typo cannot change a setting without
 * a word. Plain C++: no ITK or CUDA header, so .cu files read it too. */
namespace cif
{
/** One field per variable, holding the value in effect (the default where the
 * variable is unset, empty or malformed), after the clamps noted. Only
 * ReadRuntimeSettings fills in the two defaults that depend on the host
 * (stagingThreads, pinnedHostLimit: 0 in a default-constructed one). */
struct RuntimeSettings
{
  /** CIF_STAGING_CHUNK_KIB: bytes of one pinned staging chunk; 2048 KiB, at least 64. */
  std::size_t stagingChunkBytes = std::size_t{ 2048 } << 10;
  /** CIF_STAGING_THREADS: host threads per staged copy; min(12, three quarters of the
   * cores), at least 0 (0: every copy direct). */
  int stagingThreads = 0;
  /** CIF_STAGING_RINGS: staged copies at once per device; 4, at least 1. */
  int stagingRings = 4;
  /** CIF_STAGING_DIRECT_BELOW_KIB: copies below this go direct; 1024 KiB, at least 0. */
  std::size_t stagingDirectBelowBytes = std::size_t{ 1024 } << 10;
  /** CIF_PINNED_HOST_LIMIT: cap on the pinned host memory held; a quarter of physical
   * memory, at most 16 GiB (0: no pinned outputs). */
  std::size_t pinnedHostLimit = 0;
  /** CIF_PINNED_OUTPUT_MIN: smallest host output pinned from its second update; 16 MiB. */
  std::size_t pinnedOutputMinimumBytes = std::size_t{ 16 } << 20;
  /** CIF_REGISTER_INPUTS_AFTER: staged uploads of a host input before it is
   * registered in place; 8 (0: never): registering costs 5 to 48 staged uploads'
   * excess (itkCudaHostInputRegistration.h), so a short loop never pays it. */
  unsigned registerInputsAfter = 8;
  /** CIF_DEVICE_MEMORY_LIMIT: cap on one filter job's device memory; 0 (none). */
  std::size_t deviceMemoryLimit = 0;
  /** CIF_PREFILTER_MAX_LANES: the prefilter's widest tile, 32, 16 or 8 lines; 32
   * (a value is rounded down to one of them, below 16 to 8). */
  int prefilterMaxLanes = 32;
};

/** The settings of this process: the environment read at the first call (thread
 * safe), never again. */
const CudaImageFilters_EXPORT RuntimeSettings &
GetRuntimeSettings();

/** The settings \a lookup gives (a variable's value, or nullptr where it is unset):
 * GetRuntimeSettings() is ReadRuntimeSettings(std::getenv) once. A malformed value
 * is reported on stderr (once per call) and its default used. For tests. */
CudaImageFilters_EXPORT RuntimeSettings
ReadRuntimeSettings(const std::function<const char *(const char *)> & lookup);

/** \a text as a byte count ("4194304", "512M", "16 GiB", "1.5G": K, M, G, T, KB ... TB,
 * KiB ... TiB, all powers of 1024, any case); false where it is not one. */
CudaImageFilters_EXPORT bool
ParseByteCount(const std::string & text, std::size_t & bytes);
} // namespace cif

#endif
