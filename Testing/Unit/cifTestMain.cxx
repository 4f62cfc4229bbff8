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
