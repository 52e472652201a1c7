// The Unitree G1 (29 DoF) and H1 of ../shared/models/unitree read from their MJCF files:
//   - against MuJoCo 2.2.2 reading the same files (testing/mujoco_mjcf.hpp: mesh geoms as spheres,
//     the joint attributes 2.2.2 lacks removed): every body, site and geom placement at 20 random
//     configurations to 1e-12, and every link's mass properties after merging;
//   - against their URDF files: the same moving joints (names and order), limits, and the world
//     placement of every common frame at 20 random configurations. The two files of each robot
//     differ where MuJoCo's URDF → MJCF conversion printed quaternions, limits and inertias with 6
//     significant digits, and where Unitree edited one file and not the other; each difference is
//     listed below as a documented exception, and the URDF's value substituted for it gives FK equal
//     to 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/format.hpp"
#include "testing/mujoco_mjcf.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

double distance(const Transform& a, const Transform& b) {
  return std::max((a.R - b.R).cwiseAbs().maxCoeff(), (a.p - b.p).cwiseAbs().maxCoeff());
}

std::string slurp(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::string text;
  char buffer[65536];
  for (std::size_t n; f && (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  if (f) std::fclose(f);
  return text;
}

Configuration randomUnitreeConfiguration(const Model& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    q.joints[j] = lo + (hi - lo) * u(rng);
  }
  q.base_position = Vector3d(u(rng), u(rng), u(rng) + 0.5);
  q.base_rotation = so3::exp(M_PI * Vector3d(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5));
  return q;
}

// ---- against MuJoCo ------------------------------------------------------------------------------

struct OracleFigures {
  double bodies = 0, sites = 0, geoms = 0, inertia = 0;
  int n_bodies = 0, n_sites = 0, n_geoms = 0;
};

OracleFigures againstMujoco(const std::string& path) {
  const Model m = io::loadMjcf(path);
  testing::MjcfOracle oracle(slurp(path), /*replace_meshes=*/true);
  const mjModel* mm = oracle.model();
  OracleFigures r;
  Data data(m);
  std::mt19937_64 rng(38);
  for (int c = 0; c < 20; ++c) {
    const Configuration q = randomUnitreeConfiguration(m, rng);
    framesForwardKinematics(m, data, q);
    oracle.setConfiguration(m, q);
    for (int b = 1; b < mm->nbody; ++b) {
      r.bodies = std::max(r.bodies, distance(data.frame[m.frameId(oracle.bodyName(b)).value], oracle.body(b)));
      r.n_bodies += c == 0;
    }
    for (int s = 0; s < mm->nsite; ++s) {
      r.sites = std::max(r.sites, distance(data.frame[m.frameId(oracle.siteName(s)).value], oracle.site(s)));
      r.n_sites += c == 0;
    }
    for (int g = 0; g < mm->ngeom; ++g) {
      if (mm->geom_type[g] == mjGEOM_PLANE) continue;  // the floor: not on a body, not in the model
      const std::string name = oracle.geomName(g);
      const Geom* geom = nullptr;
      for (const Geom& x : m.geoms())
        if (x.name == name) geom = &x;
      if (!geom) {
        ADD_FAILURE() << "no geom " << name;
        continue;
      }
      r.geoms = std::max(r.geoms, distance(compose(data.link[geom->link.value], geom->placement), oracle.geom(g)));
      r.n_geoms += c == 0;
    }
  }
  for (int l = 0; l < m.numLinks(); ++l) {
    Inertial expected;
    for (int b = 1; b < mm->nbody; ++b) {
      const FrameId f = m.frameId(oracle.bodyName(b));
      if (m.frameLink(f).value == l) expected = combineInertials(expected, oracle.inertial(b), m.framePlacement(f));
    }
    const Inertial& got = m.inertial(LinkId(l));
    r.inertia = std::max({r.inertia, std::abs(got.mass - expected.mass), (got.com - expected.com).cwiseAbs().maxCoeff(),
                          (got.inertia - expected.inertia).cwiseAbs().maxCoeff()});
  }
  return r;
}

void expectMujocoAgreement(const char* relative, int bodies, int sites, int geoms) {
  const std::string path = testing::sharedFile(relative);
  if (path.empty()) GTEST_SKIP() << "../shared/" << relative << " not found";
  const OracleFigures r = againstMujoco(path);
  EXPECT_EQ(r.n_bodies, bodies);
  EXPECT_EQ(r.n_sites, sites);
  EXPECT_EQ(r.n_geoms, geoms);
  EXPECT_LE(r.bodies, 1e-12);
  EXPECT_LE(r.sites, 1e-12);
  EXPECT_LE(r.geoms, 1e-12);
  EXPECT_LE(r.inertia, 1e-15);
  ::testing::Test::RecordProperty("mujoco_fk_max_error", testing::sci(std::max({r.bodies, r.sites, r.geoms})));
  ::testing::Test::RecordProperty("mujoco_inertia_max_error", testing::sci(r.inertia));
}

TEST(MjcfUnitree, G1MatchesMujoco) { expectMujocoAgreement("models/unitree/g1/g1_29dof.xml", 30, 2, 73); }
TEST(MjcfUnitree, H1MatchesMujoco) { expectMujocoAgreement("models/unitree/h1/h1.xml", 20, 1, 41); }

// ---- against the URDF ------------------------------------------------------------------------------

// A copy of `m` with the placements of some joints replaced (frames other than links become user
// frames at the same link-relative placement: the same FK).
Model withPlacements(const Model& m, const std::map<std::string, Transform>& placements) {
  ModelBuilder b(m.name(), m.linkName(LinkId(0)), m.baseType(), m.inertial(LinkId(0)));
  for (int f = 1; f < m.numFrames(); ++f) {
    const FrameId id(f);
    if (m.frameKind(id) == FrameKind::Link) {
      JointSpec s = jointSpecOf(m, m.jointOfLink(m.frameLink(id)));
      if (auto it = placements.find(s.name); it != placements.end()) s.placement = it->second;
      b.addJoint(s);
    } else {
      b.addFrame(m.frameName(id), m.linkName(m.frameLink(id)), m.framePlacement(id));
    }
  }
  return b.build();
}

// The quaternion (w ≥ 0) of R with each component printed to 6 significant digits, as MuJoCo's
// model writer prints it.
Eigen::Vector4d printedQuaternion(const Matrix3d& R) {
  Eigen::Vector4d q = so3::toQuaternionWxyz(R);
  for (int k = 0; k < 4; ++k) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", q[k]);
    q[k] = std::strtod(text, nullptr);
  }
  return q;
}

