// Mesh reading (io/model/mesh.hpp): binary and ASCII STL, Wavefront OBJ; every broken file is a
// ParseError naming the file (and the line, for text), never a crash; the G1's meshes load.
#include "kinetrack/io/model/mesh.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

void putU32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void putF32(std::string& s, float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  putU32(s, u);
}

// A binary STL of the given triangles (normals zero).
std::string binaryStl(const std::vector<std::array<Vector3d, 3>>& tris, const std::string& header = "binary") {
  std::string s = header;
  s.resize(80, ' ');
  putU32(s, static_cast<std::uint32_t>(tris.size()));
  for (const auto& t : tris) {
    for (int i = 0; i < 3; ++i) putF32(s, 0.0f);
    for (const Vector3d& v : t)
      for (int i = 0; i < 3; ++i) putF32(s, static_cast<float>(v[i]));
    s.push_back(0);
    s.push_back(0);
  }
  return s;
}

// Two triangles of the unit square in the z = 0 plane: four distinct vertices.
std::vector<std::array<Vector3d, 3>> square() {
  const Vector3d a(0, 0, 0), b(1, 0, 0), c(1, 1, 0), d(0, 1, 0);
  return {{a, b, c}, {a, c, d}};
}

const char* kAsciiSquare =
    "solid square\n"
    "  facet normal 0 0 1\n"
    "    outer loop\n"
    "      vertex 0 0 0\n"
    "      vertex 1 0 0\n"
    "      vertex 1 1 0\n"
    "    endloop\n"
    "  endfacet\n"
    "  facet normal 0 0 1\n"
    "    outer loop\n"
    "      vertex 0 0 0\n"
    "      vertex 1 1 0\n"
    "      vertex 0 1 0\n"
    "    endloop\n"
    "  endfacet\n"
    "endsolid square\n";

void expectSquare(const TriangleMesh& m) {
  ASSERT_EQ(m.vertices.size(), 4u);
  ASSERT_EQ(m.triangles.size(), 2u);
  const auto& t = m.triangles[1];
  EXPECT_EQ(m.vertices[static_cast<std::size_t>(t[0])], Vector3d(0, 0, 0));
  EXPECT_EQ(m.vertices[static_cast<std::size_t>(t[1])], Vector3d(1, 1, 0));
  EXPECT_EQ(m.vertices[static_cast<std::size_t>(t[2])], Vector3d(0, 1, 0));
}

// The ParseError of `f`, or a failure.
template <class F>
ParseError errorOf(F f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError";
  return ParseError("", 0, "");
}

TEST(Mesh, BinaryStlMergesSharedVertices) { expectSquare(parseStl(binaryStl(square()), "square.stl")); }

TEST(Mesh, BinaryStlWhoseHeaderSaysSolidIsBinary) {
  // Some exporters start binary headers with "solid": the size decides.
  expectSquare(parseStl(binaryStl(square(), "solid exported by a CAD tool"), "square.stl"));
}

TEST(Mesh, AsciiStl) { expectSquare(parseStl(kAsciiSquare, "square.stl")); }

TEST(Mesh, AsciiStlWithCrLfAndSeveralSolids) {
  std::string two = std::string(kAsciiSquare) + kAsciiSquare;
  std::string crlf;
  for (char c : two) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const TriangleMesh m = parseStl(crlf, "two.stl");
  EXPECT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.triangles.size(), 4u);
}

