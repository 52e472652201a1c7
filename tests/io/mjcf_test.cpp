// MJCF reading on small documents: every orientation form, compiler angle and eulerseq, default
// classes with childclass, hinge/slide/ball joints, several joints per body with off-axis
// anchors and refs, fromto geoms, sites, merged static bodies, fixed and floating bases — each
// against MuJoCo 2.2.2 loading the same text (testing/mujoco_mjcf.hpp): body, site and geom
// placements to 1e-12 at random configurations, geom sizes, and the mass properties of every link.
// Then <frame> and <include> (which MuJoCo 2.2.2 lacks) against the equivalent plain documents,
// the model registry's dispatch, the warnings, and broken documents raising ParseError(file, line)
// with the field.
#include "kinetrack/io/model/mjcf.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/format.hpp"
#include "testing/mujoco_mjcf.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using io::parseMjcf;

std::string fixture(const std::string& name) {
  std::ifstream in(kinetrack::testing::testDataDir() + "/mjcf/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

double distance(const Transform& a, const Transform& b) {
  return std::max((a.R - b.R).cwiseAbs().maxCoeff(), (a.p - b.p).cwiseAbs().maxCoeff());
}

Configuration randomMjcfConfiguration(const Model& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      lo = m.jointType(JointId(j)) == JointType::Prismatic ? -0.5 : -M_PI;
      hi = -lo;
    }
    q.joints[j] = lo + (hi - lo) * u(rng);
  }
  if (m.baseType() == BaseType::Floating) {
    q.base_position = Vector3d(u(rng), u(rng), u(rng));
    q.base_rotation = so3::exp(M_PI * Vector3d(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5));
  }
  return q;
}

// World placement of a geom of the model.
Transform geomPlacement(const Data& data, const Geom& g) { return compose(data.link[g.link.value], g.placement); }

const Geom* findGeom(const Model& m, const std::string& name) {
  for (const Geom& g : m.geoms())
    if (g.name == name) return &g;
  return nullptr;
}

// The figures of one comparison with MuJoCo.
struct Agreement {
  double bodies = 0, sites = 0, geoms = 0, sizes = 0, inertia = 0;
  int n_bodies = 0, n_sites = 0, n_geoms = 0;
};

// kinetrack's reading of `xml` against MuJoCo 2.2.2's at `configs` random configurations.
Agreement compareWithMujoco(const std::string& xml, int configs = 8, bool replace_meshes = false,
                            const std::string& source = "synthetic.xml") {
  const Model m = parseMjcf(xml, source);
  testing::MjcfOracle oracle(xml, replace_meshes);
  const mjModel* mm = oracle.model();
  Agreement a;
  Data data(m);
  std::mt19937_64 rng(20261205);
  for (int c = 0; c < configs; ++c) {
    const Configuration q = randomMjcfConfiguration(m, rng);
    framesForwardKinematics(m, data, q);
    oracle.setConfiguration(m, q);
    for (int b = 1; b < mm->nbody; ++b) {
      const auto f = m.findFrame(oracle.bodyName(b));
      if (!f) {
        ADD_FAILURE() << "no frame for MuJoCo body " << oracle.bodyName(b);
        continue;
      }
      a.bodies = std::max(a.bodies, distance(data.frame[f->value], oracle.body(b)));
      a.n_bodies += c == 0;
    }
    for (int s = 0; s < mm->nsite; ++s) {
      const auto f = m.findFrame(oracle.siteName(s));
      if (!f) {
        ADD_FAILURE() << "no frame for MuJoCo site " << oracle.siteName(s);
        continue;
      }
      a.sites = std::max(a.sites, distance(data.frame[f->value], oracle.site(s)));
      a.n_sites += c == 0;
    }
    for (int g = 0; g < mm->ngeom; ++g) {
      if (mm->geom_type[g] == mjGEOM_PLANE) continue;
      const Geom* geom = findGeom(m, oracle.geomName(g));
      if (!geom) {
        ADD_FAILURE() << "no geom " << oracle.geomName(g);
        continue;
      }
      a.geoms = std::max(a.geoms, distance(geomPlacement(data, *geom), oracle.geom(g)));
      a.n_geoms += c == 0;
      if (geom->shape != GeomShape::Mesh)
        for (int k = 0; k < 3; ++k) a.sizes = std::max(a.sizes, std::abs(geom->size[k] - mm->geom_size[3 * g + k]));
    }
  }
  // Mass properties: MuJoCo's bodies merged into kinetrack's links (static bodies, chains).
  for (int l = 0; l < m.numLinks(); ++l) {
    Inertial expected;
    for (int b = 1; b < mm->nbody; ++b) {
      const auto f = m.findFrame(oracle.bodyName(b));
      if (f && m.frameLink(*f).value == l)
        expected = combineInertials(expected, oracle.inertial(b), m.framePlacement(*f));
    }
    const Inertial& got = m.inertial(LinkId(l));
    const double scale = std::max(1.0, expected.inertia.cwiseAbs().maxCoeff());
    a.inertia = std::max({a.inertia, std::abs(got.mass - expected.mass) / std::max(1.0, expected.mass),
                          (got.com - expected.com).cwiseAbs().maxCoeff(),
                          (got.inertia - expected.inertia).cwiseAbs().maxCoeff() / scale});
  }
  return a;
}

