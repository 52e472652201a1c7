// `kinetrack demo`: the main job on an embedded default, with no files: a short summary of the
// built-in human66 model, forward kinematics of a few named poses, and a self-check of the
// analytic frame Jacobian against central finite differences on the configuration manifold.
#include <fmt/format.h>

#include <chrono>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::cli {

namespace {

constexpr double kDeg = M_PI / 180.0;

struct DemoConfig {
  std::string model = "human66";
  double height = 1.75;
  double fd_step = 1e-6;       ///< central-difference step on the configuration manifold
  double fd_tolerance = 1e-6;  ///< largest accepted |J − J_fd| entry
  std::uint64_t seed = 7;      ///< seed of the random configuration of the Jacobian check
};

struct Pose {
  std::string name;
  std::vector<std::pair<std::string, double>> joints;  ///< (joint name, value in rad)
};

/// Named poses on the Xsens joint names shared by human66 and human48. At s = 0 the arms point
/// sideways (T-pose); a rotation about x at the shoulder swings the arm in the frontal plane,
/// about y at hip and knee flexes the leg in the sagittal plane.
std::vector<Pose> demoPoses() {
  return {
      {"zero (T-pose)", {}},
      {"N-pose (arms down)", {{"jRightShoulder_rotx", 90 * kDeg}, {"jLeftShoulder_rotx", -90 * kDeg}}},
      {"arms raised", {{"jRightShoulder_rotx", -90 * kDeg}, {"jLeftShoulder_rotx", 90 * kDeg}}},
      {"squat (arms down)",
       {{"jRightHip_roty", -90 * kDeg},
        {"jRightKnee_roty", 90 * kDeg},
        {"jLeftHip_roty", -90 * kDeg},
        {"jLeftKnee_roty", 90 * kDeg},
        {"jRightShoulder_rotx", 90 * kDeg},
        {"jLeftShoulder_rotx", -90 * kDeg}}},
  };
}

/// The hand frame to report: the hand's centre-of-mass frame when the model has it.
FrameId handFrame(const Model& m, const std::string& side) {
  if (auto f = m.findFrame(side + "HandCOM")) return *f;
  return m.frameId(side + "Hand");
}

/// Largest |J − J_fd| over all entries, where column k of J_fd is the central difference of the
/// frame pose along ν = e_k through integrate() (so base rotations are perturbed through exp):
/// linear rows (p(q⊕he_k) − p(q⊖he_k)) / 2h, angular rows log(R₊ R₋ᵀ)^∨ / 2h.
struct FdCheck {
  double max_error = 0.0;
  int worst_column = 0;
};

FdCheck jacobianFdError(const Model& m, Data& data, const Configuration& q, FrameId f, double h) {
  forwardKinematics(m, data, q);
  Matrix6Xd J(6, m.nv());
  frameJacobian(m, data, f, J);

  Configuration qp = q, qm = q;
  VectorXd e = VectorXd::Zero(m.nv());
  FdCheck result;
  for (int k = 0; k < m.nv(); ++k) {
    e.setZero();
    e[k] = 1.0;
    integrate(m, q, e, h, qp);
    integrate(m, q, e, -h, qm);
    forwardKinematics(m, data, qp);
    const Transform Tp = updateFramePlacement(m, data, f);
    forwardKinematics(m, data, qm);
    const Transform Tm = updateFramePlacement(m, data, f);
    Vector6d col;
    col.head<3>() = (Tp.p - Tm.p) / (2 * h);
    col.tail<3>() = so3::log(Tp.R * Tm.R.transpose()) / (2 * h);
    const double err = (col - J.col(k)).cwiseAbs().maxCoeff();
    if (err > result.max_error) result = {err, k};
  }
  return result;
}

int runDemo(const DemoConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  ModelSpec spec;
  spec.model = cfg.model;
  spec.height = cfg.height;
  const Model m = loadModel(spec).model;

  // --- the model, in short ---
  fmt::print("kinetrack demo: built-in model {} at body height {:.2f} m (no files needed)\n\n", m.name(), cfg.height);
  fmt::print("model {}: {} DoF, {} base (nv = {}), {} links, {} frames\n", m.name(), m.numJoints(),
             toString(m.baseType()), m.nv(), m.numLinks(), m.numFrames());
  std::string line = fmt::format("segments ({}):", segmentNames().size());
  for (const auto& s : segmentNames()) {
    if (line.size() + s.size() + 1 > 96) {
      fmt::print("{}\n", line);
      line = "  ";
    }
    line += " " + s;
  }
  fmt::print("{}\n", line);

  // --- forward kinematics of named poses ---
  const std::vector<FrameId> points = {m.frameId("Head"), handFrame(m, "Right"), handFrame(m, "Left"),
                                       m.frameId("RightFoot"), m.frameId("LeftFoot")};
  fmt::print("\nforward kinematics: frame origins in the world (m), pelvis at the origin, x forward, y left, z up\n");
  Data data(m);
  for (const Pose& pose : demoPoses()) {
    Configuration q(m);
    std::string joints;
    for (const auto& [name, value] : pose.joints) {
      q.joints[m.jointId(name).value] = value;
      joints += fmt::format("{}{}={:+.0f}deg", joints.empty() ? "" : ", ", name, value / kDeg);
    }
    forwardKinematics(m, data, q);
    fmt::print("\npose: {}{}\n", pose.name, joints.empty() ? "" : "  [" + joints + "]");
    for (FrameId f : points) {
      const Vector3d p = frameOrigin(m, data, f);
      fmt::print("  {:<13} x = {:+.3f}  y = {:+.3f}  z = {:+.3f}\n", m.frameName(f), p.x(), p.y(), p.z());
    }
  }

  // --- self-check: analytic Jacobian vs central finite differences ---
  std::mt19937_64 rng(cfg.seed);
  const Configuration q = randomConfiguration(m, rng);
  const FrameId hand = handFrame(m, "Right");
  const FdCheck check = jacobianFdError(m, data, q, hand, cfg.fd_step);
  const double err = check.max_error;
  const bool ok = err <= cfg.fd_tolerance;
  fmt::print("\ncheck: Jacobian of {} (6 x {}) at a random configuration vs central finite differences "
             "(h = {:g}): max abs error {:.2e} (tolerance {:g}) {}\n",
             m.frameName(hand), m.nv(), cfg.fd_step, err, cfg.fd_tolerance, ok ? "OK" : "FAILED");
  if (!ok) {
    const int k = check.worst_column, nb = m.nvBase();
    const std::string column = k < nb ? fmt::format("base {} {}", k < 3 ? "linear" : "angular", "xyz"[k % 3])
                                      : "joint " + m.jointName(JointId(k - nb));
    fmt::print("  worst column {} ({})\n", k, column);
  }

  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  fmt::print("done in {:.1f} ms\n", ms);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

void addDemoCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<DemoConfig>();
  CLI::App* cmd = app.add_subcommand("demo", "built-in human model: summary, forward kinematics of poses, Jacobian check");
  cmd->add_option("--model", cfg->model, "built-in model")->check(CLI::IsMember({"human66", "human48"}))->capture_default_str();
  cmd->add_option("--height", cfg->height, "body height (m, 0.5 to 2.5)")->capture_default_str();
  cmd->callback([&action, cfg] { action = [cfg] { return runDemo(*cfg); }; });
}

}  // namespace kinetrack::cli
