// URDF <visual> and <collision> as Model geoms: the G1's counts and shapes, merged fixed links'
// geometry on their parent's link, mesh paths (relative and package://), write → read round trips
// (and an MJCF model written as URDF), skipped degenerate shapes and broken geometry as ParseError.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

void expectSameGeoms(const Model& a, const Model& b) {
  ASSERT_EQ(a.geoms().size(), b.geoms().size());
  for (std::size_t k = 0; k < a.geoms().size(); ++k) {
    const Geom &x = a.geoms()[k], &y = b.geoms()[k];
    SCOPED_TRACE(x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(a.linkName(x.link), b.linkName(y.link));
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.mesh, y.mesh);
    EXPECT_EQ(x.collision, y.collision);
    EXPECT_EQ(x.visual, y.visual);
    EXPECT_EQ(x.rgba, y.rgba);
    EXPECT_LE((x.placement.R - y.placement.R).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LE((x.placement.p - y.placement.p).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(UrdfGeometry, G1CollisionAndVisualGeoms) {
  KINETRACK_REQUIRE_SHARED(path, "models/unitree/g1/g1_29dof.urdf");
  const Model m = io::loadUrdf(path);
  int collision = 0, visual = 0, meshes = 0, spheres = 0, cylinders = 0;
  for (const Geom& g : m.geoms()) {
    EXPECT_NE(g.collision, g.visual) << g.name;  // one element, one role
    collision += g.collision;
    visual += g.visual;
    if (g.shape == GeomShape::Mesh) {
      ++meshes;
      EXPECT_TRUE(fs::path(g.mesh).is_absolute()) << g.mesh;
      EXPECT_TRUE(fs::exists(g.mesh)) << g.mesh;
      EXPECT_EQ(g.size, Vector3d::Ones());
    }
    if (g.shape == GeomShape::Sphere) {
      ++spheres;
      EXPECT_EQ(g.size.x(), 0.005);
      EXPECT_EQ(g.link.value,
                m.linkId(g.name.starts_with("left") ? "left_ankle_roll_link" : "right_ankle_roll_link").value);
    }
    cylinders += g.shape == GeomShape::Cylinder;
  }
  EXPECT_EQ(collision, 37);
  EXPECT_EQ(visual, 36);
  EXPECT_EQ(spheres, 8);
  EXPECT_EQ(cylinders, 4);
  EXPECT_EQ(meshes, 61);
  // Unnamed elements: "<link>/collision<k>", "<link>/visual<k>".
  const Geom* shoulder = nullptr;
  for (const Geom& g : m.geoms())
    if (g.name == "left_shoulder_pitch_link/collision0") shoulder = &g;
  ASSERT_NE(shoulder, nullptr);
  EXPECT_EQ(shoulder->shape, GeomShape::Cylinder);
  EXPECT_EQ(shoulder->size, Vector3d(0.03, 0.025, 0.0));  // length 0.05 → half-length
  // The head (a link on a fixed joint) brings its geoms to the torso, placed through its frame.
  const FrameId head = m.frameId("head_link");
  int on_head = 0;
  for (const Geom& g : m.geoms()) {
    if (!g.name.starts_with("head_link/")) continue;
    ++on_head;
    EXPECT_EQ(g.link, m.linkId("torso_link"));
    EXPECT_LE((g.placement.p - m.framePlacement(head).p).norm(), 1e-15);
    if (g.visual) {
      EXPECT_EQ(g.rgba, Vector4d(0.2, 0.2, 0.2, 1.0));  // the top-level material "dark"
    }
  }
  EXPECT_EQ(on_head, 2);
}

TEST(UrdfGeometry, WriteReadRoundTripsKeepTheGeoms) {
  for (const char* relative :
       {"models/unitree/g1/g1_29dof.urdf", "models/unitree/h1/h1.urdf", "models/icub/iCubGazeboV2_5_model.urdf"}) {
    SCOPED_TRACE(relative);
    const std::string path = testing::sharedFile(relative);
    if (path.empty()) GTEST_SKIP() << "../shared/" << relative << " not found";
    const Model m = io::loadUrdf(path);
    EXPECT_FALSE(m.geoms().empty());
    const Model r = io::parseUrdf(io::toUrdf(m), "exported.urdf");
    expectSameGeoms(m, r);
  }
  // The iCub's package://iCub meshes are not shipped: the paths are kept (below the URDF's folder).
  const std::string icub = testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf");
  const Model m = io::loadUrdf(icub);
  EXPECT_EQ(m.geoms().size(), 78u);
  for (const Geom& g : m.geoms()) {
    if (g.shape == GeomShape::Mesh) {
      EXPECT_TRUE(g.mesh.starts_with((fs::path(icub).parent_path() / "meshes").string())) << g.mesh;
    }
  }
}

TEST(UrdfGeometry, MjcfModelsExportToUrdf) {
  // A geom both drawn and colliding becomes a <visual> and a <collision>; capsules and ellipsoids,
  // which URDF lacks, become comments.
  const std::string xml = R"(<mujoco model="m"><worldbody><body name="b"><freejoint/>
    <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
    <geom name="ball" size="0.1" rgba="0 1 0 1"/><geom name="bar" type="capsule" size="0.1 0.2"/>
    <geom name="egg" type="ellipsoid" size="0.1 0.2 0.3"/><geom name="hidden" size="0.1" group="4" contype="0" conaffinity="0"/>
    <body name="c"><joint name="j" axis="1 0 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="slab" type="box" size="0.1 0.2 0.3" pos="1 2 3" euler="10 20 30"/>
      <geom name="can" type="cylinder" size="0.1 0.2" contype="0" conaffinity="0" group="1"/></body>
  </body></worldbody></mujoco>)";
  const Model m = io::parseMjcf(xml, "m.xml");
  const std::string urdf = io::toUrdf(m);
  EXPECT_NE(urdf.find("<!-- geom 'bar': capsule"), std::string::npos) << urdf;
  EXPECT_NE(urdf.find("<!-- geom 'egg': ellipsoid"), std::string::npos) << urdf;
  EXPECT_NE(urdf.find("<!-- geom 'hidden': sphere"), std::string::npos) << urdf;
  const Model r = io::parseUrdf(urdf, "m.urdf");
  ASSERT_EQ(r.geoms().size(), 5u);  // ball ×2, slab ×2, can (visual only)
  EXPECT_EQ(r.geoms()[0].name, "ball");
  EXPECT_TRUE(r.geoms()[0].visual);
  EXPECT_EQ(r.geoms()[0].rgba, Vector4d(0, 1, 0, 1));
  EXPECT_TRUE(r.geoms()[1].collision);
  const Geom& slab = r.geoms()[2];
  EXPECT_EQ(slab.size, Vector3d(0.1, 0.2, 0.3));
  EXPECT_LE((slab.placement.R - m.geoms()[4].placement.R).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_EQ(r.geoms()[4].name, "can");
  EXPECT_TRUE(r.geoms()[4].visual && !r.geoms()[4].collision);
}

TEST(UrdfGeometry, MeshPathsAndPackages) {
  const fs::path root = fs::temp_directory_path() / ("kinetrack_urdf_mesh_" + std::to_string(::getpid()));
  fs::create_directories(root / "pkg" / "urdf");
  fs::create_directories(root / "pkg" / "meshes");
  fs::create_directories(root / "other" / "meshes");
  std::ofstream(root / "pkg" / "meshes" / "a.stl") << "solid\n";
  std::ofstream(root / "other" / "meshes" / "b.stl") << "solid\n";
  std::ofstream(root / "pkg" / "urdf" / "local.stl") << "solid\n";
  auto geometry = [](const std::string& file) {
    return "<visual><geometry><mesh filename=\"" + file + "\" scale=\"2 2 2\"/></geometry></visual>";
  };
  std::ofstream(root / "pkg" / "urdf" / "r.urdf")
      << "<robot name=\"r\"><link name=\"l\">" << geometry("package://pkg/meshes/a.stl")
      << geometry("package://other/meshes/b.stl") << geometry("local.stl") << geometry("package://pkg/meshes/none.stl")
      << geometry("file://" + (root / "other" / "meshes" / "b.stl").string()) << "</link></robot>";
  const Model m = io::loadUrdf((root / "pkg" / "urdf" / "r.urdf").string());
  ASSERT_EQ(m.geoms().size(), 5u);
  EXPECT_EQ(m.geoms()[0].mesh, (root / "pkg" / "meshes" / "a.stl").string());    // <urdf dir>/../rest
  EXPECT_EQ(m.geoms()[1].mesh, (root / "other" / "meshes" / "b.stl").string());  // an ancestor's pkg/rest
  EXPECT_EQ(m.geoms()[2].mesh, (root / "pkg" / "urdf" / "local.stl").string());
  EXPECT_EQ(m.geoms()[3].mesh, (root / "pkg" / "urdf" / "meshes" / "none.stl").string());  // missing: <urdf dir>/rest
  EXPECT_EQ(m.geoms()[4].mesh, (root / "other" / "meshes" / "b.stl").string());
  EXPECT_EQ(m.geoms()[0].size, Vector3d(2, 2, 2));
  fs::remove_all(root);
}

TEST(UrdfGeometry, PlaceholderShapesAreSkippedAndBrokenOnesRefused) {
  const std::string head = "<robot name=\"r\">\n<link name=\"l\">\n";
  std::vector<std::string> warnings;
  const Model m =
      io::parseUrdf(head +
                        "<collision>\n<geometry><box size=\"0 0 0\"/></geometry></collision>\n"
                        "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link></robot>",
                    "g.urdf", {}, &warnings);
  EXPECT_EQ(m.geoms().size(), 1u);
  EXPECT_TRUE(warnings.empty());  // a placeholder: nothing lost, nothing to say
  const std::vector<std::tuple<std::string, int, std::string>> broken = {
      {"<visual>\n<geometry><capsule radius=\"1\" length=\"1\"/></geometry></visual>", 4, "unknown geometry <capsule>"},
      {"<collision name=\"c\">\n<geometry>\n<box size=\"1 1\"/></geometry></collision>", 5,
       "link 'l' <collision> 'c': <box> size: expected 3 numbers, got 2"},
      {"<visual>\n<origin xyz=\"0 nan 0\"/><geometry><sphere radius=\"1\"/></geometry></visual>", 4, "<origin> xyz"},
      {"<visual>\n</visual>", 3, "no <geometry>"},
      {"<visual><geometry>\n<cylinder radius=\"1\"/></geometry></visual>", 4, "needs a 'length' attribute"},
      {"<visual><geometry>\n<mesh/></geometry></visual>", 4, "needs a 'filename' attribute"},
      {"<visual><geometry>\n<sphere radius=\"inf\"/></geometry></visual>", 4, "not a finite number"},
  };
  for (const auto& [body, line, fragment] : broken) {
    try {
      (void)io::parseUrdf(head + body + "</link></robot>", "b.urdf");
      ADD_FAILURE() << "accepted: " << body;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), "b.urdf");
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(e.message().find(fragment), std::string::npos) << e.what();
    }
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
