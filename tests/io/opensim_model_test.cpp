// OpenSim .osim reader on a hand-written model (tests/data/opensim/synthetic_40.osim) that uses
// every supported joint type: the structure of the kinetrack model (one joint per coordinate, link
// and frame names, joint types, limits, couplers, notices), every body and marker pose against
// poses computed here from OpenSim's definitions, and broken files (ParseError with file and line).
// The shared real models are in opensim_model_data_test.cpp.
#include "kinetrack/io/model/opensim_model.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/finite_diff.hpp"
#include "testing/format.hpp"
#include "testing/mutations.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::sci;

const std::string kSynthetic = kinetrack::testing::testDataDir() + "/opensim/synthetic_40.osim";

Matrix3d rot(const Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}
Matrix3d xyz(double a, double b, double c) {
  return rot(Vector3d::UnitX(), a) * rot(Vector3d::UnitY(), b) * rot(Vector3d::UnitZ(), c);
}
Transform offset(const Vector3d& t, const Vector3d& o) { return {xyz(o.x(), o.y(), o.z()), t}; }
Transform moved(const Matrix3d& R, const Vector3d& p) { return {R, p}; }
Vector3d apply(const Transform& X, const Vector3d& v) { return X.p + X.R * v; }

// World poses of the synthetic model's bodies and markers at coordinates q (by name), from the
// definitions of OpenSim's joints (X_PB = X_PF · X_FM(q) · X_BM⁻¹), written out by hand.
std::map<std::string, Transform> expectedPoses(std::map<std::string, double> q) {
  const ScalarFunction t1 = ScalarFunction::simmSpline({-2, 0, 2}, {0.01, 0.02, -0.01}).scaled(1.2);
  const ScalarFunction r2 = ScalarFunction::simmSpline({-2, -1, 0, 1, 2}, {-0.3, -0.1, 0, 0.15, 0.2});
  const Vector3d X = Vector3d::UnitX(), Y = Vector3d::UnitY(), Z = Vector3d::UnitZ();
  std::map<std::string, Transform> w;
  // j_a, CustomJoint: Trans(1.2 s(q1) x + (0.5 q3² + q3) y + 0.05 z) · Rz(q1) · Rx(r2(q1)) · R((0,1,1), −q2).
  const Transform fm_a = moved(rot(Z, q["q1"]) * rot(X, r2.value(q["q1"])) * rot(Vector3d(0, 1, 1), -q["q2"]),
                               t1.value(q["q1"]) * X + (0.5 * q["q3"] * q["q3"] + q["q3"]) * Y + 0.05 * Z);
  w["a"] = compose(compose(offset({0.1, 0.9, -0.2}, {0.3, -0.2, 0.5}), fm_a),
                   inverse(offset({0.05, 0, 0.02}, {0.1, 0.2, -0.3})));
  // j_b, PinJoint about Z.
  w["b"] = compose(compose(w["a"], offset({0, -0.3, 0}, {0, 0, 0.2})), moved(rot(Z, q["q4"]), Vector3d::Zero()));
  // j_c, BallJoint: body-fixed X-Y-Z; the child frame is the body itself.
  w["c"] = compose(compose(w["b"], offset({0, -0.25, 0.01}, {0.1, 0, 0})),
                   moved(xyz(q["c_rx"], q["c_ry"], q["c_rz"]), Vector3d::Zero()));
  // j_d, UniversalJoint: X then Y, from the body frame of a.
  w["d"] = compose(compose(w["a"], moved(rot(X, q["d_x"]) * rot(Y, q["d_y"]), Vector3d::Zero())),
                   inverse(offset({0.01, 0.02, 0.03}, {0, 0.5, 0})));
  // j_e, SliderJoint along X.
  w["e"] = compose(compose(w["d"], offset({0, 0.1, 0}, {0, 0, -0.4})), moved(Matrix3d::Identity(), q["e_t"] * X));
  // j_f, FreeJoint: translations in the parent frame, rotations body-fixed X-Y-Z.
  w["f"] = compose(moved(xyz(q["f_rx"], q["f_ry"], q["f_rz"]), Vector3d(q["f_tx"], q["f_ty"], q["f_tz"])),
                   inverse(offset(Vector3d::Zero(), {0.2, 0, 0})));
  // j_g, PlanarJoint: rotation about Z, translation in the XY plane of F.
  w["g"] = compose(compose(w["f"], offset({0.1, 0, 0}, Vector3d::Zero())),
                   moved(rot(Z, q["g_rz"]), Vector3d(q["g_tx"], q["g_ty"], 0)));
  // j_h, WeldJoint.
  w["h"] = compose(compose(w["g"], offset({0, 0.2, 0}, {0, 0, 0.3})), inverse(offset({0.01, 0, 0}, Vector3d::Zero())));
  // j_k, CustomJoint: Rx(0.2) · Rz(k1) · Ry(−0.1); k2 drives nothing.
  w["k"] = compose(w["h"], moved(rot(X, 0.2) * rot(Z, q["k1"]) * rot(Y, -0.1), Vector3d::Zero()));
  // Markers.
  auto marker = [&](const std::string& name, const Transform& body, const Vector3d& location) {
    w[name] = {body.R, apply(body, location)};
  };
  marker("m_a", w["a"], {0.1, 0.2, 0.3});
  marker("m_b", w["b"], {-0.02, -0.1, 0.05});
  // A marker is a point: its frame has the orientation of its body, also on an offset frame.
  w["m_site"] = {w["b"].R, apply(compose(w["b"], offset({0.02, 0.03, 0.04}, {0.5, 0, 0})), {0.01, 0, 0})};
  marker("m_ground", Transform{}, {1, 2, 3});
  marker("m_h", w["h"], {0, 0.05, 0});
  marker("m_k", w["k"], {0.03, 0, 0});
  return w;
}

