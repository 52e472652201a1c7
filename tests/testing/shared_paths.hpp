#pragma once
// Locating ../shared (real models and data, present in CI beside the project root).
#include <string>
#include <vector>

namespace kinetrack::testing {

/// Absolute path of the project's source root. The build's paths live in shared_paths.cpp alone
/// (compile definitions of that one file), so no other test file's compile command names a
/// directory of this checkout and ccache serves every clone (scripts/setup.sh).
std::string sourceDir();

/// Absolute path of tests/data.
std::string testDataDir();

/// The built `kinetrack` binary.
std::string cliPath();

/// Absolute path of ../shared relative to the project root, or "" when it is absent.
std::string sharedDir();

/// Absolute path of a file under ../shared (e.g. "models/icub/iCubGazeboV2_5_model.urdf"), or ""
/// when ../shared or the file is absent.
std::string sharedFile(const std::string& relative);

/// The BVH clips listed in ../shared/data/bvh/CLIPS.csv, as paths relative to ../shared/data
/// ("bvh/cmu_cgspeed/cmu_01_01.bvh", …), in file order; empty when ../shared is absent.
std::vector<std::string> sharedBvhClips();

}  // namespace kinetrack::testing

/// In a GoogleTest body: skip the test, with a message, when a ../shared file is missing.
#define KINETRACK_REQUIRE_SHARED(var, relative)                       \
  const std::string var = ::kinetrack::testing::sharedFile(relative); \
  if (var.empty()) GTEST_SKIP() << "../shared/" << (relative) << " not found (run with ../shared beside the project)"
