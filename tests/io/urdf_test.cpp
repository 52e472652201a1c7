// URDF reading and writing: every shared model loads with the expected sizes, write → read round
// trips are exact, mimic tags become equality constraints, and broken files raise ParseError
// naming the file, the line and what is wrong (fixtures in tests/data/urdf/).
#include "kinetrack/io/model/urdf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

const std::string kData = kinetrack::testing::testDataDir() + "/urdf/";
constexpr const char* kICub = "models/icub/iCubGazeboV2_5_model.urdf";

double relDiff(const Matrix3d& a, const Matrix3d& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, a.cwiseAbs().maxCoeff());
}

::testing::AssertionResult sameOrder(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                     const char* what) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i])
      return ::testing::AssertionFailure()
             << what << " order differs first at index " << i << ": '" << a[i] << "' vs '" << b[i] << "'";
  if (a.size() != b.size()) return ::testing::AssertionFailure() << what << " counts differ";
  return ::testing::AssertionSuccess();
}

// Two models are the same model: names and order of everything, exact joint data, placements to
// `tol`, frames and inertials. Order is checked once; the contents are then compared matched by
// name, so an order difference does not hide (or masquerade as) a content difference.
void expectIdenticalModels(const Model& a, const Model& b, double tol = 1e-12) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.baseType(), b.baseType());
  ASSERT_EQ(a.numJoints(), b.numJoints());
  ASSERT_EQ(a.numLinks(), b.numLinks());
  ASSERT_EQ(a.numFrames(), b.numFrames());
  EXPECT_TRUE(sameOrder(a.jointNames(), b.jointNames(), "joint"));
  EXPECT_TRUE(sameOrder(a.linkNames(), b.linkNames(), "link"));
  EXPECT_TRUE(sameOrder(a.frameNames(), b.frameNames(), "frame"));
  auto linkName = [](const Model& m, LinkId l) { return l.valid() ? m.linkName(l) : std::string("<none>"); };
  for (int l = 0; l < a.numLinks(); ++l) {
    const LinkId id(l);
    const std::string& n = a.linkName(id);
    const auto other = b.findLink(n);
    if (!other) {
      ADD_FAILURE() << "link " << n << " missing";
      continue;
    }
    EXPECT_EQ(linkName(a, a.parent(id)), linkName(b, b.parent(*other))) << n;
    std::vector<std::string> sa, sb;
    for (auto j : a.support(id)) sa.push_back(a.jointName(JointId(j)));
    for (auto j : b.support(*other)) sb.push_back(b.jointName(JointId(j)));
    EXPECT_EQ(sa, sb) << n;
    const Inertial &ia = a.inertial(id), &ib = b.inertial(*other);
    EXPECT_NEAR(ia.mass, ib.mass, 1e-12 * std::max(1.0, ia.mass)) << n;
    EXPECT_LE((ia.com - ib.com).cwiseAbs().maxCoeff(), tol) << n;
    EXPECT_LE(relDiff(ia.inertia, ib.inertia), 1e-12) << n << "\n" << ia.inertia << "\nvs\n" << ib.inertia;
  }
  for (int j = 0; j < a.numJoints(); ++j) {
    const JointId id(j);
    const std::string& n = a.jointName(id);
    const auto o = b.findJoint(n);
    if (!o) {
      ADD_FAILURE() << "joint " << n << " missing";
      continue;
    }
    EXPECT_EQ(a.jointType(id), b.jointType(*o)) << n;
    EXPECT_EQ(a.jointAxis(id), b.jointAxis(*o)) << n;  // exactly
    EXPECT_EQ(a.axisKind(id), b.axisKind(*o)) << n;
    EXPECT_EQ(linkName(a, a.parentLink(id)), linkName(b, b.parentLink(*o))) << n;
    EXPECT_EQ(linkName(a, a.childLink(id)), linkName(b, b.childLink(*o))) << n;
    EXPECT_LE((a.jointPlacement(id).p - b.jointPlacement(*o).p).cwiseAbs().maxCoeff(), tol) << n;
    EXPECT_LE((a.jointPlacement(id).R - b.jointPlacement(*o).R).cwiseAbs().maxCoeff(), tol) << n;
    // Limits exactly (infinite ones included).
    EXPECT_EQ(a.lowerPositionLimits()[j], b.lowerPositionLimits()[o->value]) << n;
    EXPECT_EQ(a.upperPositionLimits()[j], b.upperPositionLimits()[o->value]) << n;
    EXPECT_EQ(a.lowerVelocityLimits()[j], b.lowerVelocityLimits()[o->value]) << n;
    EXPECT_EQ(a.upperVelocityLimits()[j], b.upperVelocityLimits()[o->value]) << n;
    EXPECT_EQ(a.effortLimits()[j], b.effortLimits()[o->value]) << n;
  }
  for (int f = 0; f < a.numFrames(); ++f) {
    const FrameId id(f);
    const std::string& n = a.frameName(id);
    const auto o = b.findFrame(n);
    if (!o) {
      ADD_FAILURE() << "frame " << n << " missing";
      continue;
    }
    EXPECT_EQ(a.frameKind(id), b.frameKind(*o)) << n;
    EXPECT_EQ(a.linkName(a.frameLink(id)), b.linkName(b.frameLink(*o))) << n;
    EXPECT_EQ(a.frameIsLinkFrame(id), b.frameIsLinkFrame(*o)) << n;
    EXPECT_EQ(a.frameJointName(id), b.frameJointName(*o)) << n;
    const FrameId pa = a.frameParent(id), pb = b.frameParent(*o);
    EXPECT_EQ(pa.valid() ? a.frameName(pa) : "", pb.valid() ? b.frameName(pb) : "") << n;
    EXPECT_LE((a.framePlacement(id).p - b.framePlacement(*o).p).cwiseAbs().maxCoeff(), tol) << n;
    EXPECT_LE((a.framePlacement(id).R - b.framePlacement(*o).R).cwiseAbs().maxCoeff(), tol) << n;
  }
  ASSERT_EQ(a.linearConstraints().size(), b.linearConstraints().size());
  for (std::size_t c = 0; c < a.linearConstraints().size(); ++c) {
    const LinearConstraint &ca = a.linearConstraints()[c], &cb = b.linearConstraints()[c];
    EXPECT_EQ(ca.name, cb.name);
    for (int j = 0; j < a.numJoints(); ++j) {
      const auto o = b.findJoint(a.jointName(JointId(j)));
      if (o) {
        EXPECT_EQ(ca.coefficients[j], cb.coefficients[o->value]) << ca.name << " " << a.jointName(JointId(j));
      }
    }
    EXPECT_EQ(ca.lower, cb.lower) << ca.name;
    EXPECT_EQ(ca.upper, cb.upper) << ca.name;
    EXPECT_EQ(ca.velocity_bound, cb.velocity_bound) << ca.name;
  }
  ASSERT_EQ(a.mimics().size(), b.mimics().size());
  for (std::size_t k = 0; k < a.mimics().size(); ++k) {
    EXPECT_EQ(a.jointName(a.mimics()[k].joint), b.jointName(b.mimics()[k].joint));
    EXPECT_EQ(a.jointName(a.mimics()[k].master), b.jointName(b.mimics()[k].master));
    EXPECT_EQ(a.mimics()[k].multiplier, b.mimics()[k].multiplier);
    EXPECT_EQ(a.mimics()[k].offset, b.mimics()[k].offset);
  }
}