void expectAgreement(const std::string& xml, double tol = 1e-12) {
  const Agreement a = compareWithMujoco(xml);
  EXPECT_LE(a.bodies, tol);
  EXPECT_LE(a.sites, tol);
  EXPECT_LE(a.geoms, tol);
  EXPECT_LE(a.sizes, 1e-15);
  EXPECT_LE(a.inertia, tol);
  EXPECT_GT(a.n_bodies, 0);
}

// tests/data/mjcf/forms.xml: every orientation form, degrees (MuJoCo's default), off-axis
// anchors, refs, a ball and a slide, fromto geoms.
std::string forms() { return fixture("forms.xml"); }

std::string withCompiler(const std::string& attributes) {
  std::string xml = forms();
  xml.replace(xml.find("<compiler/>"), 11, "<compiler " + attributes + "/>");
  return xml;
}

TEST(Mjcf, OrientationFormsInDegreesMatchMujoco) { expectAgreement(withCompiler("")); }

TEST(Mjcf, EulerSequencesMatchMujoco) {
  for (const char* seq : {"xyz", "XYZ", "zyx", "ZYX", "zYx", "XzX", "yxY"}) {
    SCOPED_TRACE(seq);
    expectAgreement(withCompiler(std::string("eulerseq=\"") + seq + "\""));
  }
}

TEST(Mjcf, RadiansMatchMujoco) {
  // The same numbers read as radians: every angle (euler, axisangle, ref, ranges) changes meaning.
  std::string xml = withCompiler("angle=\"radian\" eulerseq=\"zxz\"");
  xml.replace(xml.find("range=\"0 60\""), 12, "range=\"0 1.2\"");
  xml.replace(xml.find("range=\"-10 100\""), 15, "range=\"-0.2 1.7\"");
  expectAgreement(xml);
  const Model m = parseMjcf(xml, "r.xml");
  EXPECT_EQ(m.upperPositionLimits()[m.jointId("ball_x").value], 1.2);
  EXPECT_EQ(m.upperPositionLimits()[m.jointId("tilt").value], 1.7);
  const Model deg = parseMjcf(withCompiler(""), "d.xml");
  EXPECT_DOUBLE_EQ(deg.upperPositionLimits()[deg.jointId("tilt").value], 100.0 * M_PI / 180.0);
}

