// ModelBuilder and Model: name → id resolution, validation, tree order, support lists, fixed-link
// merging, linear constraints, mimic joints and axis classification.
#include "kinetrack/model/model_builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

JointSpec revolute(const std::string& name, const std::string& parent, const std::string& child,
                   const Vector3d& axis = Vector3d::UnitZ(), const Vector3d& p = Vector3d(0, 0, 0.1)) {
  JointSpec s;
  s.name = name;
  s.type = JointType::Revolute;
  s.parent = parent;
  s.child = child;
  s.placement.p = p;
  s.axis = axis;
  s.lower = -1.0;
  s.upper = 1.0;
  s.velocity = 2.0;
  s.effort = 10.0;
  return s;
}

// A small branching tree:
//   base ─ j_torso ─ torso ─┬─ j_l1 ─ l1 ─ j_l2 ─ l2
//                           └─ j_r1 ─ r1 ─ j_r2 ─ r2
//   base ─ j_leg ─ leg
ModelBuilder branchingBuilder() {
  ModelBuilder b("tree", "base");
  b.addJoint(revolute("j_torso", "base", "torso"));
  b.addJoint(revolute("j_l1", "torso", "l1", Vector3d::UnitX()));
  b.addJoint(revolute("j_r1", "torso", "r1", -Vector3d::UnitX()));
  b.addJoint(revolute("j_l2", "l1", "l2", Vector3d::UnitY()));
  b.addJoint(revolute("j_leg", "base", "leg", -Vector3d::UnitZ()));
  b.addJoint(revolute("j_r2", "r1", "r2", -Vector3d::UnitY()));
  return b;
}

TEST(ModelBuilder, NamesResolveToIds) {
  const Model m = branchingBuilder().build();
  EXPECT_EQ(m.name(), "tree");
  EXPECT_EQ(m.numJoints(), 6);
  EXPECT_EQ(m.numLinks(), 7);
  EXPECT_EQ(m.numFrames(), 7);
  EXPECT_EQ(m.nv(), 12);
  for (int j = 0; j < m.numJoints(); ++j) EXPECT_EQ(m.jointId(m.jointName(JointId(j))), JointId(j));
  for (int l = 0; l < m.numLinks(); ++l) EXPECT_EQ(m.linkId(m.linkName(LinkId(l))), LinkId(l));
  for (int f = 0; f < m.numFrames(); ++f) EXPECT_EQ(m.frameId(m.frameName(FrameId(f))), FrameId(f));
  EXPECT_EQ(m.linkName(LinkId(0)), "base");
  EXPECT_EQ(m.jointName(m.jointId("j_l2")), "j_l2");
  // Joint j moves link j + 1, and the link's body frame carries the link's name.
  const JointId jl2 = m.jointId("j_l2");
  EXPECT_EQ(m.linkName(m.childLink(jl2)), "l2");
  EXPECT_EQ(m.linkName(m.parentLink(jl2)), "l1");
  EXPECT_EQ(m.jointOfLink(m.linkId("l2")), jl2);
  EXPECT_EQ(m.frameName(m.linkFrame(m.linkId("r2"))), "r2");
  EXPECT_EQ(m.frameKind(m.frameId("r2")), FrameKind::Link);
  EXPECT_TRUE(m.frameIsLinkFrame(m.frameId("r2")));
  EXPECT_FALSE(m.parent(LinkId(0)).valid());
  EXPECT_FALSE(m.jointOfLink(LinkId(0)).valid());
  // Optional lookups.
  EXPECT_FALSE(m.findJoint("nope").has_value());
  EXPECT_FALSE(m.findLink("j_l2").has_value());  // joint names are not link names
  EXPECT_FALSE(m.findFrame("").has_value());
  ASSERT_TRUE(m.findLink("leg").has_value());
  EXPECT_EQ(*m.findLink("leg"), m.linkId("leg"));
}

template <class F>
std::string invalidArgumentMessage(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("WRONG EXCEPTION TYPE: ") + e.what();
  }
  return "NO EXCEPTION";
}

