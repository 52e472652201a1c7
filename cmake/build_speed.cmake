# How the build is kept fast (docs/building.md has the measurements behind each choice):
# - a faster linker: mold, else lld, when installed (KINETRACK_LINKER);
# - unity builds (KINETRACK_UNITY) and precompiled headers (KINETRACK_PCH) for the targets made of
#   many files that include the same heavy headers: the tests, the CLI, the Python module;
# - optimisation chosen per target in Release: the library keeps -O3 (its hot paths are what the
#   benchmarks measure), the CLI and the Python module -O2, the tests -O1 (kinetrack_build_profile).
option(KINETRACK_UNITY "Unity builds of the tests, the CLI and the Python module" ON)
option(KINETRACK_PCH "Precompiled headers (Eigen, GoogleTest, CLI11, pybind11, the standard library)" ON)
set(KINETRACK_LINKER "auto" CACHE STRING "Linker: auto (mold, else lld, else the compiler's default), mold, lld, default")
set_property(CACHE KINETRACK_LINKER PROPERTY STRINGS auto mold lld default)

set(_kinetrack_linker "${KINETRACK_LINKER}")
if(_kinetrack_linker STREQUAL "auto")
  find_program(KINETRACK_MOLD ld.mold)
  find_program(KINETRACK_LLD ld.lld)
  if(KINETRACK_MOLD)
    set(_kinetrack_linker mold)
  elseif(KINETRACK_LLD)
    set(_kinetrack_linker lld)
  else()
    set(_kinetrack_linker default)
  endif()
endif()
if(NOT _kinetrack_linker STREQUAL "default")
  add_link_options(-fuse-ld=${_kinetrack_linker})
endif()
message(STATUS "kinetrack: linker ${_kinetrack_linker}, unity builds ${KINETRACK_UNITY}, precompiled headers ${KINETRACK_PCH}")

# kinetrack_build_profile(TARGET [OPT O1|O2] [UNITY BATCH] [UNIQUE_ID NAME] [PCH header...])
#   OPT    the optimisation level of TARGET in Release (after CMAKE_CXX_FLAGS_RELEASE's -O3, so it
#          wins; the sanitizer and fuzz builds keep their own -O1)
#   UNITY  unity build in batches of BATCH files (KINETRACK_UNITY)
#   UNIQUE_ID  a macro that names each file's own namespace (CMake's UNITY_BUILD_UNIQUE_ID; empty,
#          so an anonymous namespace, when the target is not a unity build): the test files write
#          `namespace KINETRACK_UNITY_ID {` where they would write `namespace {`, so that helpers of
#          the same name in two files of one unity batch do not collide
#   PCH    headers to precompile for TARGET (KINETRACK_PCH)
function(kinetrack_build_profile target)
  cmake_parse_arguments(ARG "" "OPT;UNITY;UNIQUE_ID" "PCH" ${ARGN})
  if(ARG_OPT AND NOT KINETRACK_SANITIZE AND NOT KINETRACK_FUZZ)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-${ARG_OPT}>)
  endif()
  if(ARG_UNITY AND KINETRACK_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ARG_UNITY})
    if(ARG_UNIQUE_ID)
      set_target_properties(${target} PROPERTIES UNITY_BUILD_UNIQUE_ID ${ARG_UNIQUE_ID})
    endif()
  elseif(ARG_UNIQUE_ID)
    target_compile_definitions(${target} PRIVATE ${ARG_UNIQUE_ID}=)
  endif()
  if(ARG_PCH AND KINETRACK_PCH)
    target_precompile_headers(${target} PRIVATE ${ARG_PCH})
  endif()
endfunction()

# The standard and Eigen headers nearly every file of kinetrack includes.
set(KINETRACK_PCH_COMMON <algorithm> <cmath> <filesystem> <fstream> <functional> <limits> <map> <memory> <optional>
    <span> <sstream> <string> <string_view> <vector> <Eigen/Core> <Eigen/Geometry> <Eigen/Cholesky> <Eigen/LU>)
