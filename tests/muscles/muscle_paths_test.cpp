// Muscle paths: J = ∂l/∂q against central differences (arm26 with its cylinders and ellipsoids,
// gait2354 with conditional and moving points), wrapping geometry against closed forms, the
// reader's errors, and no allocation per frame.
#include <gtest/gtest.h>

#include "kinetrack/kinematics/forward_kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::muscles {
namespace KINETRACK_UNITY_ID {

constexpr const char* kArm26 = "data/opensim/arm26_static_optimization/arm26.osim";
constexpr const char* kGait = "data/opensim/gait2354_walk/subject01_simbody.osim";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::shared_ptr<MusclePaths> pathsFromText(const std::string& text, const std::string& source) {
  auto osim = std::make_shared<io::OpenSimModel>(io::parseOpenSimModel(text, source));
  return std::make_shared<MusclePaths>(osim, io::parseOpenSimMuscles(text, source));
}

// Max |J − central differences| over muscles and coordinates, at q.
double jacobianError(const MusclePaths& paths, const Configuration& q, double* scale = nullptr) {
  MusclePathData data(paths);
  paths.evaluate(q, data, true);
  const MatrixXd J = data.jacobian;
  const double h = 1e-6;
  double err = 0.0;
  for (int j = 0; j < paths.model().numJoints(); ++j) {
    Configuration qp = q, qm = q;
    qp.joints[j] += h;
    qm.joints[j] -= h;
    paths.evaluate(qp, data, false);
    const VectorXd lp = data.length;
    paths.evaluate(qm, data, false);
    const VectorXd fd = (lp - data.length) / (2 * h);
    err = std::max(err, (fd - J.col(paths.model().nvBase() + j)).cwiseAbs().maxCoeff());
  }
  if (scale) *scale = J.cwiseAbs().maxCoeff();
  return err;
}

TEST(MusclePaths, Arm26JacobianMatchesFiniteDifferencesWithWrapsActive) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  const MusclePaths paths(osim, io::readOpenSimMuscles(file));
  ASSERT_EQ(paths.numMuscles(), 6);
  MusclePathData data(paths);
  int wraps = 0;
  for (double elbow : {0.05, 0.5, 1.0, 1.5, 2.0}) {
    for (double shoulder : {-0.3, 0.0, 0.6}) {
      Configuration q = osim->defaultConfiguration();
      q.joints[osim->findCoordinate("r_elbow_flex")->joint.value] = elbow;
      q.joints[osim->findCoordinate("r_shoulder_elev")->joint.value] = shoulder;
      paths.evaluate(q, data);
      for (int w : data.wraps_active) wraps += w;
      double scale = 0.0;
      EXPECT_LT(jacobianError(paths, q, &scale), 2e-6) << "elbow " << elbow << " shoulder " << shoulder;
      EXPECT_GT(scale, 0.005);
      EXPECT_TRUE(data.length.allFinite());
    }
  }
  EXPECT_GT(wraps, 10);  // the wraps do catch the paths
}

TEST(MusclePaths, Arm26ElbowMomentArmsHaveTheAnatomicalSigns) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  const MusclePaths paths(osim, io::readOpenSimMuscles(file));
  MusclePathData data(paths);
  Configuration q = osim->defaultConfiguration();
  const int elbow = osim->findCoordinate("r_elbow_flex")->joint.value;
  q.joints[elbow] = 1.0;
  paths.evaluate(q, data);
  // Moment arm r = −∂l/∂θ: flexors (biceps, brachialis) positive, triceps negative; 1–5 cm.
  for (const char* m : {"BIClong", "BICshort", "BRA"}) {
    const double r = -data.jacobian(paths.muscleIndex(m), elbow);
    EXPECT_GT(r, 0.01) << m;
    EXPECT_LT(r, 0.06) << m;
  }
  for (const char* m : {"TRIlong", "TRIlat", "TRImed"}) {
    const double r = -data.jacobian(paths.muscleIndex(m), elbow);
    EXPECT_LT(r, -0.01) << m;
    EXPECT_GT(r, -0.04) << m;
  }
}