TEST(ModelBuilder, UnknownNamesThrowListingTheValidOnes) {
  const Model m = branchingBuilder().build();
  const std::string joint_msg = invalidArgumentMessage([&] { (void)m.jointId("j_elbow"); });
  EXPECT_NE(joint_msg.find("j_elbow"), std::string::npos) << joint_msg;
  for (const auto& name : m.jointNames()) EXPECT_NE(joint_msg.find(name), std::string::npos) << joint_msg;
  const std::string link_msg = invalidArgumentMessage([&] { (void)m.linkId("arm"); });
  EXPECT_NE(link_msg.find("arm"), std::string::npos) << link_msg;
  for (const auto& name : m.linkNames()) EXPECT_NE(link_msg.find(name), std::string::npos) << link_msg;
  const std::string frame_msg = invalidArgumentMessage([&] { (void)m.frameId("marker"); });
  for (const auto& name : m.frameNames()) EXPECT_NE(frame_msg.find(name), std::string::npos) << frame_msg;
  // InvalidArgument is a std::invalid_argument.
  EXPECT_THROW((void)m.jointId("x"), std::invalid_argument);
  // A parent that does not exist, at build time, lists the known links and frames.
  ModelBuilder b = branchingBuilder();
  const std::string parent_msg = invalidArgumentMessage([&] { b.addJoint(revolute("j_x", "arm", "x")); });
  EXPECT_NE(parent_msg.find("'arm'"), std::string::npos) << parent_msg;
  EXPECT_NE(parent_msg.find("j_x"), std::string::npos) << parent_msg;
  for (const char* known : {"base", "torso", "l1", "l2", "r1", "r2", "leg"})
    EXPECT_NE(parent_msg.find(known), std::string::npos) << parent_msg;
}

TEST(ModelBuilder, DuplicateNamesAreRejected) {
  ModelBuilder b = branchingBuilder();
  EXPECT_THROW(b.addJoint(revolute("j_l1", "torso", "new_link")), InvalidArgument);  // joint name
  EXPECT_THROW(b.addJoint(revolute("j_new", "torso", "l1")), InvalidArgument);       // child link
  EXPECT_THROW(b.addJoint(revolute("j_new", "torso", "base")), InvalidArgument);     // the root
  EXPECT_THROW(b.addFixedLink("torso", "base", Transform{}), InvalidArgument);
  EXPECT_THROW(b.addFrame("leg", "base", Transform{}), InvalidArgument);
  b.addFrame("marker", "l2", Transform{});
  EXPECT_THROW(b.addFrame("marker", "r2", Transform{}), InvalidArgument);
  EXPECT_THROW(b.addFixedLink("marker", "r2", Transform{}), InvalidArgument);
  EXPECT_THROW(b.addJoint(revolute("j_new", "r2", "marker")), InvalidArgument);
  // Nothing was added by the failed calls.
  EXPECT_EQ(b.numJoints(), 6);
  const Model m = b.build();
  EXPECT_EQ(m.numJoints(), 6);
  EXPECT_EQ(m.numFrames(), 8);
}

TEST(ModelBuilder, ParentsBeforeChildrenAndSupportLists) {
  const Model m = branchingBuilder().build();
  for (int l = 1; l < m.numLinks(); ++l) EXPECT_LT(m.parent(LinkId(l)).value, l) << m.linkName(LinkId(l));
  auto names = [&](LinkId l) {
    std::vector<std::string> out;
    for (std::int32_t j : m.support(l)) out.push_back(m.jointName(JointId(j)));
    return out;
  };
  EXPECT_TRUE(m.support(m.linkId("base")).empty());
  EXPECT_EQ(names(m.linkId("torso")), (std::vector<std::string>{"j_torso"}));
  EXPECT_EQ(names(m.linkId("l2")), (std::vector<std::string>{"j_torso", "j_l1", "j_l2"}));
  EXPECT_EQ(names(m.linkId("r2")), (std::vector<std::string>{"j_torso", "j_r1", "j_r2"}));
  EXPECT_EQ(names(m.linkId("leg")), (std::vector<std::string>{"j_leg"}));
  // In general: support(l) = support(parent(l)) + joint of l.
  for (int l = 1; l < m.numLinks(); ++l) {
    std::vector<std::int32_t> expected = m.support(m.parent(LinkId(l)));
    expected.push_back(m.jointOfLink(LinkId(l)).value);
    EXPECT_EQ(m.support(LinkId(l)), expected);
  }
}

