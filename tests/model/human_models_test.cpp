// Built-in human models against the human-gazebo reference URDFs (../shared/models), and their
// height scaling.
#include "kinetrack/model/human_models.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// The 23 Xsens segments, written out here independently of humanSegmentNames().
// clang-format off
const std::vector<std::string> kSegments = {
    "Pelvis", "L5", "L3", "T12", "T8", "Neck", "Head",
    "RightShoulder", "RightUpperArm", "RightForeArm", "RightHand",
    "LeftShoulder", "LeftUpperArm", "LeftForeArm", "LeftHand",
    "RightUpperLeg", "RightLowerLeg", "RightFoot", "RightToe",
    "LeftUpperLeg", "LeftLowerLeg", "LeftFoot", "LeftToe"};
// clang-format on

TEST(HumanModels, SegmentNameListIsTheXsensLayout) { EXPECT_EQ(humanSegmentNames(), kSegments); }

// Topology as (joint name → (parent link, child link, axis, type)), independent of joint order.
struct JointInfo {
  std::string parent, child;
  Vector3d axis;
  JointType type;
  double lower, upper;
};
std::map<std::string, JointInfo> jointTable(const Model& m) {
  std::map<std::string, JointInfo> t;
  for (int j = 0; j < m.numJoints(); ++j) {
    const JointId id(j);
    t[m.jointName(id)] = {m.linkName(m.parentLink(id)), m.linkName(m.childLink(id)), m.jointAxis(id), m.jointType(id),
                          m.lowerPositionLimits()[j],   m.upperPositionLimits()[j]};
  }
  return t;
}

std::set<std::string> asSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

void expectSameTopologyAndAxes(const Model& generated, const Model& reference, const std::string& label) {
  EXPECT_EQ(generated.numJoints(), reference.numJoints()) << label;
  EXPECT_EQ(asSet(generated.jointNames()), asSet(reference.jointNames())) << label;
  EXPECT_EQ(asSet(generated.linkNames()), asSet(reference.linkNames())) << label;
  EXPECT_EQ(asSet(generated.frameNames()), asSet(reference.frameNames())) << label;
  EXPECT_EQ(generated.linkName(LinkId(0)), reference.linkName(LinkId(0))) << label;
  const auto g = jointTable(generated), r = jointTable(reference);
  for (const auto& [name, ref] : r) {
    const auto it = g.find(name);
    if (it == g.end()) {
      ADD_FAILURE() << label << ": generated model lacks joint " << name;
      continue;
    }
    EXPECT_EQ(it->second.parent, ref.parent) << label << " joint " << name;
    EXPECT_EQ(it->second.child, ref.child) << label << " joint " << name;
    EXPECT_LT((it->second.axis - ref.axis).norm(), 1e-12)
        << label << " joint " << name << ": axis " << it->second.axis.transpose() << " vs " << ref.axis.transpose();
  }
  // The hand COM frames hang from the hands in both.
  for (const char* f : {"RightHandCOM", "LeftHandCOM"}) {
    ASSERT_TRUE(generated.findFrame(f).has_value()) << label;
    ASSERT_TRUE(reference.findFrame(f).has_value()) << label;
    EXPECT_EQ(generated.linkName(generated.frameLink(generated.frameId(f))),
              reference.linkName(reference.frameLink(reference.frameId(f))))
        << label;
  }
}

// human66 with clinical limits (the labeller's model): human48's limits on the axes human48 has,
// widened by the margin, ±extra on the others; the same links and frames as the continuous one.
TEST(HumanModels, Human66ClinicalLimits) {
  HumanModelOptions o;
  o.clinical_limits = true;
  const Model m = makeHuman66(o), free = makeHuman66();
  const Model h48 = makeHuman48();
  EXPECT_EQ(m.numJoints(), 66);
  EXPECT_EQ(m.numLinks(), free.numLinks());
  constexpr double kDeg = M_PI / 180.0;
  for (int j = 0; j < m.numJoints(); ++j) {
    const std::string& name = m.jointName(JointId(j));
    EXPECT_EQ(m.jointType(JointId(j)), JointType::Revolute) << name;
    EXPECT_EQ(name, free.jointName(JointId(j)));
    const auto j48 = h48.findJoint(name);
    const double lo = j48 ? h48.lowerPositionLimits()[j48->value] - 15.0 * kDeg : -30.0 * kDeg;
    const double hi = j48 ? h48.upperPositionLimits()[j48->value] + 15.0 * kDeg : 30.0 * kDeg;
    EXPECT_NEAR(m.lowerPositionLimits()[j], lo, 1e-12) << name;
    EXPECT_NEAR(m.upperPositionLimits()[j], hi, 1e-12) << name;
  }
  EXPECT_NEAR(m.upperPositionLimits()[m.jointId("jRightKnee_roty").value], 150.0 * kDeg, 1e-12);
  EXPECT_NEAR(m.lowerPositionLimits()[m.jointId("jRightKnee_rotx").value], -30.0 * kDeg, 1e-12);
  o.extra_axis_limit_deg = 0.0;
  EXPECT_THROW((void)makeHuman66(o), InvalidArgument);
  o.extra_axis_limit_deg = 30.0;
  o.limit_margin_deg = -1.0;
  EXPECT_THROW((void)makeHuman66(o), InvalidArgument);
}

