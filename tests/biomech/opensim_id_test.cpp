// Inverse dynamics of OpenSim models with external loads against OpenSim's own ID tool output
// (../shared/data/opensim), plus the custom-joint RNEA checked by CRBA and by the energy balance.
#include "kinetrack/biomech/opensim_id.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::biomech {
namespace KINETRACK_UNITY_ID {

constexpr const char* kGait = "data/opensim/gait2354_walk/";
constexpr const char* kArm = "data/opensim/arm26_inverse_dynamics/";

void printComparison(const std::vector<ColumnComparison>& cmp) {
  for (const ColumnComparison& c : cmp)
    std::printf("  %-28s rms %8.4f  max %8.4f  (reference range %8.2f, %d frames)\n", c.column.c_str(), c.rms,
                c.max_abs, c.reference_range, c.frames);
}

TEST(OpenSimId, Gait2354WalkMatchesOpenSimWithin2NmRms) {
  KINETRACK_REQUIRE_SHARED(model_path, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model_path.substr(0, model_path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(model_path);
  const io::IdSetup setup = io::readIdSetup(dir + "subject01_Setup_InverseDynamics.xml");
  const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  const io::MotTable motion = io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot");
  const io::MotTable reference = io::readMot(dir + "subject01_walk1_id_REFERENCE.sto");
  const OpenSimIdResult ours = opensimInverseDynamics(model, motion, &loads, OpenSimIdOptions::fromSetup(setup));
  ASSERT_EQ(ours.times.size(), reference.times.size());
  const std::vector<ColumnComparison> cmp = compareColumns(ours, reference);
  printComparison(cmp);
  ASSERT_EQ(cmp.size(), 23u);
  for (const ColumnComparison& c : cmp) {
    EXPECT_EQ(c.frames, 73) << c.column;
    // Residual forces (N) and every moment (N m): the issue asks for 2 N m; we measure ≤ 0.003.
    // The tighter bound catches the knee's (∂S/∂s) ṡ² term: without it pelvis_tx_force is 1.8 N
    // RMS off and hip_flexion 0.9 N m, both under 2.
    EXPECT_LT(c.rms, 2.0) << c.column;
    EXPECT_LT(c.rms, 0.02) << c.column;
  }
}

TEST(OpenSimId, Arm26MatchesOpenSimWithinItsTestTolerance) {
  KINETRACK_REQUIRE_SHARED(model_path, std::string(kArm) + "arm26.osim");
  const std::string dir = model_path.substr(0, model_path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(model_path);
  const io::IdSetup setup = io::readIdSetup(dir + "arm26_Setup_InverseDynamics.xml");
  EXPECT_EQ(setup.coordinates_in_degrees, 1);
  const io::MotTable motion = io::readMot(dir + "arm26_InverseKinematics.mot");
  const io::MotTable reference = io::readMot(dir + "std_arm26_InverseDynamics.sto");
  const OpenSimIdResult ours = opensimInverseDynamics(model, motion, nullptr, OpenSimIdOptions::fromSetup(setup));
  const std::vector<ColumnComparison> cmp = compareColumns(ours, reference);
  printComparison(cmp);
  ASSERT_EQ(cmp.size(), 2u);
  // The legacy .mot has no inDegrees line: read as degrees without the setup's flag too.
  EXPECT_FALSE(motion.in_degrees_declared);
  OpenSimIdOptions no_flag = OpenSimIdOptions::fromSetup(setup);
  no_flag.in_degrees = -1;
  EXPECT_LT((opensimInverseDynamics(model, motion, nullptr, no_flag).values - ours.values).norm(), 1e-12);
  for (const ColumnComparison& c : cmp) {
    EXPECT_GE(c.frames, 120) << c.column;
    EXPECT_LT(c.rms, 0.01) << c.column;
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::biomech

namespace kinetrack::biomech {
namespace KINETRACK_UNITY_ID {

io::OpenSimModel gaitModel(const std::string& path) { return io::readOpenSimModel(path); }

// gait2354's knees are function-driven (the tibia translates along splines of the knee angle):
// RNEA's joint-space inertia part must equal CRBA's M, and the power τ·q̇ must equal d/dt of the
// kinetic plus potential energy along q(t) = q + q̇ t + ½ q̈ t² (this checks the (∂S/∂s) ṡ² term).
// A non-finite coordinate value is refused naming the file, the line of its row and the column.
TEST(OpenSimId, NonFiniteCoordinateNamesFileLineAndColumn) {
  KINETRACK_REQUIRE_SHARED(model_path, std::string(kArm) + "arm26.osim");
  const std::string dir = model_path.substr(0, model_path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(model_path);
  const std::string text =
      "Coordinates\nversion=1\nnRows=3\nnColumns=3\ninDegrees=yes\nendheader\n"
      "time\tr_shoulder_elev\tr_elbow_flex\n"
      "0.00\t10\t20\n0.01\t10\t20\n0.02\tnan\t20\n0.03\t10\t20\n";
  const io::MotTable motion = io::parseMot(text, "bad.mot");
  ASSERT_EQ(motion.line(2), 10);
  try {
    opensimInverseDynamics(model, motion, nullptr, OpenSimIdOptions{}, "bad.mot");
    FAIL() << "a NaN coordinate was accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "bad.mot");
    EXPECT_EQ(e.line(), 10);
    EXPECT_NE(e.message().find("r_shoulder_elev"), std::string::npos) << e.what();
  }
}

TEST(OpenSimId, CustomJointRneaAgreesWithCrbaAndTheEnergyBalance) {
  KINETRACK_REQUIRE_SHARED(path, std::string(kGait) + "subject01_simbody.osim");
  const io::OpenSimModel om = gaitModel(path);
  const Model& m = *om.model;
  ASSERT_TRUE(m.hasCustomJoints());
  DynamicsData d(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    Configuration q(m);
    VectorXd v(m.nv()), a(m.nv());
    for (int j = 0; j < m.numJoints(); ++j) {
      q.joints[j] = 0.5 * u(rng);
      v[j] = 3.0 * u(rng);
      a[j] = 10.0 * u(rng);
    }
    const Vector3d g = om.gravity;
    const VectorXd tau = rnea(m, d, q, v, a, {}, g);
    const VectorXd h = rnea(m, d, q, v, VectorXd::Zero(m.nv()), {}, g);
    const MatrixXd M = crba(m, d, q);
    EXPECT_LT((tau - h - M * a).norm(), 1e-9 * (1.0 + tau.norm())) << "trial " << trial;
    // Energy balance by central differences in time.
    const double dt = 1e-5;
    const auto energy = [&](double t) {
      Configuration qt = q;
      qt.joints = q.joints + v * t + 0.5 * a * t * t;
      const VectorXd vt = v + a * t;
      double mass = 0.0;
      for (int l = 0; l < m.numLinks(); ++l) mass += m.inertial(LinkId(l)).mass;
      return kineticEnergy(m, d, qt, vt) - mass * g.dot(centerOfMass(m, d, qt));
    };
    const double power = tau.dot(v);
    const double rate = (energy(dt) - energy(-dt)) / (2.0 * dt);
    EXPECT_NEAR(power, rate, 1e-5 * (1.0 + std::abs(power))) << "trial " << trial;
    // Without the custom-joint term the balance fails by far more (the test can fail).
  }
  // ABA still refuses function-driven joints, naming them.
  Configuration q(m);
  const VectorXd zero = VectorXd::Zero(m.nv());
  try {
    (void)aba(m, d, q, zero, zero);
    FAIL() << "aba accepted custom joints";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("knee_angle_r"), std::string::npos) << e.what();
  }
}

TEST(OpenSimId, SolverDoesNotAllocatePerFrame) {
  KINETRACK_REQUIRE_SHARED(path, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(path);
  const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  OpenSimIdSolver solver(model, &loads);
  const auto n = static_cast<Eigen::Index>(model.coordinates.size());
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(n, 0.1), qd = Eigen::VectorXd::Constant(n, 0.5),
                        qdd = Eigen::VectorXd::Constant(n, 2.0);
  (void)solver.solve(1.0, q, qd, qdd);
  long count = 0;
  {
    testing::AllocationCounter counter;
    for (int k = 0; k < 10; ++k) (void)solver.solve(1.0 + 0.01 * k, q, qd, qdd);
    count = counter.count();
  }
  EXPECT_EQ(count, 0);
  ASSERT_EQ(solver.wrenches().size(), 2u);
  EXPECT_GT(solver.wrenches()[0].force.norm() + solver.wrenches()[1].force.norm(), 100.0);
}

// The external force's point and force expressed in a body frame are transformed by the body's
// placement: a force given in calcn_r at a point in calcn_r equals the same force given in ground.
TEST(OpenSimId, BodyExpressedLoadsMatchGroundExpressedOnes) {
  KINETRACK_REQUIRE_SHARED(path, std::string(kGait) + "subject01_simbody.osim");
  const io::OpenSimModel model = io::readOpenSimModel(path);
  const auto n = static_cast<Eigen::Index>(model.coordinates.size());
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n);
  for (Eigen::Index c = 0; c < n; ++c) q[c] = 0.05 * static_cast<double>(c % 5);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  // Where calcn_r is at q: one solve with a ground-expressed load tells us (its point default).
  const auto spec = [](const std::string& frame) {
    return std::string(
               "<OpenSimDocument><ExternalLoads><objects><ExternalForce name=\"f\">"
               "<applied_to_body>calcn_r</applied_to_body><force_expressed_in_body>") +
           frame + "</force_expressed_in_body><point_expressed_in_body>" + frame +
           "</point_expressed_in_body><force_identifier>f</force_identifier><point_identifier>p</point_identifier>"
           "<torque_identifier>m</torque_identifier></ExternalForce></objects></ExternalLoads></OpenSimDocument>";
  };
  io::MotTable body_data;
  body_data.columns = {"fx", "fy", "fz", "px", "py", "pz", "mx", "my", "mz"};
  body_data.times = {0.0, 1.0};
  body_data.values.resize(2, 9);
  body_data.values.row(0) << 10, 500, -20, 0.1, 0.02, -0.03, 1, 2, 3;
  body_data.values.row(1) = body_data.values.row(0);
  const io::ExternalLoads in_body =
      io::bindExternalLoads(io::parseExternalLoadsSpec(spec("calcn_r"), "body.xml"), body_data, "body.mot");
  OpenSimIdSolver a(model, &in_body);
  const Eigen::VectorXd tau_body = a.solve(0.5, q, zero, zero);
  const ExternalWrench w = a.wrenches()[0];
  io::MotTable ground_data = body_data;
  ground_data.values.row(0) << w.force.transpose(), w.point.transpose(), w.moment.transpose();
  ground_data.values.row(1) = ground_data.values.row(0);
  const io::ExternalLoads in_ground =
      io::bindExternalLoads(io::parseExternalLoadsSpec(spec("ground"), "ground.xml"), ground_data, "ground.mot");
  OpenSimIdSolver b(model, &in_ground);
  const Eigen::VectorXd tau_ground = b.solve(0.5, q, zero, zero);
  EXPECT_LT((tau_body - tau_ground).norm(), 1e-9);
  // The body-frame force is not the ground-frame one at this posture (the rotation is used).
  EXPECT_GT((w.force - Vector3d(10, 500, -20)).norm(), 1.0);
}

std::string loadsXml(const std::string& body, const std::string& force_id) {
  return "<OpenSimDocument Version=\"20302\">\n<ExternalLoads name=\"x\">\n<objects>\n"
         "<ExternalForce name=\"right\">\n<applied_to_body> " +
         body + " </applied_to_body>\n<force_identifier> " + force_id +
         " </force_identifier>\n<point_identifier> ground_force_p </point_identifier>\n"
         "</ExternalForce>\n</objects>\n<datafile> grf.mot </datafile>\n</ExternalLoads>\n</OpenSimDocument>\n";
}

io::MotTable plateData(double t0, double t1) {
  io::MotTable d;
  d.columns = {"ground_force_vx", "ground_force_vy", "ground_force_vz",
               "ground_force_px", "ground_force_py", "ground_force_pz"};
  d.times = {t0, t1};
  d.values = Eigen::MatrixXd::Ones(2, 6);
  return d;
}

template <class E, class F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(ExternalLoads, ReadsTheGaitGrfFile) {
  KINETRACK_REQUIRE_SHARED(path, std::string(kGait) + "subject01_walk1_grf.xml");
  const io::ExternalLoads loads = io::readExternalLoads(path);
  ASSERT_EQ(loads.forces.size(), 2u);
  EXPECT_EQ(loads.forces[0].applied_to_body, "calcn_r");
  EXPECT_EQ(loads.forces[1].applied_to_body, "calcn_l");
  EXPECT_EQ(loads.forces[1].force_identifier, "1_ground_force_v");
  EXPECT_EQ(loads.data.times.size(), 1501u);
  // Interpolation reproduces a sample exactly and lies between neighbours.
  std::vector<io::ExternalForceSample> s(2);
  loads.sample(loads.data.times[100], s);
  EXPECT_DOUBLE_EQ(s[0].force.y(), loads.data.values(100, 1));
  EXPECT_TRUE(s[0].has_point);
  EXPECT_DOUBLE_EQ(s[0].torque.y(), loads.data.values(100, 13));
  EXPECT_THROW(loads.sample(3.0, s), InvalidArgument);
  const io::IdSetup setup =
      io::readIdSetup(path.substr(0, path.rfind('/') + 1) + "subject01_Setup_InverseDynamics.xml");
  EXPECT_DOUBLE_EQ(setup.time_start, 0.4);
  EXPECT_DOUBLE_EQ(setup.time_end, 1.6);
  EXPECT_DOUBLE_EQ(setup.lowpass_cutoff_hz, 6.0);
  ASSERT_EQ(setup.forces_to_exclude.size(), 1u);
  EXPECT_EQ(setup.forces_to_exclude[0], "Muscles");
  EXPECT_EQ(setup.external_loads_file, "subject01_walk1_grf.xml");
}

TEST(ExternalLoads, BadInputNamesFileLineAndField) {
  // A column the data lacks: the loads file, the ExternalForce's line, the column and the data file.
  std::string msg = messageOf<ParseError>([] {
    (void)io::bindExternalLoads(io::parseExternalLoadsSpec(loadsXml("calcn_r", "plate_v"), "grf.xml"), plateData(0, 1),
                                "grf.mot");
  });
  EXPECT_NE(msg.find("grf.xml:4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plate_vx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("grf.mot"), std::string::npos) << msg;
  // Malformed XML, no ExternalLoads, a force without a body.
  EXPECT_NE(messageOf<ParseError>([] { (void)io::parseExternalLoadsSpec("<a><b></a>", "x.xml"); }).find("x.xml"),
            std::string::npos);
  EXPECT_NE(messageOf<ParseError>([] {
              (void)io::parseExternalLoadsSpec("<OpenSimDocument/>", "x.xml");
            }).find("ExternalLoads"),
            std::string::npos);
  msg = messageOf<ParseError>([] { (void)io::parseExternalLoadsSpec(loadsXml("", "ground_force_v"), "g.xml"); });
  EXPECT_NE(msg.find("g.xml:4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("applied_to_body"), std::string::npos) << msg;
  // A NaN in a used column names the column and time.
  io::MotTable bad = plateData(0, 1);
  bad.values(1, 2) = std::nan("");
  msg = messageOf<ParseError>([&] {
    (void)io::bindExternalLoads(io::parseExternalLoadsSpec(loadsXml("calcn_r", "ground_force_v"), "grf.xml"), bad,
                                "grf.mot");
  });
  EXPECT_NE(msg.find("ground_force_vz"), std::string::npos) << msg;
  // Missing file.
  EXPECT_THROW((void)io::readExternalLoads("/nonexistent/grf.xml"), ParseError);
  // Setup: a reversed time range.
  msg = messageOf<ParseError>([] {
    (void)io::parseIdSetup(
        "<OpenSimDocument>\n<InverseDynamicsTool>\n<time_range> 2 1 </time_range>\n"
        "</InverseDynamicsTool></OpenSimDocument>",
        "id.xml");
  });
  EXPECT_NE(msg.find("id.xml:3"), std::string::npos) << msg;
}

TEST(ExternalLoads, UnknownBodyAndNonOverlappingTimesAreRefused) {
  KINETRACK_REQUIRE_SHARED(path, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(path);
  const io::ExternalLoads unknown = io::bindExternalLoads(
      io::parseExternalLoadsSpec(loadsXml("heel_r", "ground_force_v"), "grf.xml"), plateData(0, 3), "grf.mot");
  std::string msg = messageOf<ParseError>([&] { OpenSimIdSolver s(model, &unknown); });
  EXPECT_NE(msg.find("grf.xml:4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("heel_r"), std::string::npos) << msg;
  EXPECT_NE(msg.find("calcn_r"), std::string::npos) << msg;  // the list of bodies
  const io::ExternalLoads late = io::bindExternalLoads(
      io::parseExternalLoadsSpec(loadsXml("calcn_r", "ground_force_v"), "grf.xml"), plateData(5, 6), "late.mot");
  const io::MotTable motion = io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot");
  msg = messageOf<InvalidArgument>(
      [&] { (void)opensimInverseDynamics(model, motion, &late, OpenSimIdOptions{}, "ik.mot"); });
  EXPECT_NE(msg.find("late.mot"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ik.mot"), std::string::npos) << msg;
  // A time range outside the motion.
  OpenSimIdOptions options;
  options.time_start = 10.0;
  options.time_end = 11.0;
  msg = messageOf<InvalidArgument>([&] { (void)opensimInverseDynamics(model, motion, nullptr, options, "ik.mot"); });
  EXPECT_NE(msg.find("selects none"), std::string::npos) << msg;
}

// OpenSim's filter: a constant passes unchanged (DC gain 1), a line away from the ends, and a sine
// far above the cut-off is removed.
TEST(OpenSimId, ButterworthPassesLinesAndRemovesHighFrequencies) {
  const double dt = 1.0 / 120.0;
  std::vector<double> line(241), sine(241);
  for (int i = 0; i < 241; ++i) {
    line[static_cast<std::size_t>(i)] = 2.0 + 0.5 * i * dt;
    sine[static_cast<std::size_t>(i)] = std::sin(2.0 * 3.141592653589793 * 40.0 * i * dt);
  }
  std::vector<double> f(241, 1.5);
  butterworth3ZeroLag(f, dt, 6.0);
  for (const double x : f) EXPECT_NEAR(x, 1.5, 1e-12);
  // A line: the passes start from copied samples (not a steady state), so only the middle,
  // away from the start-up transients (what OpenSim's padding is for), is the line.
  f = line;
  butterworth3ZeroLag(f, dt, 6.0);
  for (std::size_t i = 80; i < 160; ++i) EXPECT_NEAR(f[i], line[i], 1e-6) << i;
  butterworth3ZeroLag(sine, dt, 6.0);
  double peak = 0.0;
  for (std::size_t i = 60; i < 180; ++i) peak = std::max(peak, std::abs(sine[i]));
  EXPECT_LT(peak, 1e-3);
  EXPECT_THROW(butterworth3ZeroLag(f, 0.0, 6.0), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::biomech
