#include "mesh_path.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

namespace kinetrack::io::detail {

namespace fs = std::filesystem;

namespace {

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string absoluteNormal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = p;
  return a.lexically_normal().string();
}

MeshPath make(const fs::path& p) { return {absoluteNormal(p), isFile(p)}; }

}  // namespace

std::string folderOf(const std::string& model_file) {
  const fs::path parent = fs::path(model_file).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

MeshPath resolveUrdfMesh(const std::string& filename, const std::string& dir) {
  constexpr std::string_view kFile = "file://", kPackage = "package://";
  if (filename.starts_with(kFile)) return make(fs::path(filename.substr(kFile.size())));
  if (!filename.starts_with(kPackage)) {
    const fs::path p(filename);
    return make(p.is_absolute() ? p : fs::path(dir) / p);
  }
  const std::string spec = filename.substr(kPackage.size());
  const std::size_t slash = spec.find('/');
  const std::string package = slash == std::string::npos ? spec : spec.substr(0, slash);
  const fs::path rest = slash == std::string::npos ? fs::path() : fs::path(spec.substr(slash + 1));
  if (rest.empty() || rest.is_absolute()) return make(fs::path(dir) / rest);
  std::vector<fs::path> candidates = {fs::path(dir) / rest, fs::path(dir) / ".." / rest};
  const fs::path start = fs::path(absoluteNormal(dir));
  fs::path a = start;
  for (int depth = 0; depth < 64; ++depth) {  // bounded: a root is its own parent
    candidates.push_back(a / rest);
    if (!package.empty()) candidates.push_back(a / package / rest);
    if (!a.has_parent_path() || a.parent_path() == a) break;
    a = a.parent_path();
  }
  for (const fs::path& c : candidates)
    if (isFile(c)) return {absoluteNormal(c), true};
  return {absoluteNormal(candidates.front()), false};
}

MeshPath resolveMjcfMesh(const std::string& file, const std::string& meshdir, const std::string& dir, bool strippath) {
  fs::path f(file);
  if (strippath) f = f.filename();
  if (f.is_absolute()) return make(f);
  fs::path base(meshdir);
  if (!base.is_absolute()) base = fs::path(dir) / base;
  return make(base / f);
}

MeshPath resolveOpenSimMesh(const std::string& file, const std::string& dir) {
  const fs::path p(file);
  if (p.is_absolute()) return make(p);
  const fs::path base = fs::path(absoluteNormal(dir));
  for (const fs::path& candidate : {base / p, base / "Geometry" / p})
    if (isFile(candidate)) return make(candidate);
  for (fs::path a = base.parent_path(); !a.empty(); a = a.parent_path()) {
    if (isFile(a / "Geometry" / p)) return make(a / "Geometry" / p);
    if (a == a.parent_path()) break;
  }
  return make(base / "Geometry" / p);
}

}  // namespace kinetrack::io::detail
