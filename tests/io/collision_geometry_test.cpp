// io::collisionProxies on a mesh file: the same capsule on every call (fitted once per process),
// a new one once the file is rewritten, and a warning with no proxy for a missing file.
#include "kinetrack/io/model/collision_geometry.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

// An ASCII STL of the tetrahedron with corners 0, s·x, s·y, s·z (`extra` repeats the last facet).
void writeTetrahedron(const std::string& path, double s, bool extra) {
  const std::vector<Vector3d> v = {Vector3d::Zero(), s * Vector3d::UnitX(), s * Vector3d::UnitY(),
                                   s * Vector3d::UnitZ()};
  const int faces[5][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}, {1, 2, 3}};
  std::ofstream out(path);
  out << "solid t\n";
  for (int f = 0; f < (extra ? 5 : 4); ++f) {
    out << " facet normal 0 0 0\n  outer loop\n";
    for (const int i : faces[f]) out << "   vertex " << v[i].x() << ' ' << v[i].y() << ' ' << v[i].z() << '\n';
    out << "  endloop\n endfacet\n";
  }
  out << "endsolid t\n";
}

Model withMesh(const std::string& path) {
  ModelBuilder b("part", "base", BaseType::Fixed);
  Geom g;
  g.shape = GeomShape::Mesh;
  g.size = Vector3d::Ones();
  g.mesh = path;
  b.addGeom("base", g);
  return b.build();
}

TEST(CollisionGeometry, MeshCapsulesFollowTheFile) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kt_collision_geometry_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "part.stl").string();
  writeTetrahedron(path, 0.1, false);
  const Model m = withMesh(path);
  const std::vector<CollisionProxy> first = collisionProxies(m);
  ASSERT_EQ(first.size(), 1U);
  EXPECT_GT(first[0].radius, 0.0);
  const std::vector<CollisionProxy> again = collisionProxies(m);
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0].radius, first[0].radius);
  EXPECT_EQ(again[0].a, first[0].a);
  EXPECT_EQ(again[0].b, first[0].b);
  // Rewritten three times larger (and one facet longer: another size, whatever the clock's
  // resolution): fitted again.
  writeTetrahedron(path, 0.3, true);
  const std::vector<CollisionProxy> larger = collisionProxies(m);
  ASSERT_EQ(larger.size(), 1U);
  EXPECT_NEAR(larger[0].radius, 3.0 * first[0].radius, 1e-9);
  // Gone: a warning, no proxy.
  std::filesystem::remove(path);
  std::vector<std::string> warnings;
  EXPECT_TRUE(collisionProxies(m, &warnings).empty());
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("part.stl"), std::string::npos) << warnings[0];
  std::filesystem::remove_all(dir);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
