# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# The GPU architectures the kernels are compiled for (CMAKE_CUDA_ARCHITECTURES), when
# the user names none, on the command line or in CMake's CUDAARCHS environment variable.
#
# CIF_DEFAULT_CUDA_ARCHITECTURES covers the GPUs in use: machine code for Turing
# (sm_75: RTX 20xx, T4), Ampere (sm_80: A100; sm_86: RTX 30xx, A40), Ada (sm_89:
# RTX 40xx, L4, L40) and Hopper (sm_90: H100, H200), plus compute_90 PTX, which newer
# GPUs (Blackwell) compile when the library loads. README.md states this list and
# .ci/run checks that a fresh configure chooses it.
#
# With a GPU visible at configure time (nvidia-smi answers), "native" instead: machine
# code for that GPU alone, the fastest build; such a build gives other GPUs the CPU
# path, with a message naming the architectures to rebuild for.
set(CIF_DEFAULT_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(cif_architectures "${CIF_DEFAULT_CUDA_ARCHITECTURES}")
  find_program(CIF_NVIDIA_SMI nvidia-smi)
  mark_as_advanced(CIF_NVIDIA_SMI)
  if(CIF_NVIDIA_SMI)
    execute_process(COMMAND ${CIF_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE cif_smi_result OUTPUT_VARIABLE cif_smi_output ERROR_QUIET TIMEOUT 20)
    if(cif_smi_result EQUAL 0 AND cif_smi_output MATCHES "[0-9]+\\.[0-9]+")
      set(cif_architectures native)
      string(STRIP "${cif_smi_output}" cif_smi_output)
      string(REPLACE "\n" ", " cif_smi_output "${cif_smi_output}")
      message(STATUS "CudaImageFilters: GPU visible (compute capability ${cif_smi_output}): "
                     "CMAKE_CUDA_ARCHITECTURES=native")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${cif_architectures}" CACHE STRING
      "CUDA architectures to build for (default: ${CIF_DEFAULT_CUDA_ARCHITECTURES}, or native with a GPU visible)")
endif()
