# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
#-- # Grading Level Criteria Report
#-- EVALUATION DATE: 2026-12-04
#-- EVALUATORS: [the CudaImageFilters maintainers (self-assessment)]
#--
#-- ## Compliance level 5 star (AKA ITK main modules, or remote modules that could become core modules)
#--   - [ ] Widespread community dependance
#--   - [ ] Above 90% code coverage (86.2 % of the CPU path's lines)
#--   - [ ] CI dashboards and testing monitored rigorously
#--   - [ ] Key API features are exposed in wrapping interface
#--   - [ ] All requirements of Levels 4,3,2,1
#--
#-- ## Compliance Level 4 star (Very high-quality code, perhaps small community dependance)
#--   - [X] Meets all ITK code style standards
#--   - [ ] No external requirements beyond those needed by ITK proper
#--   - [ ] Builds and passes tests on all supported platforms within 1 month of each core tagged release
#--            - [ ] Windows Shared Library Build with Visual Studio
#--            - [ ] Mac with clang compiller
#--            - [X] Linux with gcc compiler
#--   - [ ] Active developer community dedicated to maintaining code-base
#--   - [X] 75% code coverage demonstrated for testing suite
#--   - [X] Continuous integration testing performed
#--   - [ ] All requirements of Levels 3,2,1
#--
#-- ## Compliance Level 3 star (Quality beta code)
#--   - [X] API | executable interface is considered mostly stable and feature complete
#--   - [X] 10% C0-code coverage demonstrated for testing suite
#--   - [X] Some tests exist and pass on at least some platform
#--   - [X] All requirements of Levels 2,1
#--
#-- ## Compliance Level 2 star (Alpha code feature API development or niche community/execution environment dependance )
#--   - [X] Compiles for at least 1 niche set of execution envirionments, and perhaps others
#--         (may depend on specific external tools like a java environment, or specific external libraries to work )
#--   - [X] All requirements of Levels 1
#--
#-- ## Compliance Level 1 star (Pre-alpha features under development and code of unknown quality)
#--   - [X] Code complies on at least 1 platform
#--
#-- ## Compliance Level 0 star ( Code/Feature of known poor-quality or deprecated status )
#--   - [ ] Code reviewed and explicitly identified as not recommended for use
#--
#-- ### Please document here any justification for the criteria above
#       Code style: ITK's .clang-format (clang-format 19.1.7), checked in CI with the
#       licence headers and ITK's commit style. Tested on Linux with GCC 12 against
#       ITK 5.2.1, 5.4.7 (standalone and in ITK's tree; Testing/ITKVersions). The GPU
#       path needs the CUDA toolkit (an external requirement); without it the module
#       builds its CPU path alone. Line coverage of the CPU path 86.2 %
#       (Testing/Coverage/measure-coverage.sh, gcovr, 2026-12-04); the CUDA kernels
#       are tested on GPUs against the same references but not counted.
#       Windows and macOS builds have not been tried.

# The repository to fetch: set CudaImageFilters_GIT_REPOSITORY (a URL or a local
# clone) when configuring ITK; GIT_TAG is the commit ITK builds.
set(CudaImageFilters_GIT_REPOSITORY "" CACHE STRING "Git repository of the CudaImageFilters remote module")
if(Module_CudaImageFilters AND NOT CudaImageFilters_GIT_REPOSITORY)
  message(FATAL_ERROR "Module_CudaImageFilters: set CudaImageFilters_GIT_REPOSITORY to the module's git repository")
endif()
itk_fetch_module(
  CudaImageFilters
  "GPU (CUDA) twins of ITK filters that give ITK's answer: the cubic B-spline
prefilter, cubic resampling and B-spline deformation fields, convolution and zoom,
recursive Gaussian smoothing, N-D cubic table lookups, the Bamberger-Smith
directional filter bank, and the v4 registration metrics with whole registrations.
A CPU path runs the same arithmetic where no GPU is present."
  MODULE_COMPLIANCE_LEVEL 3
  GIT_REPOSITORY ${CudaImageFilters_GIT_REPOSITORY}
  GIT_TAG main
  )