struct Pair {
  const char* urdf;
  const char* mjcf;
  // Documented exceptions, by joint: the MJCF rotation is the URDF's printed as a 6-digit quaternion.
  std::set<std::string> rounded_rotations;
  // The MJCF's limits are the URDF's printed with 6 significant digits.
  std::set<std::string> rounded_limits;
  // Effort limits that differ between the two files: joint → (URDF, MJCF).
  std::map<std::string, std::pair<double, double>> efforts;
  // Frames of the MJCF (sites) that the URDF names differently.
  std::map<std::string, std::string> aliases;
};

void expectSameRobot(const Pair& p) {
  const std::string urdf_path = testing::sharedFile(p.urdf), mjcf_path = testing::sharedFile(p.mjcf);
  if (urdf_path.empty() || mjcf_path.empty()) GTEST_SKIP() << "../shared/models/unitree not found";
  const Model u = io::loadUrdf(urdf_path);
  const Model x = io::loadMjcf(mjcf_path);
  ASSERT_EQ(x.baseType(), BaseType::Floating);
  EXPECT_EQ(u.jointNames(), x.jointNames());  // the same moving joints, in the same order
  ASSERT_EQ(u.numJoints(), x.numJoints());
  std::map<std::string, Transform> urdf_rotations;
  double rotation_difference = 0.0;
  for (int j = 0; j < u.numJoints(); ++j) {
    const JointId id(j);
    const std::string& name = u.jointName(id);
    SCOPED_TRACE(name);
    const Transform &a = u.jointPlacement(id), &b = x.jointPlacement(id);
    EXPECT_LE((a.p - b.p).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_EQ(u.jointAxis(id), x.jointAxis(id));
    EXPECT_EQ(u.jointType(id), x.jointType(id));
    if (p.rounded_rotations.count(name)) {
      // The MJCF's quaternion is the URDF's rotation printed with 6 digits, to the last bit.
      EXPECT_LE((so3::fromQuaternionWxyz(printedQuaternion(a.R)) - b.R).cwiseAbs().maxCoeff(), 1e-15);
      rotation_difference = std::max(rotation_difference, (a.R - b.R).cwiseAbs().maxCoeff());
      urdf_rotations[name] = {a.R, b.p};
    } else {
      EXPECT_LE((a.R - b.R).cwiseAbs().maxCoeff(), 1e-15);
    }
    const double lu = u.lowerPositionLimits()[j], hu = u.upperPositionLimits()[j];
    const double lx = x.lowerPositionLimits()[j], hx = x.upperPositionLimits()[j];
    if (p.rounded_limits.count(name)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", lu);
      EXPECT_EQ(std::strtod(text, nullptr), lx);
      std::snprintf(text, sizeof text, "%g", hu);
      EXPECT_EQ(std::strtod(text, nullptr), hx);
    } else {
      EXPECT_EQ(lu, lx);
      EXPECT_EQ(hu, hx);
    }
    // MJCF has no velocity limits.
    EXPECT_TRUE(std::isfinite(u.upperVelocityLimits()[j]));
    EXPECT_TRUE(std::isinf(x.upperVelocityLimits()[j]));
    if (auto e = p.efforts.find(name); e != p.efforts.end()) {
      EXPECT_EQ(u.effortLimits()[j], e->second.first);
      EXPECT_EQ(x.effortLimits()[j], e->second.second);
    } else {
      EXPECT_EQ(u.effortLimits()[j], x.effortLimits()[j]);
    }
  }
  EXPECT_EQ(urdf_rotations.size(), p.rounded_rotations.size());

  // FK of every common frame (links, and sites with their URDF frame), base included.
  const Model patched = withPlacements(x, urdf_rotations);
  std::vector<std::pair<FrameId, FrameId>> common;  // (URDF, MJCF)
  for (int f = 0; f < x.numFrames(); ++f) {
    std::string n = x.frameName(FrameId(f));
    if (auto a = p.aliases.find(n); a != p.aliases.end()) n = a->second;
    if (const auto uf = u.findFrame(n)) common.emplace_back(*uf, FrameId(f));
  }
  EXPECT_EQ(static_cast<int>(common.size()), x.numFrames());  // every MJCF frame is in the URDF
  Data du(u), dx(x), dp(patched);
  std::mt19937_64 rng(2938);
  double as_read = 0.0, substituted = 0.0;
  for (int c = 0; c < 20; ++c) {
    const Configuration q = randomUnitreeConfiguration(u, rng);
    framesForwardKinematics(u, du, q);
    framesForwardKinematics(x, dx, q);
    framesForwardKinematics(patched, dp, q);
    for (const auto& [fu, fx] : common) {
      as_read = std::max(as_read, distance(du.frame[fu.value], dx.frame[fx.value]));
      substituted =
          std::max(substituted, distance(du.frame[fu.value], dp.frame[patched.frameId(x.frameName(fx)).value]));
    }
  }
  EXPECT_LE(substituted, 1e-12);
  // As read, the 6-digit quaternions move frames by up to ~1e-6 (m, and rotation entries).
  EXPECT_LE(as_read, 1e-5);
  ::testing::Test::RecordProperty("fk_max_error_urdf_rotations", testing::sci(substituted));
  ::testing::Test::RecordProperty("fk_max_error_as_read", testing::sci(as_read));
  ::testing::Test::RecordProperty("rotation_rounding", testing::sci(rotation_difference));
  ::testing::Test::RecordProperty("common_frames", static_cast<int>(common.size()));
}

TEST(MjcfUnitree, G1UrdfAndMjcfAreTheSameRobot) {
  Pair p{"models/unitree/g1/g1_29dof.urdf", "models/unitree/g1/g1_29dof.xml", {}, {}, {}, {}};
  for (const char* side : {"left", "right"}) {
    const std::string s = side;
    p.rounded_rotations.insert(
        {s + "_hip_roll_joint", s + "_knee_joint", s + "_shoulder_pitch_joint", s + "_shoulder_roll_joint"});
    p.rounded_limits.insert({s + "_wrist_roll_joint", s + "_wrist_pitch_joint", s + "_wrist_yaw_joint"});
    // Unitree's URDF says 35 N m for the ankles, its MJCF 50 (actuatorfrcrange).
    p.efforts[s + "_ankle_pitch_joint"] = {35.0, 50.0};
    p.efforts[s + "_ankle_roll_joint"] = {35.0, 50.0};
  }
  p.efforts["waist_roll_joint"] = {35.0, 50.0};
  p.efforts["waist_pitch_joint"] = {35.0, 50.0};
  expectSameRobot(p);
}

TEST(MjcfUnitree, H1UrdfAndMjcfAreTheSameRobot) {
  Pair p{"models/unitree/h1/h1.urdf", "models/unitree/h1/h1.xml", {}, {}, {}, {{"imu", "imu_link"}}};
  for (const char* side : {"left", "right"})
    p.rounded_rotations.insert(
        {std::string(side) + "_shoulder_pitch_joint", std::string(side) + "_shoulder_roll_joint"});
  expectSameRobot(p);
}

TEST(MjcfUnitree, GeomsAndWarnings) {
  const std::string g1 = testing::sharedFile("models/unitree/g1/g1_29dof.xml");
  const std::string h1 = testing::sharedFile("models/unitree/h1/h1.xml");
  if (g1.empty() || h1.empty()) GTEST_SKIP() << "../shared/models/unitree not found";
  std::vector<std::string> warnings;
  const Model m = io::loadMjcf(g1, {}, &warnings);
  int meshes = 0, collision = 0, visual = 0, missing = 0;
  for (const Geom& g : m.geoms()) {
    meshes += g.shape == GeomShape::Mesh;
    collision += g.collision;
    visual += g.visual;
    if (g.shape == GeomShape::Mesh) missing += !std::filesystem::exists(g.mesh);
  }
  EXPECT_EQ(m.geoms().size(), 73u);
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(meshes, 61);
  EXPECT_EQ(collision, 37);  // contype = conaffinity = 0 on the 36 visual-only meshes; as the URDF's 37 <collision>s
  EXPECT_EQ(visual, 73);     // groups 0 and 1
  std::string all;
  for (const std::string& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("<sensor>"), std::string::npos) << all;
  EXPECT_NE(all.find("worldbody geom 'floor'"), std::string::npos) << all;
  EXPECT_EQ(all.find("mesh geoms name files"), std::string::npos) << all;
  // The H1 ships without its meshes: kept as paths, one warning.
  warnings.clear();
  const Model h = io::loadMjcf(h1, {}, &warnings);
  EXPECT_EQ(h.geoms().size(), 41u);
  all.clear();
  for (const std::string& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("39 of 39 mesh geoms name files that do not exist"), std::string::npos) << all;
  EXPECT_NE(all.find("<keyframe>"), std::string::npos) << all;
  int h_collision = 0, h_visual = 0;
  for (const Geom& g : h.geoms()) {
    h_collision += g.collision;
    h_visual += g.visual;
  }
  EXPECT_EQ(h_collision, 20);  // class "collision" (group 3, hidden)
  EXPECT_EQ(h_visual, 21);     // class "visual" (group 2)
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
