// VTK PolyData XML (io::parseVtp): polygons as fans, triangle strips with alternating winding,
// ascii and uncompressed base64 binary arrays giving the same mesh, every refused file a
// ParseError naming the file and line; OpenSim's bone meshes load.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kinetrack/core/base64.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mesh.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

template <class T>
std::string binaryArray(const std::vector<T>& values) {
  std::vector<unsigned char> bytes(4 + values.size() * sizeof(T));
  const auto size = static_cast<std::uint32_t>(values.size() * sizeof(T));
  std::memcpy(bytes.data(), &size, 4);
  std::memcpy(bytes.data() + 4, values.data(), values.size() * sizeof(T));
  return base64Encode(bytes);
}

// Six points: a quad (0 1 2 3) as one polygon, and a strip 2 3 4 5.
const char* kPoints = "0 0 0  1 0 0  1 1 0  0 1 0  1 2 0  0 2 0";

std::string asciiVtp(const std::string& compressor = "") {
  return std::string(
             "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\"") +
         (compressor.empty() ? "" : " compressor=\"" + compressor + "\"") +
         ">\n<PolyData>\n<Piece NumberOfPoints=\"6\" NumberOfPolys=\"1\" NumberOfStrips=\"1\">\n"
         "<Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">" +
         kPoints +
         "</DataArray></Points>\n"
         "<Polys><DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">0 1 2 3</DataArray>\n"
         "<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">4</DataArray></Polys>\n"
         "<Strips><DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">3 2 5 4</DataArray>\n"
         "<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">4</DataArray></Strips>\n"
         "</Piece>\n</PolyData>\n</VTKFile>\n";
}

TEST(Vtp, PolygonsBecomeFansAndStripsKeepTheirWinding) {
  const TriangleMesh m = parseVtp(asciiVtp(), "quad.vtp");
  ASSERT_EQ(m.vertices.size(), 6U);
  ASSERT_EQ(m.triangles.size(), 4U);
  EXPECT_EQ(m.triangles[0], (std::array<int, 3>{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (std::array<int, 3>{0, 2, 3}));
  // Strip 3 2 5 4: (3 2 5), then (2 5 4) with its first two swapped, (5 2 4), to keep one orientation.
  EXPECT_EQ(m.triangles[2], (std::array<int, 3>{3, 2, 5}));
  EXPECT_EQ(m.triangles[3], (std::array<int, 3>{5, 2, 4}));
  // Every triangle faces +z (counter-clockwise seen from +z), as the quad is written.
  for (const auto& t : m.triangles) {
    const Vector3d n = (m.vertices[t[1]] - m.vertices[t[0]]).cross(m.vertices[t[2]] - m.vertices[t[0]]);
    EXPECT_GT(n.z(), 0.0);
  }
}

TEST(Vtp, BinaryArraysGiveTheSameMeshAsAscii) {
  std::string text = asciiVtp();
  const auto swap = [&](const std::string& ascii_body, const std::string& binary_body) {
    const std::size_t at = text.find(ascii_body);
    ASSERT_NE(at, std::string::npos) << ascii_body;
    text.replace(at, ascii_body.size(), binary_body);
  };
  std::vector<float> pts = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 2, 0, 0, 2, 0};
  swap(std::string("format=\"ascii\">") + kPoints, "format=\"binary\">" + binaryArray(pts));
  swap("format=\"ascii\">0 1 2 3", "format=\"binary\">" + binaryArray(std::vector<std::int32_t>{0, 1, 2, 3}));
  const TriangleMesh ascii = parseVtp(asciiVtp(), "a.vtp"), binary = parseVtp(text, "b.vtp");
  EXPECT_EQ(ascii.triangles, binary.triangles);
  ASSERT_EQ(ascii.vertices.size(), binary.vertices.size());
  for (std::size_t i = 0; i < ascii.vertices.size(); ++i) EXPECT_EQ(ascii.vertices[i], binary.vertices[i]);
}

TEST(Vtp, RefusedFilesNameTheFileAndLine) {
  const auto fails = [](const std::string& text, const std::string& what, int line) {
    try {
      parseVtp(text, "bone.vtp");
      ADD_FAILURE() << "accepted, expected: " << what;
    } catch (const ParseError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("bone.vtp"), std::string::npos) << m;
      EXPECT_NE(m.find(what), std::string::npos) << m;
      if (line > 0) {
        EXPECT_NE(m.find(":" + std::to_string(line)), std::string::npos) << m;
      }
    }
  };
  std::string t = asciiVtp();
  fails(t.substr(0, t.size() / 2), "not XML", 0);
  std::string u = t;
  u.replace(u.find("PolyData\" version"), 8, "UnstructuredGrid");
  fails(u, "only PolyData", 2);
  u = t;
  u.replace(u.find("0 1 2 3"), 7, "0 1 2 9");
  fails(u, "out of range (6 points)", 6);
  u = t;
  u.replace(u.find("NumberOfPoints=\"6\""), 18, "NumberOfPoints=\"7\"");
  fails(u, "NumberOfPoints=\"7\"", 5);
  u = t;
  u.replace(u.find("1 1 0"), 5, "1 x 0");
  fails(u, "'x' is not a number", 5);
  u = t;
  u.replace(u.find("format=\"ascii\">0 1 2 3"), 22, "format=\"appended\" offset=\"0\">");
  fails(u, "appended data is not read", 6);
  // A compressed file's binary arrays are refused; its ascii arrays (OpenSim's bones) are read.
  EXPECT_EQ(parseVtp(asciiVtp("vtkZLibDataCompressor"), "z.vtp").triangles.size(), 4U);
  u = asciiVtp("vtkZLibDataCompressor");
  u.replace(u.find("format=\"ascii\">0 1 2 3"), 22, "format=\"binary\">AAAA");
  fails(u, "compressed binary data is not read", 6);
  fails("<VTKFile type=\"PolyData\"><PolyData/></VTKFile>", "no points", 0);
}

TEST(Vtp, OpenSimBonesLoad) {
  KINETRACK_REQUIRE_SHARED(femur, "data/opensim/Geometry/femur_r.vtp");
  const TriangleMesh m = loadMesh(femur);
  EXPECT_EQ(m.vertices.size(), 456U);
  EXPECT_EQ(m.triangles.size(), 908U);
  // A closed surface: every edge is shared by two triangles (the femur's mesh is watertight).
  std::map<std::pair<int, int>, int> edges;
  for (const auto& t : m.triangles)
    for (int k = 0; k < 3; ++k) ++edges[{std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])}];
  int open = 0;
  for (const auto& [edge, count] : edges) open += count != 2 ? 1 : 0;
  EXPECT_EQ(open, 0);
  // Metres: a femur is about 0.4 m long.
  Vector3d lo = m.vertices[0], hi = m.vertices[0];
  for (const Vector3d& v : m.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  EXPECT_NEAR((hi - lo).maxCoeff(), 0.42, 0.06);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