std::map<std::string, double> byName(const OpenSimModel& m, const Configuration& q) {
  std::map<std::string, double> out;
  for (const OpenSimCoordinate& c : m.coordinates) out[c.name] = q.joints[c.joint.value];
  return out;
}

TEST(OpenSimModelSynthetic, StructureNamesTypesAndLimits) {
  const OpenSimModel m = readOpenSimModel(kSynthetic);
  const Model& model = *m.model;
  EXPECT_EQ(m.version, 40000);
  EXPECT_EQ(model.baseType(), BaseType::Fixed);
  EXPECT_EQ(model.linkName(LinkId(0)), "ground");
  EXPECT_EQ(m.gravity, Vector3d(0, -9.81, 0));
  EXPECT_EQ(m.bodies, (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "k"}));
  // One joint per coordinate, in tree order; OpenSim's order kept in `coordinates`.
  const std::vector<std::string> tree = {"q3",   "q1",   "q2",   "q4",   "c_rx", "c_ry", "c_rz",
                                         "d_x",  "d_y",  "e_t",  "f_tx", "f_ty", "f_tz", "f_rx",
                                         "f_ry", "f_rz", "g_tx", "g_ty", "g_rz", "k1",   "k2"};
  EXPECT_EQ(model.jointNames(), tree);
  std::vector<std::string> order;
  for (const OpenSimCoordinate& c : m.coordinates) {
    order.push_back(c.name);
    EXPECT_EQ(model.jointName(c.joint), c.name);
    EXPECT_EQ(model.lowerPositionLimits()[c.joint.value], c.range_min);
    EXPECT_EQ(model.upperPositionLimits()[c.joint.value], c.range_max);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"q1",   "q2",   "q3",   "q4",   "c_rx", "c_ry", "c_rz",
                                             "d_x",  "d_y",  "e_t",  "f_rx", "f_ry", "f_rz", "f_tx",
                                             "f_ty", "f_tz", "g_rz", "g_tx", "g_ty", "k1",   "k2"}));
  const OpenSimCoordinate* q1 = m.findCoordinate("q1");
  ASSERT_NE(q1, nullptr);
  EXPECT_TRUE(q1->rotational && q1->clamped && !q1->locked);
  EXPECT_EQ(q1->default_value, 0.3);
  EXPECT_EQ(q1->range_min, -2.0);
  EXPECT_TRUE(m.findCoordinate("q3")->locked);
  EXPECT_FALSE(m.findCoordinate("q3")->rotational);  // drives a translation only
  EXPECT_FALSE(m.findCoordinate("e_t")->rotational);
  EXPECT_TRUE(m.findCoordinate("q2")->rotational);
  EXPECT_EQ(m.findCoordinate("nope"), nullptr);
  const Configuration q0 = m.defaultConfiguration();
  EXPECT_EQ(q0.joints[model.jointId("q1").value], 0.3);
  EXPECT_EQ(q0.joints[model.jointId("q3").value], 0.1);
  EXPECT_EQ(q0.joints[model.jointId("f_ty").value], 1.0);

  // Fast built-in types where the motion is a plain rotation or translation by s.
  auto type = [&](const char* j) { return model.jointType(model.jointId(j)); };
  EXPECT_EQ(type("q1"), JointType::Custom);  // translation + rotation + spline rotation
  EXPECT_EQ(type("q3"), JointType::Custom);  // polynomial translation
  EXPECT_EQ(type("q2"), JointType::Revolute);
  EXPECT_LT((model.jointAxis(model.jointId("q2")) + Vector3d(0, 1, 1).normalized()).norm(), 1e-15);  // slope −1
  EXPECT_EQ(type("e_t"), JointType::Prismatic);
  EXPECT_EQ(type("f_tx"), JointType::Prismatic);
  EXPECT_EQ(type("c_ry"), JointType::Revolute);
  EXPECT_EQ(type("k2"), JointType::Custom);  // drives nothing (and carries the trailing Ry(−0.1))
  EXPECT_EQ(model.jointMotion(model.jointId("q1")).translations.size(), 1u);
  EXPECT_EQ(model.jointMotion(model.jointId("q1")).rotations.size(), 2u);

  // Link names: "<body>/<coordinate>" for chain links, the body's own name for the last link
  // when it is the body frame; else the body is a User frame on that link.
  EXPECT_EQ(model.linkName(model.childLink(model.jointId("q3"))), "a/q3");
  EXPECT_EQ(model.linkName(model.childLink(model.jointId("q2"))), "a/q2");
  EXPECT_EQ(model.frameKind(model.frameId("a")), FrameKind::User);
  EXPECT_EQ(model.frameKind(model.frameId("b")), FrameKind::Link);
  EXPECT_EQ(model.frameKind(model.frameId("c")), FrameKind::Link);
  EXPECT_EQ(model.frameKind(model.frameId("h")), FrameKind::Fixed);  // welded to g
  EXPECT_EQ(model.linkName(model.childLink(model.jointId("k2"))), "k");
  EXPECT_EQ(model.numLinks(), 22);

  // Mass: the weld merges h into g's link.
  EXPECT_NEAR(model.totalMass(), 2 + 1 + 0.5 + 0.7 + 0.2 + 3 + 0.4 + 0.3 + 0.1, 1e-12);
  EXPECT_NEAR(model.inertial(model.frameLink(model.frameId("g"))).mass, 0.7, 1e-15);

  // Couplers: the affine one is also a mimic (scale_factor folded in), the spline one is not.
  ASSERT_EQ(m.couplers.size(), 2u);
  EXPECT_EQ(m.couplers[0].dependent, "e_t");
  EXPECT_EQ(m.couplers[0].independent, "d_x");
  EXPECT_NEAR(m.couplers[0].function.value(1.0), 0.3, 1e-15);
  EXPECT_EQ(m.couplers[1].function.kind(), ScalarFunction::Kind::SimmSpline);
  ASSERT_EQ(model.mimics().size(), 1u);
  EXPECT_EQ(model.jointName(model.mimics()[0].joint), "e_t");
  EXPECT_NEAR(model.mimics()[0].multiplier, 0.2, 1e-15);
  EXPECT_NEAR(model.mimics()[0].offset, 0.1, 1e-15);

  // Markers.
  ASSERT_EQ(m.markers.size(), 6u);
  EXPECT_EQ(m.markers[0].name, "m_a");
  EXPECT_EQ(m.markers[0].body, "a");
  EXPECT_TRUE(m.markers[0].fixed);
  EXPECT_EQ(model.frameName(m.markers[0].frame), "m_a");
  EXPECT_EQ(m.markers[2].body, "b");  // on the offset frame b/site: location re-expressed in b
  EXPECT_LT((m.markers[2].location - apply(offset({0.02, 0.03, 0.04}, {0.5, 0, 0}), {0.01, 0, 0})).norm(), 1e-15);
  EXPECT_EQ(m.markers[3].body, "ground");

  // Notices: what was ignored, the idle coordinate, the couplers.
  auto noticed = [&](const std::string& s) {
    for (const std::string& n : m.notices)
      if (n.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(noticed("ForceSet with 1 element"));
  EXPECT_TRUE(noticed("PointOnLineConstraint"));
  EXPECT_TRUE(noticed("'k2'"));
  EXPECT_TRUE(noticed("mimic:e_t"));
  EXPECT_TRUE(noticed("ty_follows_tx"));
  EXPECT_EQ(ScalarFunction().value(1.5), 0.0);  // the default function is zero
}

TEST(OpenSimModelSynthetic, BodyAndMarkerPosesMatchOpenSimDefinitions) {
  const OpenSimModel m = readOpenSimModel(kSynthetic);
  const Model& model = *m.model;
  Data data(model);
  std::mt19937_64 rng(7);
  std::vector<Configuration> qs = {m.defaultConfiguration(), Configuration(model)};
  for (int k = 0; k < 30; ++k) qs.push_back(randomConfiguration(model, rng));
  double worst = 0.0;
  for (const Configuration& q : qs) {
    framesForwardKinematics(model, data, q);
    for (const auto& [name, X] : expectedPoses(byName(m, q))) {
      const Transform& F = data.frame[static_cast<std::size_t>(model.frameId(name).value)];
      worst = std::max({worst, (F.p - X.p).norm(), (F.R - X.R).norm()});
      EXPECT_LT((F.p - X.p).norm(), 1e-12) << name;
      EXPECT_LT((F.R - X.R).norm(), 1e-12) << name;
    }
    // Mass properties follow the body: the world COM and inertia of body a's link are a's.
    const Transform Wa = expectedPoses(byName(m, q))["a"];
    const LinkId la = model.frameLink(model.frameId("a"));
    const Inertial& in = model.inertial(la);
    const Transform& L = data.link[static_cast<std::size_t>(la.value)];
    EXPECT_LT((apply(L, in.com) - apply(Wa, {0.1, 0.2, 0.3})).norm(), 1e-12);
    Matrix3d Ia;
    Ia << 0.1, 0.01, 0.02, 0.01, 0.2, 0.03, 0.02, 0.03, 0.3;
    EXPECT_LT((L.R * in.inertia * L.R.transpose() - Wa.R * Ia * Wa.R.transpose()).norm(), 1e-12);
  }
  RecordProperty("worst_pose_error", sci(worst));
}

TEST(OpenSimModelSynthetic, FrameJacobiansMatchFiniteDifferences) {
  const OpenSimModel m = readOpenSimModel(kSynthetic);
  const Model& model = *m.model;
  Data data(model);
  std::mt19937_64 rng(11);
  const std::vector<FrameId> frames = testing::allFrames(model);
  std::vector<Matrix6Xd> fd;
  Matrix6Xd J(6, model.nv());
  double worst = 0.0;
  for (int k = 0; k < 20; ++k) {
    const Configuration q = randomConfiguration(model, rng);
    framesForwardKinematics(model, data, q);
    testing::finiteDifferenceFrameJacobians(model, q, frames, fd);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      frameJacobian(model, data, frames[i], J);
      const double err = (J - fd[i]).cwiseAbs().maxCoeff() / std::max(1.0, J.cwiseAbs().maxCoeff());
      worst = std::max(worst, err);
      EXPECT_LT(err, 1e-6) << model.frameName(frames[i]);
    }
    // The idle coordinate k2 moves nothing.
    frameJacobian(model, data, model.frameId("m_k"), J);
    EXPECT_EQ(J.col(model.jointId("k2").value).cwiseAbs().maxCoeff(), 0.0);
  }
  RecordProperty("worst_relative_error", sci(worst));
}