TEST(HumanModels, Human66Structure) {
  const Model m = makeHuman66();
  EXPECT_EQ(m.name(), "human66");
  EXPECT_EQ(m.numJoints(), 66);
  EXPECT_EQ(m.nv(), 72);
  EXPECT_EQ(m.baseType(), BaseType::Floating);
  // 23 segments + 2 massless dummy links per spherical joint (22 joints).
  EXPECT_EQ(m.numLinks(), 23 + 2 * 22);
  EXPECT_EQ(m.linkName(LinkId(0)), "Pelvis");
  for (const auto& s : kSegments) EXPECT_TRUE(m.findLink(s).has_value()) << s;
  for (int j = 0; j < m.numJoints(); ++j) {
    EXPECT_EQ(m.jointType(JointId(j)), JointType::Continuous) << m.jointName(JointId(j));
    EXPECT_EQ(m.lowerPositionLimits()[j], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(m.upperVelocityLimits()[j], std::numeric_limits<double>::infinity());
  }
  // Each spherical joint is rotx → roty → rotz through <Segment>_f1, _f2.
  const JointId x = m.jointId("jRightElbow_rotx"), y = m.jointId("jRightElbow_roty"), z = m.jointId("jRightElbow_rotz");
  EXPECT_EQ(m.linkName(m.parentLink(x)), "RightUpperArm");
  EXPECT_EQ(m.linkName(m.childLink(x)), "RightForeArm_f1");
  EXPECT_EQ(m.linkName(m.childLink(y)), "RightForeArm_f2");
  EXPECT_EQ(m.linkName(m.childLink(z)), "RightForeArm");
  EXPECT_EQ(m.axisKind(x), AxisKind::X);
  EXPECT_EQ(m.axisKind(y), AxisKind::Y);
  EXPECT_EQ(m.axisKind(z), AxisKind::Z);
  EXPECT_EQ(m.frameKind(m.frameId("RightHandCOM")), FrameKind::Fixed);
  EXPECT_EQ(m.numFrames(), m.numLinks() + 2);
}

TEST(HumanModels, Human48Structure) {
  const Model m = makeHuman48();
  EXPECT_EQ(m.name(), "human48");
  EXPECT_EQ(m.numJoints(), 48);
  EXPECT_EQ(m.numLinks(), 1 + 48);
  for (const auto& s : kSegments) EXPECT_TRUE(m.findLink(s).has_value()) << s;
  for (int j = 0; j < m.numJoints(); ++j) {
    EXPECT_EQ(m.jointType(JointId(j)), JointType::Revolute);
    EXPECT_TRUE(std::isfinite(m.lowerPositionLimits()[j]));
    EXPECT_LT(m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  }
  // Knees only flex one way.
  EXPECT_EQ(m.lowerPositionLimits()[m.jointId("jRightKnee_roty").value], 0.0);
}

TEST(HumanModels, Human66MatchesHumanGazeboSubject01) {
  KINETRACK_REQUIRE_SHARED(path, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  const Model ref = io::loadUrdf(path);
  ASSERT_EQ(ref.numJoints(), 66);
  expectSameTopologyAndAxes(makeHuman66(), ref, "humanSubject01_66dof");
}

TEST(HumanModels, Human48MatchesEveryHumanGazebo48DofModel) {
  KINETRACK_REQUIRE_SHARED(dir, "models/human-gazebo");
  const Model gen = makeHuman48();
  int files = 0;
  for (int subject = 1; subject <= 8; ++subject) {
    const std::string id = "humanSubject0" + std::to_string(subject);
    const std::string rel = "models/human-gazebo/" + id + "/" + id + "_48dof.urdf";
    KINETRACK_REQUIRE_SHARED(path, rel);
    const Model ref = io::loadUrdf(path);
    ASSERT_EQ(ref.numJoints(), 48) << rel;
    expectSameTopologyAndAxes(gen, ref, rel);
    // Position limits: the URDF writes radians to 6 significant digits.
    for (int j = 0; j < ref.numJoints(); ++j) {
      const std::string& name = ref.jointName(JointId(j));
      const auto gj = gen.findJoint(name);
      if (!gj) continue;  // reported above
      EXPECT_NEAR(gen.lowerPositionLimits()[gj->value], ref.lowerPositionLimits()[j], 1e-5) << rel << " " << name;
      EXPECT_NEAR(gen.upperPositionLimits()[gj->value], ref.upperPositionLimits()[j], 1e-5) << rel << " " << name;
    }
    ++files;
  }
  EXPECT_EQ(files, 8);
}

// Every segment offset (joint placement and frame placement) is proportional to body height.
TEST(HumanModels, HeightScalesSegmentOffsetsLinearly) {
  for (const char* name : {"human66", "human48"}) {
    const Model base = makeBuiltinModel(name, 1.75);
    double longest = 0.0;
    for (double h : {0.5, 1.2, 1.52, 2.01, 2.5}) {
      const Model m = makeBuiltinModel(name, h);
      ASSERT_EQ(m.jointNames(), base.jointNames());
      for (int j = 0; j < m.numJoints(); ++j) {
        const Vector3d expected = base.jointPlacement(JointId(j)).p * (h / 1.75);
        EXPECT_LT((m.jointPlacement(JointId(j)).p - expected).norm(), 1e-14) << name << " h=" << h;
        EXPECT_EQ(m.jointPlacement(JointId(j)).R, base.jointPlacement(JointId(j)).R);
        EXPECT_EQ(m.jointAxis(JointId(j)), base.jointAxis(JointId(j)));
        longest = std::max(longest, m.jointPlacement(JointId(j)).p.norm());
      }
      for (int f = 0; f < m.numFrames(); ++f) {
        const Vector3d expected = base.framePlacement(FrameId(f)).p * (h / 1.75);
        EXPECT_LT((m.framePlacement(FrameId(f)).p - expected).norm(), 1e-14) << name << " h=" << h;
      }
    }
    EXPECT_GT(longest, 0.3);  // offsets are not all zero
  }
  // Default options = 1.75 m.
  const Model d = makeHuman48();
  const Model e = makeBuiltinModel("human48", 1.75);
  for (int j = 0; j < d.numJoints(); ++j) EXPECT_EQ(d.jointPlacement(JointId(j)).p, e.jointPlacement(JointId(j)).p);
}

TEST(HumanModels, PlausibleProportionsAtDefaultHeight) {
  const HumanDimensions d = HumanDimensions::fromHeight(1.75);
  // Standing height ≈ leg + trunk + head: the hip-to-ankle length is about half the height.
  EXPECT_NEAR((d.thigh + d.shank) / 1.75, 0.49, 0.05);
  EXPECT_GT(d.upper_arm, d.forearm);
  // A human-gazebo subject of similar size has comparable segment lengths (within 35 %).
  const std::string path = testing::sharedFile("models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf");
  if (path.empty()) return;
  const Model ref = io::loadUrdf(path);
  const Model gen = makeHuman48();
  for (const char* j : {"jRightKnee_roty", "jRightAnkle_rotx", "jRightElbow_roty", "jRightWrist_rotx"}) {
    const double lr = ref.jointPlacement(ref.jointId(j)).p.norm(), lg = gen.jointPlacement(gen.jointId(j)).p.norm();
    EXPECT_NEAR(lg / lr, 1.0, 0.35) << j << ": generated " << lg << " m, subject01 " << lr << " m";
  }
}

TEST(HumanModels, ImplausibleHeightOrUnknownNameThrows) {
  for (double h : {0.0, 0.49, 2.51, -1.75, 100.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW((void)HumanDimensions::fromHeight(h), InvalidArgument) << h;
    EXPECT_THROW((void)makeBuiltinModel("human66", h), InvalidArgument) << h;
  }
  EXPECT_NO_THROW((void)HumanDimensions::fromHeight(0.5));
  EXPECT_NO_THROW((void)HumanDimensions::fromHeight(2.5));
  try {
    (void)makeBuiltinModel("human99");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("human99"), std::string::npos) << msg;
    for (const auto& valid : builtinModelNames()) EXPECT_NE(msg.find(valid), std::string::npos) << msg;
  }
  EXPECT_EQ(builtinModelNames(), (std::vector<std::string>{"human66", "human48"}));
  // Overridden dimensions are validated too.
  HumanModelOptions o;
  o.dimensions.thigh = -0.1;
  EXPECT_THROW((void)makeHuman48(o), InvalidArgument);
  o.dimensions.thigh = std::nan("");
  EXPECT_THROW((void)makeHuman66(o), InvalidArgument);
}

TEST(HumanModels, FixedBaseOption) {
  HumanModelOptions o;
  o.base = BaseType::Fixed;
  EXPECT_EQ(makeHuman66(o).nv(), 66);
  EXPECT_EQ(makeHuman48(o).nv(), 48);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