Model roundTrip(const Model& m, std::vector<std::string>* warnings = nullptr) {
  io::UrdfOptions o;
  o.base = m.baseType();
  return io::parseUrdf(io::toUrdf(m), "round-trip of " + m.name(), o, warnings);
}

// --- loading the shared models ---------------------------------------------------------------

TEST(Urdf, EveryHumanGazeboModelLoads) {
  KINETRACK_REQUIRE_SHARED(dir, "models/human-gazebo");
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".urdf") continue;
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    std::vector<std::string> warnings;
    const Model m = io::loadUrdf(e.path().string(), {}, &warnings);
    int expected = name.find("_66dof") != std::string::npos ? 66 : 48;
    // Known defect of the data set (models/README.md): humanSubject08_66dof.urdf is
    // byte-identical to humanSubject08_48dof.urdf, so it has 48 joints.
    if (name == "humanSubject08_66dof.urdf") expected = 48;
    EXPECT_EQ(m.numJoints(), expected);
    EXPECT_EQ(m.nv(), expected + 6);
    EXPECT_EQ(m.baseType(), BaseType::Floating);
    EXPECT_EQ(m.linkName(LinkId(0)), "Pelvis");
    EXPECT_EQ(m.numLinks(), 1 + expected);       // one link per joint: segments + dummy links
    EXPECT_EQ(m.numFrames(), m.numLinks() + 2);  // + RightHandCOM, LeftHandCOM
    EXPECT_EQ(m.frameKind(m.frameId("RightHandCOM")), FrameKind::Fixed);
    EXPECT_EQ(m.linkName(m.frameLink(m.frameId("LeftHandCOM"))), "LeftHand");
    EXPECT_GT(m.inertial(m.linkId("Pelvis")).mass, 1.0);
    EXPECT_TRUE(m.mimics().empty());
    EXPECT_TRUE(warnings.empty());
    ++files;
  }
  EXPECT_EQ(files, 25);
}

