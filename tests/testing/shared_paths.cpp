#include "testing/shared_paths.hpp"

#include <filesystem>
#include <fstream>

namespace kinetrack::testing {

std::string sourceDir() { return KINETRACK_SOURCE_DIR; }

std::string testDataDir() { return KINETRACK_SOURCE_DIR "/tests/data"; }

std::string cliPath() { return KINETRACK_CLI_PATH; }

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

std::vector<std::string> sharedBvhClips() {
  std::vector<std::string> files;
  const std::string csv = sharedFile("data/bvh/CLIPS.csv");
  if (csv.empty()) return files;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line))
    if (!line.empty()) files.push_back(line.substr(0, line.find(',')));
  return files;
}

}  // namespace kinetrack::testing