TEST(ModelBuilder, JointPropertiesAndLimits) {
  ModelBuilder b("j", "root", BaseType::Fixed);
  JointSpec c = revolute("cont", "root", "a");
  c.type = JointType::Continuous;
  c.lower = 5.0;  // ignored for continuous joints, even when lower > upper
  c.upper = -5.0;
  b.addJoint(c);
  JointSpec p = revolute("slide", "a", "b", Vector3d(0, 0, 3));
  p.type = JointType::Prismatic;
  p.lower = -0.2;
  p.upper = 0.4;
  p.velocity = 0.5;
  b.addJoint(p);
  JointSpec free_limits = revolute("free", "b", "c");
  free_limits.lower = -kInf;
  free_limits.upper = kInf;
  free_limits.velocity = kInf;
  free_limits.effort = kInf;
  b.addJoint(free_limits);
  const Model m = b.build();
  EXPECT_EQ(m.baseType(), BaseType::Fixed);
  EXPECT_EQ(m.nvBase(), 0);
  EXPECT_EQ(m.nv(), 3);
  EXPECT_EQ(m.jointType(JointId(0)), JointType::Continuous);
  EXPECT_EQ(m.lowerPositionLimits()[0], -kInf);
  EXPECT_EQ(m.upperPositionLimits()[0], kInf);
  EXPECT_EQ(m.jointType(JointId(1)), JointType::Prismatic);
  EXPECT_EQ(m.lowerPositionLimits()[1], -0.2);
  EXPECT_EQ(m.upperPositionLimits()[1], 0.4);
  EXPECT_EQ(m.lowerVelocityLimits()[1], -0.5);
  EXPECT_EQ(m.upperVelocityLimits()[1], 0.5);
  EXPECT_EQ(m.effortLimits()[1], 10.0);
  EXPECT_EQ(m.jointAxis(JointId(1)), Vector3d::UnitZ());  // normalised
  EXPECT_EQ(m.upperVelocityLimits()[2], kInf);
  EXPECT_EQ(m.lowerVelocityLimits()[2], -kInf);
  EXPECT_EQ(m.jointPlacement(JointId(1)).p, Vector3d(0, 0, 0.1));
  EXPECT_TRUE(m.placementRotationIsIdentity(JointId(1)));
  EXPECT_FALSE(m.placementTranslationIsZero(JointId(1)));
  EXPECT_STREQ(toString(JointType::Prismatic), "prismatic");
  EXPECT_STREQ(toString(BaseType::Fixed), "fixed");
  EXPECT_STREQ(toString(FrameKind::User), "user");
}

TEST(ModelBuilder, AxisClassification) {
  ModelBuilder b("axes", "root");
  const std::vector<std::pair<Vector3d, AxisKind>> cases = {
      {{1, 0, 0}, AxisKind::X},           {{0, 1, 0}, AxisKind::Y},         {{0, 0, 1}, AxisKind::Z},
      {{-1, 0, 0}, AxisKind::NegX},       {{0, -1, 0}, AxisKind::NegY},     {{0, 0, -1}, AxisKind::NegZ},
      {{0, 0, 2.5}, AxisKind::Z},         {{-3, 0, 0}, AxisKind::NegX},     {{1, 1, 0}, AxisKind::General},
      {{0.6, 0, 0.8}, AxisKind::General}, {{1, 1e-6, 0}, AxisKind::General}};
  std::string parent = "root";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string child = std::string("l") + std::to_string(i);  // "l" + …: bogus -Wrestrict (GCC PR 105329)
    b.addJoint(revolute(std::string("j") + std::to_string(i), parent, child, cases[i].first));
    parent = child;
  }
  const Model m = b.build();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const JointId j(static_cast<int>(i));
    EXPECT_EQ(m.axisKind(j), cases[i].second) << "axis " << cases[i].first.transpose();
    EXPECT_NEAR(m.jointAxis(j).norm(), 1.0, 1e-15);
    EXPECT_LT((m.jointAxis(j) - cases[i].first.normalized()).norm(), 1e-15);
  }
}