TEST(MusclePaths, Gait2354ConditionalAndMovingPointsJacobian) {
  KINETRACK_REQUIRE_SHARED(file, kGait);
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  const io::OpenSimMuscleSet set = io::readOpenSimMuscles(file);
  int conditional = 0, moving = 0;
  for (const auto& m : set.muscles)
    for (const auto& p : m.points) {
      conditional += p.kind == io::OpenSimPathPoint::Kind::Conditional;
      moving += p.kind == io::OpenSimPathPoint::Kind::Moving;
    }
  EXPECT_EQ(conditional, 12);
  EXPECT_EQ(moving, 4);
  const MusclePaths paths(osim, set);
  EXPECT_EQ(paths.numMuscles(), 54);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    Configuration q = osim->defaultConfiguration();
    for (const auto& c : osim->coordinates) {
      if (c.locked) continue;
      const double lo = c.range_min, hi = c.range_max;
      std::uniform_real_distribution<double> u(lo + 0.25 * (hi - lo), hi - 0.25 * (hi - lo));
      q.joints[c.joint.value] = u(rng);
    }
    double scale = 0.0;
    EXPECT_LT(jacobianError(paths, q, &scale), 2e-6) << "trial " << trial;
    EXPECT_GT(scale, 0.01);
  }
}

// arm26 with the elbow cylinder "TRI" replaced by other shapes of the same radius.
std::string arm26WithTri(const std::string& text, const std::string& shape) {
  const auto a = text.find("<WrapCylinder name=\"TRI\">");
  const auto b = text.find("</WrapCylinder>", a) + std::string("</WrapCylinder>").size();
  return text.substr(0, a) + shape + text.substr(b);
}

TEST(MusclePaths, SphereAndRoundEllipsoidAgreeAndEllipsoidRowsAreDifferenced) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  const std::string text = slurp(file);
  const std::string pose =
      "<xyz_body_rotation> -0.14015 -0.00628319 0.154985</xyz_body_rotation><translation> 0.0028 -0.2919 "
      "-0.0069</translation><active>true</active><quadrant>all</quadrant>";
  auto sphere = pathsFromText(
      arm26WithTri(text, "<WrapSphere name=\"TRI\">" + pose + "<radius>0.016</radius></WrapSphere>"), "sphere.osim");
  auto ellipsoid = pathsFromText(arm26WithTri(text, "<WrapEllipsoid name=\"TRI\">" + pose +
                                                        "<dimensions>0.016 0.016 0.016</dimensions></WrapEllipsoid>"),
                                 "ellipsoid.osim");
  auto squashed = pathsFromText(arm26WithTri(text, "<WrapEllipsoid name=\"TRI\">" + pose +
                                                       "<dimensions>0.02 0.012 0.016</dimensions></WrapEllipsoid>"),
                                "squashed.osim");
  Configuration q = sphere->osim().defaultConfiguration();
  q.joints[sphere->osim().findCoordinate("r_elbow_flex")->joint.value] = 1.8;
  MusclePathData ds(*sphere), de(*ellipsoid), dq(*squashed);
  sphere->evaluate(q, ds);
  ellipsoid->evaluate(q, de);
  squashed->evaluate(q, dq);
  const int tri = sphere->muscleIndex("TRIlat");
  EXPECT_GE(ds.wraps_active[tri], 1);
  EXPECT_NEAR(ds.length(tri), de.length(tri), 1e-9);  // same surface by two code paths
  EXPECT_GT(std::abs(dq.length(tri) - ds.length(tri)), 1e-5);
  EXPECT_LT(jacobianError(*sphere, q), 2e-6);
  EXPECT_LT(jacobianError(*squashed, q), 2e-6);
}

