// The no-CUDA twin of cifContextCreation.cu: no context to create.
#include "cifContextCreation.h"

namespace cif_bench
{
double
CreateContextMs()
{
  return -1;
}
} // namespace cif_bench