// ---- broken files -------------------------------------------------------------------------------

// 1-based line of the first occurrence of `needle` in `text` (at or after `after`).
int lineOf(const std::string& text, const std::string& needle, const std::string& after = "") {
  const std::size_t from = after.empty() ? 0 : text.find(after);
  const std::size_t at = text.find(needle, from);
  if (from == std::string::npos || at == std::string::npos)
    throw std::logic_error("lineOf: '" + needle + "' not found");
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// `text` with the first `from` at or after `anchor` replaced by `to`.
std::string editedAfter(std::string text, const std::string& anchor, const std::string& from, const std::string& to) {
  const std::size_t a = text.find(anchor);
  const std::size_t at = a == std::string::npos ? a : text.find(from, a);
  if (at == std::string::npos) throw std::logic_error("editedAfter: '" + from + "' not found");
  return text.replace(at, from.size(), to);
}

// The ParseError of parsing `text` as "bad.osim": its line, and what() checked to name the file,
// the line and `contains`.
int errorLine(const std::string& text, const std::string& contains) {
  try {
    parseOpenSimModel(text, "bad.osim");
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "bad.osim");
    EXPECT_NE(std::string(e.what()).find("bad.osim:" + std::to_string(e.line()) + ": "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(contains), std::string::npos) << e.what();
    return e.line();
  }
  ADD_FAILURE() << "no ParseError (expected one containing '" << contains << "')";
  return -1;
}

TEST(OpenSimModelErrors, BrokenFilesNameFileAndLine) {
  using testing::edited;
  const std::string text = testing::slurp(kSynthetic);
  ASSERT_FALSE(text.empty());
  EXPECT_NO_THROW(parseOpenSimModel(text, "ok.osim"));

  // Truncated: malformed XML, tinyxml2's line.
  EXPECT_GT(errorLine(text.substr(0, text.size() / 2), "malformed XML"), 1);
  // Unknown joint type.
  const std::string ellipsoid = edited(edited(text, "<PinJoint name=\"j_b\">", "<EllipsoidJoint name=\"j_b\">"),
                                       "</PinJoint>", "</EllipsoidJoint>");
  EXPECT_EQ(errorLine(ellipsoid, "joint type 'EllipsoidJoint' is not supported"),
            lineOf(text, "<PinJoint name=\"j_b\">"));
  // A range that is not a number.
  EXPECT_EQ(errorLine(editedAfter(text, "name=\"q4\"", "<range>-3 3", "<range>nan 3"),
                      "Coordinate 'q4': range: 'nan' is not a number"),
            lineOf(text, "<range>-3 3", "name=\"q4\""));
  EXPECT_EQ(errorLine(editedAfter(text, "name=\"q4\"", "<range>-3 3", "<range>abc 3"),
                      "Coordinate 'q4': range: 'abc' is not a number"),
            lineOf(text, "<range>-3 3", "name=\"q4\""));
  EXPECT_EQ(errorLine(editedAfter(text, "name=\"q4\"", "<range>-3 3", "<range>3 -3"), "exceeds the maximum"),
            lineOf(text, "<range>-3 3", "name=\"q4\""));
  // A marker on an unknown body: the path is resolved and the known frames listed.
  const std::string marker = "<socket_parent_frame>/bodyset/k</socket_parent_frame>";
  EXPECT_EQ(errorLine(edited(text, marker, "<socket_parent_frame>/bodyset/nobody</socket_parent_frame>"),
                      "Marker 'm_k': frame '/bodyset/nobody' (/bodyset/nobody) is not a body or frame"),
            lineOf(text, marker));
  EXPECT_GT(errorLine(edited(text, marker, "<socket_parent_frame>/bodyset/nobody</socket_parent_frame>"),
                      "known: /bodyset/a, /bodyset/b"),
            0);
  // A TransformAxis driven by two coordinates.
  EXPECT_EQ(errorLine(edited(text, "<coordinates>q2</coordinates>", "<coordinates>q2 q3</coordinates>"),
                      "TransformAxis 'rotation3' depends on 2 coordinates (q2, q3): not supported"),
            lineOf(text, "<TransformAxis name=\"rotation3\">"));
  // R1(q1) R2(q2) R3(q1): q1 would be two joints.
  const std::string split = editedAfter(editedAfter(text, "name=\"rotation2\"", "q1", "q2"), "name=\"rotation3\"",
                                        "<coordinates>q2", "<coordinates>q1");
  EXPECT_EQ(errorLine(split, "coordinate 'q1' drives rotation1 and rotation3 with another coordinate's rotation"),
            lineOf(text, "<TransformAxis name=\"rotation3\">"));
  // A translation by a coordinate whose rotation follows another coordinate's rotation.
  EXPECT_EQ(errorLine(editedAfter(text, "name=\"translation2\"", "<coordinates>q3", "<coordinates>q2"),
                      "coordinate 'q2' drives a translation and rotation3, which follows rotation1"),
            lineOf(text, "<TransformAxis name=\"rotation3\">"));
  // An axis naming a coordinate the joint does not have.
  EXPECT_EQ(errorLine(edited(text, "<coordinates>q2</coordinates>", "<coordinates>q4</coordinates>"),
                      "coordinate 'q4' is not a coordinate of the joint"),
            lineOf(text, "<coordinates>q2</coordinates>"));
  // Unsupported function and joint features.
  EXPECT_EQ(errorLine(edited(edited(text, "<PolynomialFunction name", "<GCVSpline name"), "</PolynomialFunction>",
                             "</GCVSpline>"),
                      "function type 'GCVSpline' is not supported"),
            lineOf(text, "<PolynomialFunction name"));
  EXPECT_EQ(errorLine(edited(edited(text, "<PolynomialFunction name", "<Sinusoid name"), "</PolynomialFunction>",
                             "</Sinusoid>"),
                      "function type 'Sinusoid' is not supported"),
            lineOf(text, "<PolynomialFunction name"));
  EXPECT_EQ(errorLine(edited(text, "<PinJoint name=\"j_b\">", "<PinJoint name=\"j_b\"><reverse>true</reverse>"),
                      "PinJoint 'j_b': reverse = true is not supported"),
            lineOf(text, "<PinJoint name=\"j_b\">"));
  EXPECT_EQ(errorLine(edited(text, "<x> -2 -1 0 1 2</x>", "<x> -2 -1 0 0 2</x>"), "not strictly increasing"),
            lineOf(text, "<x> -2 -1 0 1 2</x>"));
  // Frames and bodies.
  EXPECT_EQ(errorLine(edited(text, "<socket_parent_frame>a_offset", "<socket_parent_frame>nowhere"),
                      "PinJoint 'j_b': socket_parent_frame: frame 'nowhere' (/jointset/j_b/nowhere) is not a body "
                      "or frame of the model; known: "),
            lineOf(text, "<socket_parent_frame>a_offset"));
  EXPECT_EQ(errorLine(edited(text, "<socket_child_frame>/bodyset/e<", "<socket_child_frame>/bodyset/c<"),
                      "body 'c' is already the child of joint 'j_c'"),
            lineOf(text, "<SliderJoint name=\"j_e\">"));
  EXPECT_EQ(errorLine(edited(text, "<Body name=\"k\">", "<Body name=\"k\"></Body><Body name=\"loose\">"),
                      "Body 'loose' has no joint to a parent"),
            lineOf(text, "<Body name=\"k\">"));
  EXPECT_EQ(errorLine(edited(text, "<Coordinate name=\"q2\">", "<Coordinate name=\"q1\">"), "already a coordinate"),
            lineOf(text, "<Coordinate name=\"q2\">"));
  // Couplers.
  EXPECT_EQ(errorLine(edited(text, "<independent_coordinate_names>d_x", "<independent_coordinate_names>d_x d_y"),
                      "2 independent coordinates: not supported"),
            lineOf(text, "<independent_coordinate_names>d_x"));
  EXPECT_EQ(errorLine(edited(text, "<dependent_coordinate_name>e_t", "<dependent_coordinate_name>e_x"),
                      "coordinate 'e_x' is not a coordinate of the model"),
            lineOf(text, "<CoordinateCouplerConstraint name=\"e_follows_d\">"));
  // Document level.
  EXPECT_EQ(errorLine(edited(text, "Version=\"40000\"", "Version=\"10800\""), "10800 is not supported"),
            lineOf(text, "<OpenSimDocument"));
  EXPECT_EQ(errorLine("<Model/>", "root element must be <OpenSimDocument>"), 1);
  // A missing file.
  try {
    readOpenSimModel("/nonexistent/model.osim");
    ADD_FAILURE() << "no ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.osim"), std::string::npos);
  }
}

