// Mass properties of the built-in human models (de Leva 1996, Table 4; docs/anthropometry.md),
// checkMassProperties, and their round trip through URDF.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/mass_properties.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

Model human(const std::string& name, double height, double mass, Sex sex = Sex::Male) {
  HumanModelOptions o;
  o.dimensions = HumanDimensions::fromHeight(height);
  o.mass = mass;
  o.sex = sex;
  return name == "human66" ? makeHuman66(o) : makeHuman48(o);
}

double massOf(const Model& m, const std::string& link) { return m.inertial(m.linkId(link)).mass; }

TEST(Anthropometry, TotalMassEqualsBodyMass) {
  for (const char* name : {"human66", "human48"})
    for (double h : {0.5, 1.52, 1.75, 2.01, 2.5})
      for (double mass : {20.0, 55.5, 73.0, 80.0, 300.0})
        for (Sex sex : {Sex::Male, Sex::Female})
          EXPECT_NEAR(human(name, h, mass, sex).totalMass(), mass, 1e-12 * mass) << name << " " << h << " " << mass;
  EXPECT_DOUBLE_EQ(makeHuman66().totalMass(), kDefaultBodyMass);
  EXPECT_DOUBLE_EQ(makeBuiltinModel("human48", 1.8, 90.0).totalMass(), 90.0);
}

TEST(Anthropometry, OnlySegmentLinksHaveMass) {
  const Model m = makeHuman66();
  int with_mass = 0;
  for (int l = 0; l < m.numLinks(); ++l) {
    const bool dummy = m.linkName(LinkId(l)).find("_f") != std::string::npos;
    EXPECT_EQ(m.inertial(LinkId(l)).mass > 0.0, !dummy) << m.linkName(LinkId(l));
    with_mass += m.inertial(LinkId(l)).mass > 0.0;
  }
  EXPECT_EQ(with_mass, 23);
}

TEST(Anthropometry, SegmentFractionsMatchDeLevaTable4) {
  // Typed again from de Leva (1996) Table 4 (male / female mass, % of body mass).
  for (Sex sex : {Sex::Male, Sex::Female}) {
    const bool male = sex == Sex::Male;
    const double norm = male ? 1.0 : 0.9999;  // the female column sums to 99.99 %
    const Model m = human("human48", 1.75, 100.0, sex);
    auto pct = [&](std::initializer_list<const char*> links) {
      double s = 0.0;
      for (const char* l : links) s += massOf(m, l);
      return s * norm;  // body mass 100 kg: kg = %
    };
    EXPECT_NEAR(pct({"RightUpperLeg"}), male ? 14.16 : 14.78, 1e-9);
    EXPECT_NEAR(pct({"LeftLowerLeg"}), male ? 4.33 : 4.81, 1e-9);
    EXPECT_NEAR(pct({"RightUpperArm"}), male ? 2.71 : 2.55, 1e-9);
    EXPECT_NEAR(pct({"LeftForeArm"}), male ? 1.62 : 1.38, 1e-9);
    EXPECT_NEAR(pct({"RightHand"}), male ? 0.61 : 0.56, 1e-9);
    EXPECT_NEAR(pct({"RightFoot", "RightToe"}), male ? 1.37 : 1.29, 1e-9);
    EXPECT_NEAR(pct({"Neck", "Head"}), male ? 6.94 : 6.68, 1e-9);
    EXPECT_NEAR(pct({"Pelvis"}), male ? 11.17 : 12.47, 1e-9);                                      // lower trunk
    EXPECT_NEAR(pct({"L5", "L3"}), male ? 16.33 : 14.65, 1e-9);                                    // middle trunk
    EXPECT_NEAR(pct({"T12", "T8", "RightShoulder", "LeftShoulder"}), male ? 15.96 : 15.45, 1e-9);  // upper
  }
  // Thigh COM 40.95 % of hip → knee from the hip, on the segment axis (−z).
  const Model m = human("human66", 1.75, 73.0);
  const HumanDimensions d = HumanDimensions::fromHeight(1.75);
  const Inertial& thigh = m.inertial(m.linkId("RightUpperLeg"));
  EXPECT_NEAR(thigh.com.z(), -0.4095 * d.thigh, 1e-14);
  EXPECT_NEAR(thigh.com.x(), 0.0, 1e-15);
  // Radii of gyration 32.9 / 32.9 / 14.9 % of the thigh length.
  const double m_thigh = 0.1416 * 73.0, L = d.thigh;
  EXPECT_NEAR(thigh.inertia(0, 0), m_thigh * std::pow(0.329 * L, 2), 1e-12);
  EXPECT_NEAR(thigh.inertia(1, 1), m_thigh * std::pow(0.329 * L, 2), 1e-12);
  EXPECT_NEAR(thigh.inertia(2, 2), m_thigh * std::pow(0.149 * L, 2), 1e-12);
  // Upper arm COM 57.72 % from the shoulder along −y (right) / +y (left).
  EXPECT_NEAR(m.inertial(m.linkId("RightUpperArm")).com.y(), -0.5772 * d.upper_arm, 1e-14);
  EXPECT_NEAR(m.inertial(m.linkId("LeftUpperArm")).com.y(), 0.5772 * d.upper_arm, 1e-14);
  EXPECT_NEAR(m.inertial(m.linkId("RightUpperArm")).inertia(1, 1), 0.0271 * 73.0 * std::pow(0.158 * d.upper_arm, 2),
              1e-12);
}

