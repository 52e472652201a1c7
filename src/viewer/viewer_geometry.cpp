// The model's visual geometry for the page: every drawn geom in its link's frame, each mesh file
// read once into float32 vertices and uint32 triangles, and meshes.js that carries them.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "blob.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/mesh.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::viewer {

std::size_t ViewerGeometry::triangles() const {
  std::size_t n = 0;
  for (const ViewerMesh& m : meshes) n += m.indices.size() / 3;
  return n;
}

ViewerMesh simplifyMesh(const ViewerMesh& mesh, double cell) {
  if (!(cell > 0.0)) return mesh;
  struct Key {
    std::int64_t x, y, z;
    bool operator<(const Key& o) const { return std::tie(x, y, z) < std::tie(o.x, o.y, o.z); }
  };
  ViewerMesh out;
  out.file = mesh.file;
  std::map<Key, std::uint32_t> slot;
  std::vector<std::uint32_t> remap(mesh.vertices.size() / 3);
  std::vector<double> sum;
  std::vector<int> count;
  for (std::size_t v = 0; v < remap.size(); ++v) {
    const Key k{static_cast<std::int64_t>(std::floor(mesh.vertices[3 * v] / cell)),
                static_cast<std::int64_t>(std::floor(mesh.vertices[3 * v + 1] / cell)),
                static_cast<std::int64_t>(std::floor(mesh.vertices[3 * v + 2] / cell))};
    const auto [it, inserted] = slot.try_emplace(k, static_cast<std::uint32_t>(count.size()));
    if (inserted) {
      sum.insert(sum.end(), {0.0, 0.0, 0.0});
      count.push_back(0);
    }
    remap[v] = it->second;
    for (std::size_t c = 0; c < 3; ++c) sum[3 * it->second + c] += mesh.vertices[3 * v + c];
    ++count[it->second];
  }
  out.vertices.resize(sum.size());
  for (std::size_t i = 0; i < sum.size(); ++i) out.vertices[i] = static_cast<float>(sum[i] / count[i / 3]);
  std::set<std::array<std::uint32_t, 3>> seen;
  for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const std::array<std::uint32_t, 3> tri = {remap[mesh.indices[t]], remap[mesh.indices[t + 1]],
                                              remap[mesh.indices[t + 2]]};
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) continue;
    // Two triangles on the same three clusters: keep both only when they face opposite ways
    // (a thin shell's two sides); the same triangle twice is drawn once.
    std::array<std::uint32_t, 3> oriented = tri;
    std::rotate(oriented.begin(), std::min_element(oriented.begin(), oriented.end()), oriented.end());
    if (!seen.insert(oriented).second) continue;
    out.indices.insert(out.indices.end(), tri.begin(), tri.end());
  }
  return out;
}

ViewerGeometry viewerGeometry(const Model& model, double cell) {
  ViewerGeometry out;
  std::map<std::string, int> mesh_index;  // path → index, −1 when it could not be read
  for (const Geom& g : model.geoms()) {
    if (!g.visual) continue;
    ViewerGeom v;
    v.name = g.name;
    v.link = g.link.value;
    v.shape = g.shape;
    v.size = g.size;
    v.position = g.placement.p;
    const Eigen::Vector4d wxyz = so3::toQuaternionWxyz(g.placement.R);
    v.quaternion = Eigen::Vector4d(wxyz[1], wxyz[2], wxyz[3], wxyz[0]);
    v.rgba = g.rgba;
    if (g.shape == GeomShape::Mesh) {
      auto [it, inserted] = mesh_index.try_emplace(g.mesh, -1);
      if (inserted) {
        try {
          const io::TriangleMesh mesh = io::loadMesh(g.mesh);
          ViewerMesh m;
          m.file = g.mesh;
          m.vertices.reserve(mesh.vertices.size() * 3);
          for (const Vector3d& p : mesh.vertices)
            for (int k = 0; k < 3; ++k) m.vertices.push_back(static_cast<float>(p[k]));
          m.indices.reserve(mesh.triangles.size() * 3);
          for (const auto& t : mesh.triangles)
            for (const int i : t) m.indices.push_back(static_cast<std::uint32_t>(i));
          it->second = static_cast<int>(out.meshes.size());
          // The cell in the file's units: the drawn size over the geom's largest scale.
          const double scale = g.size.cwiseAbs().maxCoeff();
          out.meshes.push_back(cell > 0.0 && scale > 0.0 ? simplifyMesh(m, cell / scale) : std::move(m));
        } catch (const std::exception& e) {
          // The reader's message starts with the path: said once.
          std::string why = e.what();
          if (why.starts_with(g.mesh)) why.erase(0, std::min(why.size(), why.find(' ', g.mesh.size()) + 1));
          out.notes.push_back("mesh '" + g.mesh + "' of link '" + model.linkName(g.link) + "': " + why +
                              "; not drawn (the skeleton shows the link)");
        }
      }
      if (it->second < 0) continue;
      v.mesh = it->second;
    }
    out.geoms.push_back(std::move(v));
  }
  return out;
}

std::string geometryScript(const ViewerGeometry& geometry) {
  detail::Blob blob;
  nlohmann::json meshes = nlohmann::json::array();
  for (std::size_t m = 0; m < geometry.meshes.size(); ++m) {
    const ViewerMesh& mesh = geometry.meshes[m];
    const std::string key = "mesh" + std::to_string(m);
    blob.add<float>(key + ".vertices", mesh.vertices);
    if (mesh.vertices.size() / 3 <= 65535) {
      std::vector<std::uint16_t> small(mesh.indices.begin(), mesh.indices.end());
      blob.add<std::uint16_t>(key + ".indices", small);
    } else {
      blob.add<std::uint32_t>(key + ".indices", mesh.indices);
    }
    meshes.push_back({{"file", std::filesystem::path(mesh.file).filename().string()},
                      {"vertices", key + ".vertices"},
                      {"indices", key + ".indices"}});
  }
  nlohmann::json geoms = nlohmann::json::array();
  for (const ViewerGeom& g : geometry.geoms) {
    geoms.push_back({{"name", g.name},
                     {"link", g.link},
                     {"shape", toString(g.shape)},
                     {"size", {g.size[0], g.size[1], g.size[2]}},
                     {"position", {g.position[0], g.position[1], g.position[2]}},
                     {"quaternion", {g.quaternion[0], g.quaternion[1], g.quaternion[2], g.quaternion[3]}},
                     {"rgba", {g.rgba[0], g.rgba[1], g.rgba[2], g.rgba[3]}},
                     {"mesh", g.mesh}});
  }
  nlohmann::json head = {{"geoms", geoms}, {"meshes", meshes}, {"notes", geometry.notes}};
  return blob.script("KINETRACK_GEOMETRY", std::move(head), "KINETRACK_GEOMETRY_BLOB");
}

}  // namespace kinetrack::viewer