TEST(ModelBuilder, InvalidInputsThrow) {
  ModelBuilder b("bad", "root");
  auto with = [](auto mutate) {
    JointSpec s = revolute("j", "root", "child");
    mutate(s);
    return s;
  };
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.lower = kNaN; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.upper = kNaN; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.velocity = kNaN; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.effort = kNaN; })), InvalidArgument);
  const std::string order = invalidArgumentMessage([&] {
    b.addJoint(with([](JointSpec& s) {
      s.lower = 1.0;
      s.upper = -1.0;
    }));
  });
  EXPECT_NE(order.find("joint 'j'"), std::string::npos) << order;
  EXPECT_NE(order.find("lower"), std::string::npos) << order;
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.axis = Vector3d::Zero(); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.axis = Vector3d(kNaN, 0, 1); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.axis = Vector3d(kInf, 0, 0); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.velocity = -1.0; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.effort = -1.0; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.name.clear(); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.child.clear(); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.placement.p.x() = kNaN; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.placement.R(0, 0) = 2.0; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.placement.R = -Matrix3d::Identity(); })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.child_inertial.mass = -1.0; })), InvalidArgument);
  EXPECT_THROW(b.addJoint(with([](JointSpec& s) { s.child_inertial.com.x() = kNaN; })), InvalidArgument);
  EXPECT_THROW(ModelBuilder("m", ""), InvalidArgument);
  Inertial bad;
  bad.mass = kNaN;
  EXPECT_THROW(ModelBuilder("m", "root", BaseType::Floating, bad), InvalidArgument);
  EXPECT_THROW(b.addFixedLink("f", "root", Transform{}, bad), InvalidArgument);
  Transform nan_t;
  nan_t.p.y() = kNaN;
  EXPECT_THROW(b.addFixedLink("f", "root", nan_t), InvalidArgument);
  EXPECT_THROW(b.addFrame("f", "root", nan_t), InvalidArgument);
  EXPECT_THROW(b.addFrame("", "root", Transform{}), InvalidArgument);
  EXPECT_THROW(b.addFrame("f", "nowhere", Transform{}), InvalidArgument);
  // None of the failed calls left anything behind; a valid joint still goes in.
  EXPECT_EQ(b.numJoints(), 0);
  EXPECT_NO_THROW(b.addJoint(revolute("j", "root", "child")));
  EXPECT_EQ(b.build().numJoints(), 1);
}