TEST(Mjcf, TheMappingOfJointsAndBodies) {
  const Model m = parseMjcf(withCompiler(""), "forms.xml");
  EXPECT_EQ(m.name(), "forms");
  EXPECT_EQ(m.baseType(), BaseType::Floating);
  EXPECT_EQ(m.linkName(LinkId(0)), "a");
  const std::vector<std::string> joints = {"slide", "hinge", "ball_x", "ball_y", "ball_z", "tilt"};
  EXPECT_EQ(m.jointNames(), joints);
  EXPECT_EQ(m.jointType(m.jointId("slide")), JointType::Prismatic);
  EXPECT_EQ(m.jointType(m.jointId("hinge")), JointType::Continuous);  // no range
  for (const char* b : {"ball_x", "ball_y", "ball_z"}) {
    EXPECT_EQ(m.jointType(m.jointId(b)), JointType::Revolute);
    EXPECT_DOUBLE_EQ(m.upperPositionLimits()[m.jointId(b).value], M_PI / 3.0);
    EXPECT_DOUBLE_EQ(m.lowerPositionLimits()[m.jointId(b).value], -M_PI / 3.0);
  }
  // The ball's intermediate links are named after its joints and placed at zero.
  EXPECT_TRUE(m.findLink("d/ball_x") && m.findLink("d/ball_y") && m.findLink("d/ball_z"));
  EXPECT_TRUE(m.jointPlacement(m.jointId("ball_y")).p.isZero(0.0));
  // Off-axis anchors: the body is a Fixed frame of the link on the anchor ("hinge": (0.1, 0.2)
  // off the z axis); an anchor on the axis keeps the body's own link ("slide": no anchor).
  EXPECT_EQ(m.frameKind(m.frameId("c")), FrameKind::Fixed);
  EXPECT_EQ(m.linkName(m.frameLink(m.frameId("c"))), "c/hinge");
  EXPECT_EQ(m.frameKind(m.frameId("b")), FrameKind::Link);
  EXPECT_EQ(m.frameKind(m.frameId("body6")), FrameKind::Fixed);  // unnamed, no joint: merged into e
  EXPECT_TRUE(m.findFrame("c/site0"));
  // MJCF has no velocity limits; no actuators: no effort limits.
  EXPECT_TRUE(std::isinf(m.upperVelocityLimits()[0]));
  EXPECT_TRUE(std::isinf(m.effortLimits()[0]));
  // Geoms: the floor plane is skipped; unnamed ones are "<body>/geom<k>".
  EXPECT_EQ(m.geoms().size(), 7u);
  EXPECT_TRUE(findGeom(m, "b/geom0") && findGeom(m, "e/geom3") && findGeom(m, "body6/geom0"));
  const Geom& box = *findGeom(m, "e/geom2");
  EXPECT_EQ(box.shape, GeomShape::Box);
  EXPECT_EQ(box.size.head<2>(), Eigen::Vector2d(0.04, 0.04));
  EXPECT_NEAR(box.size.z(), 0.5 * std::sqrt(0.05), 1e-16);
  EXPECT_TRUE(box.collision);
  EXPECT_TRUE(box.visual);
  EXPECT_EQ(box.group, 0);
}

// tests/data/mjcf/classes.xml: default classes, nested, class= and childclass= (a body's
// childclass reaches its own elements and its descendants until another childclass), with
// joint, geom, site and actuator defaults.
std::string classes() { return fixture("classes.xml"); }