TEST(MusclePaths, ReaderErrorsNameFileLineAndWhat) {
  KINETRACK_REQUIRE_SHARED(file, kArm26);
  const std::string text = slurp(file);
  try {
    (void)io::parseOpenSimMuscles(
        arm26WithTri(text, "<WrapTorus name=\"TRI\"><inner_radius>0.01</inner_radius></WrapTorus>"), "torus.osim");
    FAIL() << "a WrapTorus must be refused";
  } catch (const ParseError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("torus.osim"), std::string::npos) << m;
    EXPECT_NE(m.find("370"), std::string::npos) << m;
    EXPECT_NE(m.find("unsupported wrap object"), std::string::npos) << m;
  }
  std::string bad = text;
  bad.replace(bad.find("<wrap_object>TRI</wrap_object>"), 30, "<wrap_object>TRX</wrap_object>");
  EXPECT_THROW((void)io::parseOpenSimMuscles(bad, "bad.osim"), ParseError);
  std::string body = text;
  body.replace(body.find("<body>r_humerus</body>", body.find("TRIlong-P2")), 22, "<body>r_femur</body>");
  EXPECT_THROW((void)pathsFromText(body, "body.osim"), ParseError);
  // A PathWrap range was cast to int unchecked: -8.9e55 was undefined behaviour (fuzz_osim,
  // 2026-12-02). Fractions and indices past the path points are refused at the range's line too.
  const std::size_t at = text.find("<range> -1 -1</range>");
  ASSERT_NE(at, std::string::npos);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  for (const char* range :
       {"-88888888888888888888888888888888888888888888888888888881 -1", "1.5 2", "-1 99", "-2 -1", "0 2"}) {
    std::string r = text;
    r.replace(at, 21, std::string("<range>") + range + "</range>");
    try {
      (void)io::parseOpenSimMuscles(r, "range.osim");
      FAIL() << range << ": must be refused";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find("PathWrap range"), std::string::npos) << e.what();
    }
  }
}

TEST(MusclePaths, EvaluateDoesNotAllocate) {
  KINETRACK_REQUIRE_SHARED(file, kGait);
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  const MusclePaths paths(osim, io::readOpenSimMuscles(file));
  MusclePathData data(paths);
  const Configuration q = osim->defaultConfiguration();
  paths.evaluate(q, data);
  testing::AllocationCounter guard;
  paths.evaluate(q, data);
  EXPECT_EQ(guard.count(), 0);
}

// The drawn paths (the viewer's and `kinetrack serve`'s frames): every muscle into a vector
// reserved for maxDrawnPoints, at a pose with wraps taken, without allocating.
TEST(MusclePaths, DrawnPathsDoNotAllocate) {
  KINETRACK_REQUIRE_SHARED(file, "data/opensim/arm26_static_optimization/arm26.osim");
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(file));
  const MusclePaths paths(osim, io::readOpenSimMuscles(file));
  MusclePathData data(paths);
  Configuration q = osim->defaultConfiguration();
  q.joints.setConstant(1.2);  // the elbow bent: the triceps wrap
  std::size_t capacity = 0;
  for (int k = 0; k < paths.numMuscles(); ++k) capacity += static_cast<std::size_t>(paths.maxDrawnPoints(k));
  std::vector<Vector3d> points;
  points.reserve(capacity);
  framesForwardKinematics(paths.model(), data.kin, q);
  int drawn = 0;
  testing::AllocationCounter guard;
  for (int k = 0; k < paths.numMuscles(); ++k) drawn += paths.drawnPath(k, q, data, points);
  EXPECT_EQ(guard.count(), 0);
  EXPECT_EQ(static_cast<std::size_t>(drawn), points.size());
  EXPECT_LE(points.size(), capacity);
  int wrapped = 0;
  for (int k = 0; k < paths.numMuscles(); ++k) wrapped += data.wraps_active[static_cast<std::size_t>(k)];
  EXPECT_GT(wrapped, 0) << "a wrap's arc was sampled";
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::muscles