TEST(ModelBuilder, CombineInertialsHandComputed) {
  // Two bodies of 2 kg, b rotated 90° about z and 1 m along x: COM at x = 0.5; b's principal
  // inertia diag(1,2,3) seen in a's axes is diag(2,1,3); each body is 0.5 m off the joint COM:
  // parallel axis 2·(0.25·I − diag(0.25,0,0)) = diag(0, 0.5, 0.5) each.
  Inertial a, b;
  a.mass = 2.0;
  a.inertia = Matrix3d::Identity();
  b.mass = 2.0;
  b.inertia = Eigen::Vector3d(1, 2, 3).asDiagonal();
  Transform X;
  X.p = {1, 0, 0};
  X.R = so3::axisAngle(Vector3d::UnitZ(), M_PI / 2);
  const Inertial c = combineInertials(a, b, X);
  EXPECT_DOUBLE_EQ(c.mass, 4.0);
  EXPECT_LT((c.com - Vector3d(0.5, 0, 0)).norm(), 1e-15);
  const Matrix3d expected = Eigen::Vector3d(3, 3, 5).asDiagonal();
  EXPECT_LT((c.inertia - expected).cwiseAbs().maxCoeff(), 1e-14) << c.inertia;

  // Two 1 kg point masses at the origin and at b's COM (0, 1, 1) in a (b's COM is offset in b's
  // own frame): COM (0, 0.5, 0.5), I = Σ m(|d|²I − ddᵀ) = [[1,0,0],[0,.5,−.5],[0,−.5,.5]].
  Inertial p1, p2;
  p1.mass = 1.0;
  p2.mass = 1.0;
  p2.com = {0, 0, 1};
  Transform Y;
  Y.p = {0, 1, 0};
  const Inertial d = combineInertials(p1, p2, Y);
  EXPECT_DOUBLE_EQ(d.mass, 2.0);
  EXPECT_LT((d.com - Vector3d(0, 0.5, 0.5)).norm(), 1e-15);
  Matrix3d Id;
  Id << 1, 0, 0, 0, 0.5, -0.5, 0, -0.5, 0.5;
  EXPECT_LT((d.inertia - Id).cwiseAbs().maxCoeff(), 1e-15) << d.inertia;

  // Massless bodies combine to a massless body.
  EXPECT_EQ(combineInertials(Inertial{}, Inertial{}, X).mass, 0.0);
  // Adding a massless body changes nothing.
  const Inertial e = combineInertials(c, Inertial{}, X);
  EXPECT_DOUBLE_EQ(e.mass, c.mass);
  EXPECT_LT((e.com - c.com).norm(), 1e-15);
  EXPECT_LT((e.inertia - c.inertia).norm(), 1e-14);
}

