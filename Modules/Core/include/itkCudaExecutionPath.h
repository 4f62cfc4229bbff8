#ifndef itkCudaExecutionPath_h
#define itkCudaExecutionPath_h

namespace itk
{
/** Which code produced a module filter's last output. */
enum class CudaExecutionPath
{
  None, ///< not run yet
  GPU,  ///< the CUDA kernels
  CPU,  ///< the module's CPU path (the same math, ITK's threader)
  ITK   ///< the ITK superclass, for what the module does not handle
};

inline const char *
ToString(CudaExecutionPath path)
{
  switch (path)
  {
    case CudaExecutionPath::GPU:
      return "GPU";
    case CudaExecutionPath::CPU:
      return "CPU";
    case CudaExecutionPath::ITK:
      return "ITK";
    default:
      return "None";
  }
}
} // namespace itk

#endif