TEST(Mjcf, DefaultClassesMatchMujoco) {
  expectAgreement(classes());
  const Model m = parseMjcf(classes(), "classes.xml");
  EXPECT_EQ(m.baseType(), BaseType::Fixed);  // no free joint
  EXPECT_EQ(m.linkName(LinkId(0)), "world");
  auto limits = [&](const char* j) {
    const int k = m.jointId(j).value;
    return std::pair(m.lowerPositionLimits()[k], m.upperPositionLimits()[k]);
  };
  EXPECT_EQ(limits("waist"), std::pair(-1.0, 1.0));
  EXPECT_EQ(m.jointAxis(m.jointId("waist")), Vector3d::UnitY());
  EXPECT_EQ(limits("shoulder"), std::pair(-0.5, 2.0));
  EXPECT_EQ(m.jointAxis(m.jointId("shoulder")), Vector3d::UnitX());
  EXPECT_EQ(m.jointType(m.jointId("finger")), JointType::Prismatic);
  EXPECT_EQ(limits("finger"), std::pair(0.0, 0.1));
  EXPECT_EQ(m.jointType(m.jointId("thumb_joint")), JointType::Revolute);  // class arm over childclass hand
  EXPECT_EQ(limits("wrist"), std::pair(-1.0, 1.0));
  // Effort: the motor's ctrlrange × gear; forcerange when given; a position servo's ctrlrange is a
  // position, not a force.
  EXPECT_EQ(m.effortLimits()[m.jointId("waist").value], 21.0);
  EXPECT_EQ(m.effortLimits()[m.jointId("shoulder").value], 50.0);
  EXPECT_TRUE(std::isinf(m.effortLimits()[m.jointId("wrist").value]));
  const Geom& arm = *findGeom(m, "arm_geom");
  EXPECT_EQ(arm.shape, GeomShape::Box);
  EXPECT_FALSE(arm.collision);
  EXPECT_FALSE(arm.visual);  // group 3: hidden in MuJoCo's viewer
  EXPECT_EQ(arm.rgba, Vector4d(1, 0, 0, 1));
  EXPECT_EQ(findGeom(m, "hand_geom")->shape, GeomShape::Sphere);
  EXPECT_EQ(findGeom(m, "hand_main")->shape, GeomShape::Capsule);
  EXPECT_EQ(findGeom(m, "torso_geom")->contype, 1u);
}

// tests/data/mjcf/chains.xml: several joints in one body (the DeepMind humanoid's hips), anchors
// off their axes, a static body with its own inertial merged into its parent, and several
// top-level bodies (fixed base).
std::string chains() { return fixture("chains.xml"); }

TEST(Mjcf, SeveralJointsPerBodyAndStaticBodiesMatchMujoco) {
  expectAgreement(chains());
  const Model m = parseMjcf(chains(), "chains.xml");
  EXPECT_EQ(m.baseType(), BaseType::Fixed);
  EXPECT_EQ(m.linkName(m.frameLink(m.frameId("table"))), "world");
  EXPECT_EQ(m.linkName(m.frameLink(m.frameId("cover"))), "thigh/hip_y");  // hip_y's anchor is off its axis
  EXPECT_EQ(m.frameKind(m.frameId("pelvis")), FrameKind::Link);           // root_y's anchor is the origin
  EXPECT_TRUE(m.findLink("pelvis/root_x") && m.findLink("pelvis/root_z"));
  EXPECT_EQ(m.frameKind(m.frameId("world_site")), FrameKind::User);
  EXPECT_EQ(m.numJoints(), 7);
}

TEST(Mjcf, FixedBaseOnRequestAndAFullInertia) {
  // fullinertia: MuJoCo diagonalises it (mju_eig3, a Jacobi iteration that stops early: ~1e-9 of
  // the tensor here); kinetrack keeps the tensor as written. Compared to 1e-8 for that reason.
  const std::string xml = R"(<mujoco>
    <worldbody><body name="b"><freejoint/>
      <inertial pos="0.1 0 0" mass="2" fullinertia="0.3 0.2 0.25 0.01 -0.02 0.015"/>
      <body name="c" pos="0 0 0.2"><joint axis="0 1 0"/><inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
    </body></worldbody></mujoco>)";
  const Agreement a = compareWithMujoco(xml);
  EXPECT_LE(a.bodies, 1e-12);
  EXPECT_LE(a.inertia, 1e-8);
  io::MjcfOptions fixed;
  fixed.base = BaseType::Fixed;
  const Model m = parseMjcf(xml, "f.xml", fixed);
  EXPECT_EQ(m.baseType(), BaseType::Fixed);
  EXPECT_EQ(m.linkName(LinkId(0)), "b");
  EXPECT_EQ(m.jointName(JointId(0)), "c/joint0");  // unnamed joint
  const Matrix3d& I = m.inertial(LinkId(0)).inertia;
  EXPECT_EQ(I(0, 1), 0.01);
  EXPECT_EQ(I(0, 2), -0.02);
  EXPECT_EQ(I(1, 2), 0.015);
}