// A 3.0-format model written here: joints nested in bodies.
const char* kLegacy = R"(<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="30000">
  <Model name="legacy">
    <gravity>0 -9.8066 0</gravity>
    <BodySet>
      <objects>
        <Body name="ground">
          <mass>0</mass>
          <Joint />
        </Body>
        <Body name="arm">
          <mass>1.5</mass>
          <mass_center>0 -0.2 0</mass_center>
          <inertia_xx>0.01</inertia_xx>
          <inertia_yy>0.002</inertia_yy>
          <inertia_zz>0.01</inertia_zz>
          <inertia_xy>0</inertia_xy>
          <inertia_xz>0</inertia_xz>
          <inertia_yz>0</inertia_yz>
          <Joint>
            <CustomJoint name="shoulder">
              <parent_body>ground</parent_body>
              <location_in_parent>0 1 0</location_in_parent>
              <orientation_in_parent>0 0 0.5</orientation_in_parent>
              <location>0 0.1 0</location>
              <orientation>0.2 0 0</orientation>
              <CoordinateSet>
                <objects>
                  <Coordinate name="elev">
                    <motion_type>rotational</motion_type>
                    <default_value>0.25</default_value>
                    <range>-1 2</range>
                    <clamped>true</clamped>
                    <locked>false</locked>
                  </Coordinate>
                </objects>
              </CoordinateSet>
              <reverse>false</reverse>
              <SpatialTransform>
                <TransformAxis name="rotation1">
                  <function><LinearFunction><coefficients>1 0</coefficients></LinearFunction></function>
                  <coordinates>elev</coordinates>
                  <axis>0 0 1</axis>
                </TransformAxis>
              </SpatialTransform>
            </CustomJoint>
          </Joint>
        </Body>
      </objects>
    </BodySet>
    <MarkerSet>
      <objects>
        <Marker name="elbow">
          <body>arm</body>
          <location>0 -0.3 0</location>
          <fixed>false</fixed>
        </Marker>
      </objects>
    </MarkerSet>
  </Model>