TEST(Anthropometry, ComInsideSegmentAndInertiaPhysical) {
  const Model m = human("human66", 1.75, 73.0);
  const HumanDimensions d = HumanDimensions::fromHeight(1.75);
  for (const std::string& s : humanSegmentNames()) {
    const LinkId l = m.linkId(s);
    const Inertial& in = m.inertial(l);
    // The COM lies between the link origin and the next joint (or the end of the segment): on the
    // segment, within its length.
    double len = 0.0;
    for (int j = 0; j < m.numJoints(); ++j)
      if (m.parentLink(JointId(j)) == l) len = std::max(len, m.jointPlacement(JointId(j)).p.norm());
    if (s == "Head") len = d.head_length;
    if (s.find("Hand") != std::string::npos) len = d.hand_length;
    if (s.find("Toe") != std::string::npos) len = d.toe_length;
    EXPECT_GT(in.com.norm(), 0.0) << s;
    EXPECT_LT(in.com.norm(), len) << s;
    // Inertia symmetric, positive definite, triangle inequality.
    EXPECT_TRUE(in.inertia.isApprox(in.inertia.transpose())) << s;
    const Vector3d p = Eigen::SelfAdjointEigenSolver<Matrix3d>(in.inertia).eigenvalues();
    EXPECT_GT(p[0], 0.0) << s;
    EXPECT_GE(p[0] + p[1], p[2]) << s;
  }
}

TEST(Anthropometry, BadMassThrows) {
  for (double mass : {19.9, 300.1, 0.0, -70.0, std::nan("")}) {
    HumanModelOptions o;
    o.mass = mass;
    EXPECT_THROW((void)makeHuman66(o), InvalidArgument) << mass;
    EXPECT_THROW((void)makeBuiltinModel("human48", 1.75, mass), InvalidArgument) << mass;
  }
}

TEST(Anthropometry, ExportReloadKeepsMassPropertiesExactly) {
  for (const Model& m :
       {human("human66", 1.75, 73.0), human("human48", 1.63, 61.7, Sex::Female), human("human66", 2.01, 97.3)}) {
    const Model r = io::parseUrdf(io::toUrdf(m), "exported.urdf");
    ASSERT_EQ(r.numLinks(), m.numLinks());
    EXPECT_EQ(r.totalMass(), m.totalMass());
    for (int l = 0; l < m.numLinks(); ++l) {
      const std::string& name = m.linkName(LinkId(l));
      const Inertial &a = m.inertial(LinkId(l)), &b = r.inertial(r.linkId(name));
      EXPECT_EQ(a.mass, b.mass) << name;
      EXPECT_EQ(a.com, b.com) << name;
      EXPECT_EQ(a.inertia, b.inertia) << name;
    }
  }
}

TEST(MassProperties, BuiltinsAndIcubPass) {
  for (const char* name : {"human66", "human48"}) {
    EXPECT_NO_THROW(checkMassProperties(makeBuiltinModel(name)));
    HumanModelOptions fixed;
    fixed.base = BaseType::Fixed;
    EXPECT_NO_THROW(checkMassProperties(makeHuman48(fixed)));
  }
  KINETRACK_REQUIRE_SHARED(urdf, "models/icub/iCubGazeboV2_5_model.urdf");
  EXPECT_NO_THROW(checkMassProperties(io::loadUrdf(urdf)));
}

Inertial box(double mass) {
  Inertial in;
  in.mass = mass;
  in.inertia = Vector3d(0.02, 0.03, 0.04).asDiagonal();
  return in;
}

ModelBuilder arm(const Inertial& tip) {
  ModelBuilder b("arm", "base", BaseType::Fixed, box(2.0));
  JointSpec j;
  j.name = "shoulder";
  j.parent = "base";
  j.child = "upper";  // massless, but the chain ends in mass unless the tip is massless
  j.axis = Vector3d::UnitY();
  b.addJoint(j);
  j.name = "elbow";
  j.parent = "upper";
  j.child = "tip";
  j.placement.p = {0, 0, 0.3};
  j.child_inertial = tip;
  b.addJoint(j);
  return b;
}

TEST(MassProperties, MasslessLeafOnMovingJointNamesIt) {
  EXPECT_NO_THROW(checkMassProperties(arm(box(1.0)).build()));
  try {
    checkMassProperties(arm(Inertial{}).build());
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("link 'tip'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("without mass"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'shoulder'"), std::string::npos) << msg;  // nothing beyond the shoulder has mass
  }
}

TEST(MassProperties, UnphysicalInertiaNamesTheLink) {
  auto expectBad = [](const Inertial& in, const char* what) {
    try {
      checkMassProperties(arm(in).build());
      ADD_FAILURE() << "expected InvalidArgument for " << what;
    } catch (const InvalidArgument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("link 'tip'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  Inertial asym = box(1.0);
  asym.inertia(0, 1) = 0.01;
  expectBad(asym, "not symmetric");
  Inertial negative = box(1.0);
  negative.inertia(0, 0) = -0.01;
  expectBad(negative, "positive semi-definite");
  Inertial triangle = box(1.0);
  triangle.inertia = Vector3d(0.01, 0.01, 0.05).asDiagonal();
  expectBad(triangle, "triangle inequality");
  // Negative masses are refused by the builder already; a point mass is physical.
  Inertial point;
  point.mass = 1.0;
  EXPECT_NO_THROW(checkMassProperties(arm(point).build()));
}

TEST(MassProperties, MasslessFloatingModelThrows) {
  EXPECT_THROW(checkMassProperties(ModelBuilder("m", "base").build()), InvalidArgument);
  EXPECT_NO_THROW(checkMassProperties(ModelBuilder("m", "base", BaseType::Fixed).build()));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