// <frame> (MuJoCo ≥ 3) and <include>: the same model as the document written out.
TEST(Mjcf, FramesAndIncludesEqualTheirPlainDocuments) {
  const std::string plain = R"(<mujoco><compiler angle="radian"/><worldbody>
    <body name="a" pos="1 0 0" quat="0.9 0 0.1 0"><joint name="j" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="g" type="sphere" size="0.1" pos="0.1 0.2 0.3"/></body></worldbody></mujoco>)";
  const std::string framed = R"(<mujoco><compiler angle="radian"/><worldbody>
    <frame pos="1 0 0"><frame quat="0.9 0 0.1 0"><body name="a"><joint name="j" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <frame pos="0.1 0 0"><geom name="g" type="sphere" size="0.1" pos="0 0.2 0.3"/></frame></body></frame></frame>
    </worldbody></mujoco>)";
  const auto dir = std::filesystem::temp_directory_path() / ("kinetrack_mjcf_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "parts");
  std::ofstream(dir / "parts" / "body.xml") << R"(<mujoco><body name="a" pos="1 0 0" quat="0.9 0 0.1 0">
      <joint name="j" axis="0 1 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="g" type="sphere" size="0.1" pos="0.1 0.2 0.3"/></body></mujoco>)";
  std::ofstream(dir / "parts" / "compiler.xml") << R"(<mujoco><compiler angle="radian"/></mujoco>)";
  std::ofstream(dir / "main.xml")
      << R"(<mujoco><include file="parts/compiler.xml"/><worldbody><include file="parts/body.xml"/></worldbody></mujoco>)";
  const Model a = parseMjcf(plain, "plain.xml");
  for (const Model& b : {parseMjcf(framed, "framed.xml"), io::loadMjcf((dir / "main.xml").string())}) {
    ASSERT_EQ(b.numJoints(), 1);
    EXPECT_LE(distance(a.jointPlacement(JointId(0)), b.jointPlacement(JointId(0))), 1e-15);
    ASSERT_EQ(b.geoms().size(), 1u);
    EXPECT_LE(distance(a.geoms()[0].placement, b.geoms()[0].placement), 1e-15);
  }
  // A recursive include is refused with the including line.
  std::ofstream(dir / "loop.xml") << "<mujoco>\n<include file=\"loop.xml\"/></mujoco>";
  try {
    io::loadMjcf((dir / "loop.xml").string());
    ADD_FAILURE() << "a recursive include loaded";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(e.message().find("includes itself"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Mjcf, MeshesResolvedAgainstMeshdirAndWarnings) {
  const auto dir = std::filesystem::temp_directory_path() / ("kinetrack_mjcf_mesh_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "assets");
  std::ofstream(dir / "assets" / "shell.stl") << "solid x\nendsolid x\n";
  std::ofstream(dir / "robot.xml") << R"(<mujoco model="meshy">
  <compiler meshdir="assets"/>
  <asset><mesh file="shell.stl" scale="0.001 0.001 0.002"/><mesh name="gone" file="gone.stl"/>
    <material name="red" rgba="1 0 0 1"/></asset>
  <worldbody><light pos="0 0 3"/><body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
    <geom type="mesh" mesh="shell" material="red"/><geom type="mesh" mesh="gone"/><camera name="c"/></body>
    <body name="box"><geom size="0.1"/></body></worldbody>
  <sensor><gyro site="nowhere"/></sensor><contact/><keyframe/>
</mujoco>)";
  std::vector<std::string> warnings;
  const Model m = io::loadMjcf((dir / "robot.xml").string(), {}, &warnings);
  ASSERT_EQ(m.geoms().size(), 2u);
  EXPECT_EQ(m.geoms()[0].mesh, (dir / "assets" / "shell.stl").string());
  EXPECT_EQ(m.geoms()[0].size, Vector3d(0.001, 0.001, 0.002));
  EXPECT_EQ(m.geoms()[0].rgba, Vector4d(1, 0, 0, 1));
  EXPECT_EQ(m.geoms()[1].mesh, (dir / "assets" / "gone.stl").string());
  std::string all;
  for (const std::string& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("<sensor>, <contact>, <keyframe>"), std::string::npos) << all;
  EXPECT_NE(all.find("<light>"), std::string::npos) << all;
  EXPECT_NE(all.find("<camera>"), std::string::npos) << all;
  EXPECT_NE(all.find("top-level body 'box'"), std::string::npos) << all;
  EXPECT_NE(all.find("1 of 2 mesh geoms"), std::string::npos) << all;
  EXPECT_NE(all.find("gone.stl"), std::string::npos) << all;
  // The registry: .xml by its root element, .mjcf by its name; --fixed-base fixes the free body.
  const io::LoadedModel lm = io::loadModel({(dir / "robot.xml").string(), std::nullopt, false});
  EXPECT_EQ(lm.model.name(), "meshy");
  EXPECT_EQ(lm.model.baseType(), BaseType::Floating);
  EXPECT_FALSE(lm.warnings.empty());
  std::filesystem::copy_file(dir / "robot.xml", dir / "robot.mjcf");
  EXPECT_EQ(io::loadModel({(dir / "robot.mjcf").string(), std::nullopt, true}).model.baseType(), BaseType::Fixed);
  // An .xml holding a URDF is still a URDF.
  std::ofstream(dir / "urdf.xml") << R"(<?xml version="1.0"?><!-- a robot --><robot name="r"><link name="l"/></robot>)";
  EXPECT_EQ(io::loadModel({(dir / "urdf.xml").string(), std::nullopt, false}).model.name(), "r");
  std::filesystem::remove_all(dir);
}

TEST(Mjcf, AssetdirStrippathClassScalesAndMassFromGeoms) {
  const auto dir = std::filesystem::temp_directory_path() / ("kinetrack_mjcf_assets_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "a");
  std::ofstream(dir / "a" / "m.obj") << "v 0 0 0\n";
  std::ofstream(dir / "robot.xml") << R"(<mujoco>
  <compiler assetdir="a" strippath="true" inertiafromgeom="auto"/>
  <default><mesh scale="2 2 2"/><default class="small"><mesh scale="0.5 0.5 0.5"/></default></default>
  <asset><mesh name="big" file="elsewhere/m.obj"/><mesh name="tiny" class="small" file="m.obj"/></asset>
  <worldbody><body name="b"><joint axis="1 0 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
    <geom type="mesh" mesh="big"/><geom type="mesh" mesh="tiny"/>
    <body name="light"><joint axis="0 1 0"/><geom size="0.1"/></body></body></worldbody>
</mujoco>)";
  std::vector<std::string> warnings;
  const Model m = io::loadMjcf((dir / "robot.xml").string(), {}, &warnings);
  ASSERT_EQ(m.geoms().size(), 3u);
  EXPECT_EQ(m.geoms()[0].mesh, (dir / "a" / "m.obj").string());  // strippath: the folders dropped
  EXPECT_EQ(m.geoms()[0].size, Vector3d(2, 2, 2));
  EXPECT_EQ(m.geoms()[1].size, Vector3d(0.5, 0.5, 0.5));
  EXPECT_EQ(m.inertial(m.linkId("light")).mass, 0.0);
  std::string all;
  for (const std::string& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("MuJoCo computes the mass of body light from their geoms"), std::string::npos) << all;
  EXPECT_EQ(all.find("mesh geoms name files"), std::string::npos) << all;
  std::filesystem::remove_all(dir);
  // Bodies nested beyond any real model are refused (the reader recurses).
  std::string deep = "<mujoco><worldbody>";
  for (int k = 0; k < 1002; ++k) deep += "<frame>";
  deep += "<body/>";
  for (int k = 0; k < 1002; ++k) deep += "</frame>";
  deep += "</worldbody></mujoco>";
  EXPECT_THROW((void)parseMjcf(deep, "deep.xml"), ParseError);
}

TEST(Mjcf, LooksLikeMjcf) {
  EXPECT_TRUE(io::looksLikeMjcf("<mujoco/>"));
  EXPECT_TRUE(io::looksLikeMjcf("\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- c -- c -->\n<mujoco model=\"x\">"));
  EXPECT_FALSE(io::looksLikeMjcf("<robot name=\"mujoco\"/>"));
  EXPECT_FALSE(io::looksLikeMjcf("<mujocox/>"));
  EXPECT_FALSE(io::looksLikeMjcf("<!-- unterminated"));
  EXPECT_FALSE(io::looksLikeMjcf(""));
}

// ---- broken documents ----------------------------------------------------------------------------

struct Broken {
  std::string what;  // the document's change
  std::string xml;
  int line;
  std::string field;  // in the message
};

TEST(Mjcf, BrokenDocumentsNameFileLineAndField) {
  const std::string head = "<mujoco>\n<worldbody>\n<body name=\"b\">\n";  // lines 1-3
  const std::string tail = "\n</body>\n</worldbody>\n</mujoco>\n";
  const std::string ok = "<freejoint/><inertial mass=\"1\" diaginertia=\"1 1 1\"/>";
  const std::vector<Broken> cases = {
      {"malformed XML", "<mujoco>\n<worldbody>\n<body></worldbody></mujoco>", 3, "malformed XML"},
      {"not MJCF", "<?xml version=\"1.0\"?>\n<robot name=\"r\"/>", 2, "root element must be <mujoco>"},
      {"a number", head + "<joint name=\"j\" range=\"-1 abc\"/>" + tail, 4, "joint 'j': range: 'abc' is not a number"},
      {"NaN", head + "<geom name=\"g\" size=\"nan\"/>" + tail, 4, "geom 'g': size: 'nan' is not a finite number"},
      {"inf", head + "<site name=\"s\" pos=\"0 inf 0\"/>" + tail, 4, "site 's': pos: 'inf' is not a finite number"},
      {"count", head + "<joint name=\"j\" axis=\"0 1\"/>" + tail, 4, "axis: expected 3 numbers, got 2"},
      {"joint type", head + "<joint name=\"j\" type=\"planar\"/>" + tail, 4, "type: unknown joint type 'planar'"},
      {"geom type", head + ok + "\n<geom name=\"g\" type=\"cone\"/>" + tail, 5, "geom 'g': type: unknown geom type"},
      {"nested free", head + "<joint name=\"j\"/><body name=\"c\">\n<freejoint name=\"f\"/></body>" + tail, 5,
       "joint 'f': a free joint is allowed on a top-level body only"},
      {"free beside a hinge", head + "<freejoint/>\n<joint name=\"h\"/>" + tail, 4, "a free joint must be alone"},
      {"duplicate body", head + ok + "<body name=\"c\"/>\n<body name=\"c\"/>" + tail, 5, "duplicate body name 'c'"},
      {"duplicate joint",
       head + ok + "<body name=\"c\"><joint name=\"j\"/></body>\n<body name=\"d\"><joint name=\"j\"/></body>" + tail, 5,
       "duplicate joint name 'j'"},
      {"duplicate geom", head + ok + "<geom name=\"g\" size=\"1\"/>\n<geom name=\"g\" size=\"1\"/>" + tail, 5,
       "duplicate geom name 'g'"},
      {"missing mesh", head + ok + "\n<geom name=\"g\" type=\"mesh\" mesh=\"m\"/>" + tail, 5,
       "geom 'g': mesh: no mesh asset named 'm'"},
      {"unknown class", head + ok + "\n<geom name=\"g\" class=\"nope\"/>" + tail, 5, "unknown default class 'nope'"},
      {"empty range", head + "<joint name=\"j\" range=\"1 -1\"/>" + tail, 4, "joint 'j': range: lower 1"},
      {"no autolimits",
       "<mujoco>\n<compiler autolimits=\"false\"/>\n<worldbody><body name=\"b\">\n<joint name=\"j\" range=\"0 1\"/>" +
           tail,
       4, "range: given without limited while the compiler's autolimits is false"},
      {"angle unit", "<mujoco>\n<compiler angle=\"grad\"/></mujoco>", 2,
       "<compiler>: angle: 'grad' is not degree or radian"},
      {"eulerseq", "<mujoco>\n<compiler eulerseq=\"xyw\"/></mujoco>", 2, "eulerseq: 'xyw'"},
      {"two orientations", head + ok + "\n<site name=\"s\" quat=\"1 0 0 0\" euler=\"0 0 0\"/>" + tail, 5,
       "site 's': euler: the orientation is given twice (quat and euler)"},
      {"zero quaternion", head + ok + "\n<geom name=\"g\" size=\"1\" quat=\"0 0 0 0\"/>" + tail, 5,
       "geom 'g': quat: the quaternion has zero"},
      {"zero axis", head + "<joint name=\"j\" axis=\"0 0 0\"/>" + tail, 4, "joint 'j': axis: the axis has zero"},
      {"fromto", head + ok + "\n<geom name=\"g\" type=\"capsule\" size=\"0.1\" fromto=\"1 1 1 1 1 1\"/>" + tail, 5,
       "geom 'g': fromto: the two points coincide"},
      {"size", head + ok + "\n<geom name=\"g\" type=\"box\" size=\"1 1\"/>" + tail, 5, "geom 'g'"},
      {"negative mass", head + "<freejoint/>\n<inertial mass=\"-1\" diaginertia=\"1 1 1\"/>" + tail, 5,
       "mass: negative"},
      {"contype", head + ok + "\n<geom name=\"g\" size=\"1\" contype=\"-1\"/>" + tail, 5,
       "contype: -1 is out of range"},
      {"bool", head + "<joint name=\"j\" limited=\"yes\" range=\"0 1\"/>" + tail, 4,
       "limited: 'yes' is not true or false"},
      {"class in default", "<mujoco>\n<default>\n<default class=\"a\"/>\n<default class=\"a\"/></default></mujoco>", 4,
       "duplicate default class 'a'"},
      {"unknown actuator joint", "<mujoco><worldbody/>\n<actuator>\n<motor joint=\"nope\"/></actuator></mujoco>", 3,
       "joint 'nope' is not a joint of the model"},
      {"include", "<mujoco>\n<include file=\"/nonexistent/x.xml\"/></mujoco>", 2, "cannot read"},
      {"second root", "<mujoco/>\n<mujoco/>", 2, "a second top-level element"},
  };
  for (const Broken& c : cases) {
    try {
      (void)parseMjcf(c.xml, "broken.xml");
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.file(), "broken.xml") << c.what;
      EXPECT_EQ(e.line(), c.line) << c.what << ": " << e.what();
      EXPECT_NE(e.message().find(c.field), std::string::npos) << c.what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.what << ": not a ParseError: " << e.what();
    }
  }
  // A missing file.
  EXPECT_THROW(io::loadMjcf("/nonexistent/robot.xml"), ParseError);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