</OpenSimDocument>
)";

TEST(OpenSimModelLegacy, NestedJointsPlacementsAndErrors) {
  const OpenSimModel m = parseOpenSimModel(kLegacy, "legacy.osim");
  const Model& model = *m.model;
  EXPECT_EQ(m.version, 30000);
  EXPECT_EQ(m.bodies, std::vector<std::string>{"arm"});
  ASSERT_EQ(m.coordinates.size(), 1u);
  EXPECT_TRUE(m.coordinates[0].clamped);
  EXPECT_EQ(m.coordinates[0].default_value, 0.25);
  EXPECT_EQ(model.jointType(JointId(0)), JointType::Revolute);
  EXPECT_EQ(model.frameKind(model.frameId("arm")), FrameKind::User);  // location/orientation ≠ 0
  Data data(model);
  Configuration q(model);
  q.joints[0] = 0.7;
  framesForwardKinematics(model, data, q);
  const Transform arm =
      compose(compose(offset({0, 1, 0}, {0, 0, 0.5}), moved(rot(Vector3d::UnitZ(), 0.7), Vector3d::Zero())),
              inverse(offset({0, 0.1, 0}, {0.2, 0, 0})));
  EXPECT_LT((data.frame[static_cast<std::size_t>(model.frameId("arm").value)].p - arm.p).norm(), 1e-14);
  EXPECT_LT((data.frame[static_cast<std::size_t>(model.frameId("elbow").value)].p - apply(arm, {0, -0.3, 0})).norm(),
            1e-14);
  EXPECT_NEAR(model.totalMass(), 1.5, 1e-15);

  // A marker on an unknown body, and a joint naming an unknown parent body.
  const std::string text = kLegacy;
  EXPECT_EQ(errorLine(testing::edited(text, "<body>arm</body>", "<body>leg</body>"),
                      "Marker 'elbow': body 'leg' is not a body of the model; known: ground, arm"),
            lineOf(text, "<Marker name=\"elbow\">"));
  EXPECT_EQ(errorLine(testing::edited(text, "<parent_body>ground", "<parent_body>torso"),
                      "parent_body 'torso' is not a body of the model; known: ground, arm"),
            lineOf(text, "<parent_body>ground"));
  EXPECT_EQ(errorLine(testing::edited(text, "<inertia_yy>0.002", "<inertia_yy>1e400"),
                      "Body 'arm': inertia_yy: '1e400' is not a finite number"),
            lineOf(text, "<inertia_yy>"));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