TEST(ModelBuilder, FixedLinksAreMergedIntoTheirLink) {
  Inertial root_in;
  root_in.mass = 2.0;
  root_in.inertia = Matrix3d::Identity();
  ModelBuilder b("merge", "root", BaseType::Floating, root_in);
  Transform X1, X2, Xj, Xu;
  X1.p = {1, 0, 0};
  X1.R = so3::axisAngle(Vector3d::UnitZ(), M_PI / 2);
  X2.p = {0, 0.5, 0.2};
  X2.R = so3::fromRpy({0.3, -0.2, 0.1});
  Xj.p = {0.1, 0.2, 0.3};
  Xj.R = so3::fromRpy({-0.4, 0.5, 0.6});
  Xu.p = {0.0, -0.1, 0.05};
  Inertial plate;
  plate.mass = 2.0;
  plate.inertia = Eigen::Vector3d(1, 2, 3).asDiagonal();
  Inertial sensor;
  sensor.mass = 0.5;
  sensor.com = {0.01, 0.02, 0.03};
  sensor.inertia = Eigen::Vector3d(0.1, 0.2, 0.3).asDiagonal();
  b.addFixedLink("plate", "root", X1, plate, "root_to_plate");
  b.addFixedLink("sensor", "plate", X2, sensor, "plate_to_sensor");
  JointSpec j = revolute("j", "sensor", "arm");  // a joint hanging from a merged frame
  j.placement = Xj;
  b.addJoint(j);
  b.addFrame("marker", "sensor", Xu);
  const Model m = b.build();

  // Merged links are frames of the root link, not links.
  EXPECT_EQ(m.numLinks(), 2);
  EXPECT_EQ(m.numJoints(), 1);
  EXPECT_EQ(m.numFrames(), 5);
  EXPECT_FALSE(m.findLink("plate").has_value());
  const FrameId fp = m.frameId("plate"), fs = m.frameId("sensor"), fm = m.frameId("marker");
  EXPECT_EQ(m.frameKind(fp), FrameKind::Fixed);
  EXPECT_EQ(m.frameKind(fs), FrameKind::Fixed);
  EXPECT_EQ(m.frameKind(fm), FrameKind::User);
  EXPECT_FALSE(m.frameIsLinkFrame(fs));
  EXPECT_EQ(m.frameLink(fs), LinkId(0));
  EXPECT_EQ(m.frameLink(fm), LinkId(0));
  EXPECT_EQ(m.frameJointName(fs), "plate_to_sensor");
  EXPECT_EQ(m.frameParent(fs), fp);
  EXPECT_EQ(m.frameParent(fm), fs);
  EXPECT_EQ(m.frameParent(fp), m.linkFrame(LinkId(0)));

  // Placements composed along the fixed chain, in the link frame.
  const Transform X12 = compose(X1, X2);
  EXPECT_LT((m.framePlacement(fp).p - X1.p).norm(), 1e-15);
  EXPECT_LT((m.framePlacement(fs).R - X12.R).norm(), 1e-15);
  EXPECT_LT((m.framePlacement(fs).p - X12.p).norm(), 1e-15);
  const Transform X12u = compose(X12, Xu);
  EXPECT_LT((m.framePlacement(fm).p - X12u.p).norm(), 1e-15);
  // The joint's placement is re-expressed in the parent *link* frame.
  const Transform X12j = compose(X12, Xj);
  EXPECT_EQ(m.linkName(m.parentLink(JointId(0))), "root");
  EXPECT_LT((m.jointPlacement(JointId(0)).R - X12j.R).norm(), 1e-15);
  EXPECT_LT((m.jointPlacement(JointId(0)).p - X12j.p).norm(), 1e-15);
  EXPECT_FALSE(m.placementRotationIsIdentity(JointId(0)));

  // Inertia combined: root ⊕ plate ⊕ sensor, each placed by its composed transform.
  const Inertial expected = combineInertials(combineInertials(root_in, plate, X1), sensor, X12);
  const Inertial& got = m.inertial(LinkId(0));
  EXPECT_DOUBLE_EQ(got.mass, 4.5);
  EXPECT_LT((got.com - expected.com).norm(), 1e-15);
  EXPECT_LT((got.inertia - expected.inertia).cwiseAbs().maxCoeff(), 1e-14);
  // Hand check of the first merge (see CombineInertialsHandComputed): mass 4, COM (0.5, 0, 0).
  const Inertial first = combineInertials(root_in, plate, X1);
  EXPECT_LT((first.inertia - Matrix3d(Eigen::Vector3d(3, 3, 5).asDiagonal())).norm(), 1e-14);
  // Mass-weighted COM of the three bodies.
  const Vector3d com_expected = (2.0 * Vector3d::Zero() + 2.0 * X1.p + 0.5 * (X12.p + X12.R * sensor.com)) / 4.5;
  EXPECT_LT((got.com - com_expected).norm(), 1e-15);
}

