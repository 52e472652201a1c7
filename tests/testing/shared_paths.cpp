#include "testing/shared_paths.hpp"

#include <filesystem>

namespace kinetrack::testing {

std::string sharedDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::path(KINETRACK_SOURCE_DIR) / ".." / "shared", ec);
  if (ec || !fs::is_directory(dir)) return {};
  return dir.string();
}

std::string sharedFile(const std::string& relative) {
  const std::string dir = sharedDir();
  if (dir.empty()) return {};
  const std::filesystem::path p = std::filesystem::path(dir) / relative;
  return std::filesystem::exists(p) ? p.string() : std::string{};
}

}  // namespace kinetrack::testing
