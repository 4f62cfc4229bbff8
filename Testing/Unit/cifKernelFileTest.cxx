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
// Custom kernel files: good files parse to their numbers; every kind of bad file is
// refused with a message naming the line and the problem.
#include "cifKernelFile.h"
#include "cifTestHelpers.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

namespace
{
using cif_test::FreshSeed;

/** Expects ParseKernelText to refuse \a text at \a line with a message containing \a words. */
void
ExpectRefused(const std::string & text, int line, const std::string & words)
{
  try
  {
    cif::ParseKernelText(text, "k.txt");
    ADD_FAILURE() << "accepted:\n" << text;
  }
  catch (const cif::KernelFileError & e)
  {
    EXPECT_EQ(e.Line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find("k.txt:" + std::to_string(line) + ": "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(KernelFile, GoodFileParsesToItsNumbers)
{
  const std::uint32_t seed = FreshSeed();
  SCOPED_TRACE(seed);
  std::mt19937                           rng(seed);
  std::uniform_real_distribution<double> u(-100, 100);
  const int                              side = 1 + 2 * int(rng() % 8);
  std::vector<double>                    values;
  std::ostringstream                     text;
  text.precision(17);
  text << "# a comment line\n\n";
  for (int y = 0; y < side; ++y)
  {
    for (int x = 0; x < side; ++x)
    {
      values.push_back(u(rng));
      text << values.back() << (x % 2 ? ", " : " \t");
    }
    text << (y % 2 ? "\r\n" : "\n") << (y == 0 ? "   # indented comment\n" : "");
  }
  const std::string path = ::testing::TempDir() + "/cif_kernel_" + std::to_string(seed) + ".txt";
  std::ofstream(path) << text.str();
  const auto k = cif::ReadKernelFile(path);
  std::remove(path.c_str());
  ASSERT_EQ(k.size[0], side);
  ASSERT_EQ(k.size[1], side);
  ASSERT_EQ(k.weights.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    EXPECT_EQ(k.weights[i], values[i]);
  }
}

TEST(KernelFile, BadFilesNameTheLineAndTheProblem)
{
  ExpectRefused("1 2 3\n4 5 6\n7 x 9\n", 3, "\"x\" is not a number");
  ExpectRefused("1 2 3\n4 5 6.5.1\n7 8 9\n", 2, "not a number");
  ExpectRefused("1 2 3\n4 1e 6\n7 8 9\n", 2, "\"1e\" is not a number");
  ExpectRefused("# c\n1 2 3\n4 5\n7 8 9\n", 3, "row has 2 numbers, the first row has 3");
  ExpectRefused("1 2 3\n4 5 6\n", 2, "must be square");
  ExpectRefused("1 2 3\n4 5 6\n7 8 9\n1 2 3\n", 4, "must be square");
  ExpectRefused("\n1 2\n3 4\n", 2, "even");
  ExpectRefused("1 nan 3\n4 5 6\n7 8 9\n", 1, "not a finite number");
  ExpectRefused("1 2 3\n4 inf 6\n7 8 9\n", 2, "not a finite number");
  ExpectRefused("1 2 3\n4 1e999 6\n7 8 9\n", 2, "not a finite number");
  ExpectRefused("", 0, "no kernel rows");
  ExpectRefused("# only a comment\n\n", 0, "no kernel rows");
  std::string wide;
  for (int i = 0; i < 129; ++i)
  {
    wide += "1 ";
  }
  ExpectRefused(wide + "\n", 1, "largest kernel side is 127");
}

TEST(KernelFile, MissingFileIsRefused)
{
  try
  {
    cif::ReadKernelFile("/nonexistent/kernel.txt");
    FAIL();
  }
  catch (const cif::KernelFileError & e)
  {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kernel.txt:0: cannot open"), std::string::npos) << e.what();
  }
}
} // namespace