TEST(Mesh, ObjPolygonsNegativeIndicesAndSlashes) {
  const std::string obj =
      "# a unit square as one quad, then a triangle by negative indices\n"
      "o square\n"
      "v 0 0 0\n"
      "v 1 0 0\n"
      "v 1 1 0 1.0\n"
      "v 0 1 0 0.5 0.5 0.5\n"
      "vt 0 0\n"
      "vn 0 0 1\n"
      "f 1/1/1 2/1/1 3//1 4\n"
      "f -4 -2 -1\n";
  const TriangleMesh m = parseObj(obj, "square.obj");
  ASSERT_EQ(m.vertices.size(), 4u);
  ASSERT_EQ(m.triangles.size(), 3u);  // the quad as a fan of two, then one
  EXPECT_EQ(m.triangles[0], (std::array<int, 3>{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (std::array<int, 3>{0, 2, 3}));
  EXPECT_EQ(m.triangles[2], (std::array<int, 3>{0, 2, 3}));
  EXPECT_EQ(m.vertices[2], Vector3d(1, 1, 0));
}

TEST(Mesh, ObjFaceMayReferToLaterVertices) {
  const TriangleMesh m = parseObj("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", "late.obj");
  EXPECT_EQ(m.triangles.size(), 1u);
}

TEST(Mesh, BrokenFilesAreParseErrorsNamingFileAndLine) {
  std::string bin = binaryStl(square());
  bin.resize(bin.size() - 7);
  ParseError e = errorOf([&] { (void)parseStl(bin, "cut.stl"); });
  EXPECT_EQ(e.file(), "cut.stl");
  EXPECT_NE(e.message().find("truncated"), std::string::npos) << e.what();

  std::string ascii = kAsciiSquare;
  ascii.replace(ascii.find("endloop"), 7, "endlop");
  e = errorOf([&] { (void)parseStl(ascii, "typo.stl"); });
  EXPECT_EQ(e.line(), 7);
  EXPECT_NE(e.message().find("endloop"), std::string::npos) << e.what();

  ascii = kAsciiSquare;
  ascii.replace(ascii.find("vertex 1 0 0"), 12, "vertex 1 x 0");
  e = errorOf([&] { (void)parseStl(ascii, "nan.stl"); });
  EXPECT_EQ(e.line(), 5);

  std::vector<std::array<Vector3d, 3>> bad = square();
  bad[1][2].x() = std::numeric_limits<double>::infinity();
  e = errorOf([&] { (void)parseStl(binaryStl(bad), "inf.stl"); });
  EXPECT_NE(e.message().find("triangle 1"), std::string::npos) << e.what();

  e = errorOf([&] { (void)parseStl("", "empty.stl"); });
  EXPECT_EQ(e.file(), "empty.stl");
  e = errorOf([&] { (void)parseStl(binaryStl({}), "none.stl"); });
  EXPECT_NE(e.message().find("no vertices"), std::string::npos) << e.what();

  e = errorOf([&] { (void)parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "range.obj"); });
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(e.message().find("out of range"), std::string::npos) << e.what();
  e = errorOf([&] { (void)parseObj("v 0 0 0\nv 1 zero 0\n", "v.obj"); });
  EXPECT_EQ(e.line(), 2);
  e = errorOf([&] { (void)parseObj("v 0 0 0\nf 1 0 1\n", "zero.obj"); });
  EXPECT_EQ(e.line(), 2);
  e = errorOf([&] { (void)parseObj("v 0 0 0\nf 1 -2 1\n", "negative.obj"); });
  EXPECT_EQ(e.line(), 2);
  e = errorOf([&] { (void)parseObj("# nothing\n", "nothing.obj"); });
  EXPECT_NE(e.message().find("no vertices"), std::string::npos) << e.what();

  e = errorOf([&] { (void)loadMesh("/nonexistent/mesh.stl"); });
  EXPECT_EQ(e.file(), "/nonexistent/mesh.stl");
  e = errorOf([&] { (void)loadMesh("mesh.dae"); });
  EXPECT_NE(e.message().find(".dae"), std::string::npos) << e.what();
}

// Every prefix and a set of byte mutations of small files: a mesh or a ParseError, nothing else.
TEST(Mesh, TruncatedAndMutatedFilesNeverCrash) {
  const std::string inputs[] = {binaryStl(square()), kAsciiSquare,
                                "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1 2/2 3/3 4/4\nf -1 -2 -3\n"};
  const char replacements[] = {'\0', '\n', ' ', '-', '9', '/', 'e', '\xff', '.'};
  int parsed = 0, refused = 0;
  for (int kind = 0; kind < 3; ++kind) {
    const std::string& base = inputs[kind];
    auto run = [&](const std::string& text) {
      try {
        const TriangleMesh m = kind == 2 ? parseObj(text, "m.obj") : parseStl(text, "m.stl");
        for (const auto& t : m.triangles)
          for (int v : t) ASSERT_TRUE(v >= 0 && static_cast<std::size_t>(v) < m.vertices.size());
        for (const Vector3d& v : m.vertices) ASSERT_TRUE(v.allFinite());
        ++parsed;
      } catch (const ParseError&) {
        ++refused;
      }
    };
    for (std::size_t n = 0; n <= base.size(); ++n) run(base.substr(0, n));
    for (std::size_t at = 0; at < base.size(); ++at)
      for (char c : replacements) {
        std::string t = base;
        t[at] = c;
        run(t);
      }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(refused, 0);
}

TEST(Mesh, LoadsFilesByExtension) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kinetrack_mesh_test";
  std::filesystem::create_directories(dir);
  const std::string stl = (dir / "square.STL").string(), obj = (dir / "square.obj").string();
  std::ofstream(stl, std::ios::binary) << binaryStl(square());
  std::ofstream(obj) << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
  expectSquare(loadMesh(stl));
  EXPECT_EQ(loadMesh(obj).triangles.size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(Mesh, UnitreeG1MeshesLoad) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  const std::filesystem::path dir = std::filesystem::path(urdf).parent_path() / "meshes";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".STL") continue;
    const TriangleMesh m = loadMesh(entry.path().string());
    EXPECT_GT(m.triangles.size(), 10u) << entry.path();
    // binary STL: 84 + 50·count bytes, every triangle kept
    EXPECT_EQ(std::filesystem::file_size(entry.path()), 84 + 50 * m.triangles.size()) << entry.path();
    // metres: a robot link fits in a 1 m box
    for (const Vector3d& v : m.vertices) ASSERT_LT(v.cwiseAbs().maxCoeff(), 1.0) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 30);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