TEST(Urdf, HumanSubject08Of66DofIsTheKnown48DofDuplicate) {
  KINETRACK_REQUIRE_SHARED(p66, "models/human-gazebo/humanSubject08/humanSubject08_66dof.urdf");
  KINETRACK_REQUIRE_SHARED(p48, "models/human-gazebo/humanSubject08/humanSubject08_48dof.urdf");
  expectIdenticalModels(io::loadUrdf(p66), io::loadUrdf(p48), 0.0);
}

// The reader visits the tree depth first with siblings in file order (urdf_reader.cpp), so for a
// file written in depth-first order, as the human-gazebo files are, the model's joint order is the
// file's order of moving joints. (This is what makes write → read keep the joint order.)
TEST(Urdf, LoadedJointOrderFollowsTheFile) {
  KINETRACK_REQUIRE_SHARED(path, "models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> file_order;
  const std::regex joint_re(R"re(<joint\s+name="([^"]+)"\s+type="([a-z]+)")re");
  const std::string xml = text.str();
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), joint_re); it != std::sregex_iterator(); ++it)
    if ((*it)[2] != "fixed") file_order.push_back((*it)[1]);
  ASSERT_EQ(file_order.size(), 48u);
  const Model m = io::loadUrdf(path);
  EXPECT_TRUE(sameOrder(file_order, m.jointNames(), "joint (file vs model)"));
}

TEST(Urdf, ICubSizes) {
  KINETRACK_REQUIRE_SHARED(path, kICub);
  const Model m = io::loadUrdf(path);
  EXPECT_EQ(m.numJoints(), 32);
  EXPECT_EQ(m.numLinks(), 33);
  EXPECT_EQ(m.numFrames(), 213);
  int fixed = 0, link = 0;
  for (int f = 0; f < m.numFrames(); ++f) {
    fixed += m.frameKind(FrameId(f)) == FrameKind::Fixed;
    link += m.frameKind(FrameId(f)) == FrameKind::Link;
  }
  EXPECT_EQ(fixed, 180);
  EXPECT_EQ(link, 33);
  EXPECT_EQ(m.nv(), 38);
  EXPECT_EQ(m.baseType(), BaseType::Floating);
  for (int j = 0; j < m.numJoints(); ++j) {
    EXPECT_EQ(m.jointType(JointId(j)), JointType::Revolute) << m.jointName(JointId(j));
    EXPECT_TRUE(std::isfinite(m.lowerPositionLimits()[j]) && std::isfinite(m.upperPositionLimits()[j]));
  }
  // Fixed base on request.
  io::UrdfOptions o;
  o.base = BaseType::Fixed;
  EXPECT_EQ(io::loadUrdf(path, o).nv(), 32);
}

// --- round trips --------------------------------------------------------------------------------

TEST(Urdf, GeneratedHumanModelsRoundTripExactly) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    SCOPED_TRACE(m.name());
    std::vector<std::string> warnings;
    const Model r = roundTrip(m, &warnings);
    EXPECT_TRUE(warnings.empty());
    expectIdenticalModels(m, r);
    // Writing the reloaded model gives the same text again.
    EXPECT_EQ(io::toUrdf(r), io::toUrdf(m));
  }
}

