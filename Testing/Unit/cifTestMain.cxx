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
// The main() of every test binary: GoogleTest's, with ITK's thread pool parked for the
// exit (cifITKPoolParking.h). ctest runs each test in a process of its own, so a test
// run has hundreds of exits; ITK 5.2 aborts some of them otherwise.
#include "cifITKPoolParking.h"

#include <gtest/gtest.h>

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit;
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