TEST(ModelBuilder, LinearConstraints) {
  ModelBuilder b = branchingBuilder();
  b.addLinearConstraint("couple", {{"j_l1", 1.0}, {"j_l2", -2.0}, {"j_l1", 0.5}}, -0.3, 0.4, 1.5);
  b.addLinearConstraint("one_sided", {{"j_leg", 1.0}}, -kInf, 0.2);
  const Model m = b.build();
  ASSERT_EQ(m.linearConstraints().size(), 2u);
  const LinearConstraint& c = m.linearConstraints()[0];
  EXPECT_EQ(c.name, "couple");
  ASSERT_EQ(c.coefficients.size(), m.numJoints());
  VectorXd expected = VectorXd::Zero(m.numJoints());
  expected[m.jointId("j_l1").value] = 1.5;  // repeated terms add up
  expected[m.jointId("j_l2").value] = -2.0;
  EXPECT_EQ(c.coefficients, expected);
  EXPECT_EQ(c.lower, -0.3);
  EXPECT_EQ(c.upper, 0.4);
  EXPECT_EQ(c.velocity_bound, 1.5);
  EXPECT_EQ(m.linearConstraints()[1].lower, -kInf);
  EXPECT_EQ(m.linearConstraints()[1].velocity_bound, kInf);

  EXPECT_THROW(b.addLinearConstraint("bad", {{"j_l1", 1.0}}, 1.0, 0.0), InvalidArgument);
  EXPECT_THROW(b.addLinearConstraint("bad", {{"j_l1", 1.0}}, kNaN, 0.0), InvalidArgument);
  EXPECT_THROW(b.addLinearConstraint("bad", {{"j_l1", 1.0}}, 0.0, 1.0, -1.0), InvalidArgument);
  EXPECT_THROW(b.addLinearConstraint("bad", {{"j_l1", kNaN}}, 0.0, 1.0), InvalidArgument);
  // An unknown joint is reported at build time, listing the valid joints.
  ModelBuilder b2 = branchingBuilder();
  b2.addLinearConstraint("typo", {{"j_l3", 1.0}}, 0.0, 1.0);
  const std::string msg = invalidArgumentMessage([&] { (void)b2.build(); });
  EXPECT_NE(msg.find("j_l3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("typo"), std::string::npos) << msg;
  for (const char* name : {"j_torso", "j_l1", "j_r1", "j_l2", "j_leg", "j_r2"})
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
}

TEST(ModelBuilder, MimicBecomesAnEqualityRow) {
  ModelBuilder b = branchingBuilder();
  b.addMimic("j_r2", "j_l2", -0.5, 0.1);
  const Model m = b.build();
  ASSERT_EQ(m.mimics().size(), 1u);
  EXPECT_EQ(m.mimics()[0].joint, m.jointId("j_r2"));
  EXPECT_EQ(m.mimics()[0].master, m.jointId("j_l2"));
  EXPECT_EQ(m.mimics()[0].multiplier, -0.5);
  EXPECT_EQ(m.mimics()[0].offset, 0.1);
  ASSERT_EQ(m.linearConstraints().size(), 1u);
  const LinearConstraint& c = m.linearConstraints()[0];
  EXPECT_EQ(c.name, "mimic:j_r2");
  // s_r2 − (−0.5) s_l2 = 0.1, as lower = upper = 0.1.
  VectorXd expected = VectorXd::Zero(m.numJoints());
  expected[m.jointId("j_r2").value] = 1.0;
  expected[m.jointId("j_l2").value] = 0.5;
  EXPECT_EQ(c.coefficients, expected);
  EXPECT_EQ(c.lower, 0.1);
  EXPECT_EQ(c.upper, 0.1);
  // A configuration satisfying the mimic satisfies the row.
  VectorXd s = VectorXd::Zero(m.numJoints());
  s[m.jointId("j_l2").value] = 0.8;
  s[m.jointId("j_r2").value] = -0.5 * 0.8 + 0.1;
  EXPECT_NEAR(c.coefficients.dot(s), c.lower, 1e-15);

  ModelBuilder self = branchingBuilder();
  self.addMimic("j_r2", "j_r2", 1.0, 0.0);
  EXPECT_THROW((void)self.build(), InvalidArgument);
  ModelBuilder unknown = branchingBuilder();
  unknown.addMimic("j_r2", "j_zz", 1.0, 0.0);
  const std::string msg = invalidArgumentMessage([&] { (void)unknown.build(); });
  EXPECT_NE(msg.find("j_zz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("j_torso"), std::string::npos) << msg;
  EXPECT_THROW(branchingBuilder().addMimic("j_r2", "j_l2", kNaN, 0.0), InvalidArgument);
  EXPECT_THROW(branchingBuilder().addMimic("j_r2", "j_l2", 1.0, kInf), InvalidArgument);
}

TEST(ModelBuilder, BuilderCanBeReused) {
  ModelBuilder b = branchingBuilder();
  const Model m1 = b.build();
  b.addJoint(revolute("j_extra", "l2", "extra"));
  const Model m2 = b.build();
  EXPECT_EQ(m1.numJoints(), 6);
  EXPECT_EQ(m2.numJoints(), 7);
  EXPECT_EQ(m2.jointNames()[6], "j_extra");
  EXPECT_EQ(m1.jointNames(), std::vector<std::string>(m2.jointNames().begin(), m2.jointNames().end() - 1));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