TEST(Urdf, GeneratedHumanModelsKeepInfiniteLimits) {
  const Model r = roundTrip(makeHuman66());
  for (int j = 0; j < r.numJoints(); ++j) {
    EXPECT_EQ(r.jointType(JointId(j)), JointType::Continuous);
    EXPECT_TRUE(std::isinf(r.upperVelocityLimits()[j]));
    EXPECT_TRUE(std::isinf(r.effortLimits()[j]));
  }
}

TEST(Urdf, ICubRoundTripsExactly) {
  KINETRACK_REQUIRE_SHARED(path, kICub);
  const Model m = io::loadUrdf(path);
  const Model r = roundTrip(m);
  expectIdenticalModels(m, r);
  // (The text is not compared: rpy → R → rpy may move the last of 17 digits.)
}

TEST(Urdf, HumanSubjectRoundTripsExactly) {
  KINETRACK_REQUIRE_SHARED(path, "models/human-gazebo/humanSubject03/humanSubject03_48dof.urdf");
  const Model m = io::loadUrdf(path);
  expectIdenticalModels(m, roundTrip(m));
}

TEST(Urdf, SaveAndLoadFile) {
  const Model m = makeHuman48();
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() /
      ("kinetrack_urdf_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".urdf");
  io::saveUrdf(m, tmp.string());
  const Model r = io::loadUrdf(tmp.string());
  std::filesystem::remove(tmp);
  expectIdenticalModels(m, r);
  EXPECT_THROW(io::saveUrdf(m, "/nonexistent-dir-kinetrack/x.urdf"), ParseError);
}

// --- mimic ----------------------------------------------------------------------------------------

TEST(Urdf, MimicLoadsWithAWarningAndAnEqualityConstraint) {
  const std::string path = kData + "mimic.urdf";
  std::vector<std::string> warnings;
  const Model m = io::loadUrdf(path, {}, &warnings);
  ASSERT_EQ(m.numJoints(), 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("mimic.urdf:26"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("right_finger_joint"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("left_finger_joint"), std::string::npos) << warnings[0];
  ASSERT_EQ(m.mimics().size(), 1u);
  EXPECT_EQ(m.mimics()[0].joint, m.jointId("right_finger_joint"));
  EXPECT_EQ(m.mimics()[0].master, m.jointId("left_finger_joint"));
  EXPECT_EQ(m.mimics()[0].multiplier, 1.0);
  EXPECT_EQ(m.mimics()[0].offset, 0.002);
  ASSERT_EQ(m.linearConstraints().size(), 1u);
  const LinearConstraint& c = m.linearConstraints()[0];
  EXPECT_EQ(c.name, "mimic:right_finger_joint");
  VectorXd coeffs = VectorXd::Zero(2);
  coeffs[m.jointId("right_finger_joint").value] = 1.0;
  coeffs[m.jointId("left_finger_joint").value] = -1.0;
  EXPECT_EQ(c.coefficients, coeffs);
  EXPECT_EQ(c.lower, 0.002);
  EXPECT_EQ(c.upper, 0.002);
  // Also: prismatic joints, a negative axis and an inertial with an offset COM.
  EXPECT_EQ(m.jointType(JointId(0)), JointType::Prismatic);
  EXPECT_EQ(m.axisKind(m.jointId("right_finger_joint")), AxisKind::NegY);
  EXPECT_EQ(m.upperVelocityLimits()[0], 0.1);
  EXPECT_DOUBLE_EQ(m.inertial(LinkId(0)).mass, 0.4);
  EXPECT_EQ(m.inertial(LinkId(0)).com, Vector3d(0, 0, 0.02));
  // Without a warnings sink the load still succeeds; the round trip keeps the mimic.
  EXPECT_NO_THROW((void)io::loadUrdf(path));
  std::vector<std::string> w2;
  expectIdenticalModels(m, roundTrip(m, &w2));
  EXPECT_EQ(w2.size(), 1u);
}

// --- parse errors -------------------------------------------------------------------------------

std::optional<ParseError> parseErrorOf(const std::string& path) {
  try {
    (void)io::loadUrdf(path);
  } catch (const ParseError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": expected ParseError, got another exception: " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << path << ": expected ParseError, nothing thrown";
  return std::nullopt;
}

// what() must hold the file name, ":<line>" and every piece of `expect` (what is wrong).
void expectParseError(const std::string& fixture, int line, const std::vector<std::string>& expect) {
  SCOPED_TRACE(fixture);
  const std::string path = kData + fixture;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const std::optional<ParseError> e = parseErrorOf(path);
  ASSERT_TRUE(e.has_value());
  const std::string what = e->what();
  EXPECT_EQ(e->file(), path);
  EXPECT_NE(what.find(fixture), std::string::npos) << what;
  EXPECT_EQ(e->line(), line) << what;
  EXPECT_NE(what.find(path + ":" + std::to_string(line) + ":"), std::string::npos) << what;
  for (const std::string& piece : expect)
    EXPECT_NE(what.find(piece), std::string::npos) << "'" << piece << "' not in: " << what;
  EXPECT_EQ(what, path + ":" + std::to_string(line) + ": " + e->message());
}

TEST(UrdfErrors, MissingFile) {
  const std::string path = kData + "does_not_exist.urdf";
  const std::optional<ParseError> e = parseErrorOf(path);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->file(), path);
  EXPECT_EQ(e->line(), 0);
  EXPECT_NE(std::string(e->what()).find("does_not_exist.urdf"), std::string::npos);
  EXPECT_NE(std::string(e->what()).find("cannot open"), std::string::npos) << e->what();
}

TEST(UrdfErrors, MalformedXml) {
  // <link name="arm"> on line 4 is never closed (mismatched by </robot>); tinyxml2 reports the
  // line of the unclosed element.
  expectParseError("malformed_xml.urdf", 4, {"malformed XML", "link"});
}

TEST(UrdfErrors, UnknownJointType) { expectParseError("unknown_joint_type.urdf", 5, {"shoulder", "hinge", "type"}); }

TEST(UrdfErrors, JointNamingAMissingParentLink) {
  expectParseError("missing_parent_link.urdf", 13, {"wrist", "forearm", "not defined"});
}

TEST(UrdfErrors, NanInAnOrigin) { expectParseError("nan_origin.urdf", 8, {"shoulder", "xyz", "nan", "finite"}); }

TEST(UrdfErrors, RevoluteWithoutLimit) {
  // The continuous joint above it needs no <limit>; the revolute one does.
  expectParseError("revolute_without_limit.urdf", 11, {"elbow", "revolute", "<limit>"});
}

TEST(UrdfErrors, TwoRootLinks) { expectParseError("two_roots.urdf", 2, {"2 root links", "base", "floating_box"}); }

// Found by fuzzing: one root and one parent per link, but a -> b -> a beside the tree. urdfdom
// leaked the ring; the reader now refuses it at the cycle's joint.
TEST(UrdfErrors, ACycleDetachedFromTheRoot) {
  expectParseError("detached_cycle.urdf", 17, {"joint 'b_to_a'", "link 'a'", "cycle", "root link 'base'"});
}

// Found by fuzzing: urdfdom's TinyXML ends an XML declaration at its first '>', so it read the
// <robot> inside this one's attribute (a cycle of joints, which it leaks) where tinyxml2 validated
// the <robot> after it. urdfdom now gets the validated element, printed back.
TEST(Urdf, TheRobotBuiltIsTheRobotValidated) {
  const Model m = io::loadUrdf(kData + "declaration_hides_a_robot.urdf");
  EXPECT_EQ(m.name(), "checked");
  EXPECT_EQ(m.linkNames(), (std::vector<std::string>{"base", "arm"}));
  EXPECT_EQ(m.jointNames(), (std::vector<std::string>{"shoulder"}));
}

TEST(UrdfErrors, ASecondRobotAfterTheFirst) {
  expectParseError("two_robots.urdf", 5, {"second top-level element <robot>", "one <robot>"});
}

TEST(UrdfErrors, InMemoryTextUsesTheSourceName) {
  const std::string xml =
      "<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n"
      "<joint name='j' type='revolute'>\n<parent link='a'/>\n<child link='b'/>\n"
      "<axis xyz='0 0 0'/>\n<limit lower='0' upper='1' velocity='1' effort='1'/>\n</joint>\n</robot>\n";
  try {
    (void)io::parseUrdf(xml, "my-robot-description");
    ADD_FAILURE() << "no exception for a zero axis";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "my-robot-description");
    EXPECT_EQ(e.line(), 7) << e.what();
    EXPECT_NE(std::string(e.what()).find("my-robot-description:7:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("zero"), std::string::npos) << e.what();
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
