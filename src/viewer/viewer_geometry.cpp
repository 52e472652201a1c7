// The model's visual geometry for the page: every drawn geom in its link's frame, each mesh file
// read once into float32 vertices and uint32 triangles, and meshes.js that carries them.
#include <filesystem>
#include <map>

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

ViewerGeometry viewerGeometry(const Model& model) {
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
          out.meshes.push_back(std::move(m));
        } catch (const std::exception& e) {
          out.notes.push_back("mesh '" + g.mesh + "' of link '" + model.linkName(g.link) + "': " + e.what() +
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
