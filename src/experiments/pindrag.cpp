// `kinetrack experiment pindrag`: the scripted drags of issue 17 with PinDragIk (Nakamura seed,
// Eq. 6–12) on human66 or the iCub. Three phases at Δt = 10 ms: (1) "circle" — the right hand
// dragged round a circle with both feet pinned as poses and the left hand pinned; (2) "switch" —
// roles swapped: the right hand pinned where it is, the left hand dragged round a circle;
// (3) "beyond" — the right hand dragged 3 m out of reach. Writes DIR/pindrag.csv (one row per
// update) and DIR/pindrag.png (scripts/plot_pindrag.py) and prints a table per phase.
#include "kinetrack/experiments/pindrag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::experiments {
namespace {

// The link names of the script: right foot, left foot, right hand, left hand.
struct Links {
  std::string rfoot, lfoot, rhand, lhand;
};

Configuration startPose(const Model& m) {
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    q.joints[j] = (std::isfinite(lo) && std::isfinite(hi)) ? 0.5 * (lo + hi) : 0.2 * std::sin(1.7 * j + 0.3);
  }
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  if (const auto r = m.findJoint("jRightElbow_rotz"), l = m.findJoint("jLeftElbow_rotz"); r && l) {
    q.joints[r->value] = -1.0;  // elbows bent, away from the two-hand closed chain's singularity
    q.joints[l->value] = 1.0;
  }
  return q;
}

Vector3d framePosition(const Model& m, const Configuration& q, FrameId f) {
  Data d(m);
  forwardKinematics(m, d, q);
  return updateFramePlacement(m, d, f).p;
}

}  // namespace

PinDragExperimentResult runPinDragExperiment(const PinDragExperimentOptions& cfg, const app::Reporter& /*reporter*/) {
  const Model model = cfg.model == "icub" ? io::loadUrdf(cfg.urdf) : makeHuman66();
  const Links links = cfg.model == "icub" ? Links{"r_sole", "l_sole", "r_hand", "l_hand"}
                                          : Links{"RightToe", "LeftToe", "RightHand", "LeftHand"};
  const double radius = cfg.model == "icub" ? 0.05 : 0.08;  // m
  PinDragExperimentResult result;
  result.model_name = model.name();
  result.dof = model.nv();
  result.out = cfg.out;
  const double dt = result.dt;
  const ik::PinDragOptions options;
  ik::PinDragIk ik(model, options);
  ik.setState(startPose(model));
  const FrameId rhand = model.frameId(links.rhand), lhand = model.frameId(links.lhand);
  ik.pin(links.rfoot, TargetType::Pose);
  ik.pin(links.lfoot, TargetType::Pose);
  ik.pin(lhand);
  ik.drag(rhand);

  for (const char* name : {"circle", "switch", "beyond"}) result.phases.push_back({.name = name});
  int step = 0;
  auto run = [&](int phase, FrameId dragged, int steps, const auto& target) {
    for (int k = 1; k <= steps; ++k) {
      ik.setDragTarget(dragged, target(k));
      const ik::PinDragResult r = ik.update(dt);
      const double ratio = ik.velocity().cwiseAbs().cwiseQuotient(ik.velocityLimits()).maxCoeff();
      const double violation = positionLimitViolation(model, ik.state());
      PinDragPhase& s = result.phases[static_cast<std::size_t>(phase)];
      s.pin_position = std::max(s.pin_position, r.pin_position_error);
      s.pin_orientation = std::max(s.pin_orientation, r.pin_orientation_error);
      s.speed_ratio = std::max(s.speed_ratio, ratio);
      s.limit_violation = std::max(s.limit_violation, violation);
      s.sr_damping = std::max(s.sr_damping, r.sr_damping);
      s.drag_error = r.drag_error;
      s.finite = s.finite && ik.velocity().allFinite() && ik.state().joints.allFinite();
      ++step;
      result.steps.push_back({step, step * dt, s.name, r.pin_position_error, r.pin_orientation_error, r.drag_error,
                              ratio, r.sr_damping, r.velocity_scale, violation});
    }
  };
  auto circle = [&](FrameId f) {
    const Vector3d centre = framePosition(model, ik.state(), f) - Vector3d(0.0, radius, 0.0);
    return [centre, radius](int k) {
      const double a = 2.0 * M_PI * std::min(k, 300) / 300.0;
      return Vector3d(centre + radius * Vector3d(0.0, std::cos(a), std::sin(a)));
    };
  };
  run(0, rhand, 350, circle(rhand));
  ik.pin(rhand);
  ik.drag(lhand);
  run(1, lhand, 350, circle(lhand));
  ik.pin(lhand);
  ik.drag(rhand);
  const Vector3d far = framePosition(model, ik.state(), rhand) + Vector3d(0.0, -3.0, 1.0);
  run(2, rhand, 300, [&far](int) { return far; });

  if (!cfg.out.empty()) {
    const std::filesystem::path dir(cfg.out);
    std::filesystem::create_directories(dir);
    io::writeFileAtomically((dir / "pindrag.csv").string(), pinDragCsv(result));
  }
  return result;
}

std::string pinDragCsv(const PinDragExperimentResult& result) {
  std::string csv =
      "step,time_s,phase,pin_position_error_m,pin_orientation_error_rad,drag_error,max_speed_ratio,sr_damping,"
      "velocity_scale,limit_violation\n";
  for (const PinDragStep& r : result.steps)
    csv += fmt::format("{},{:.3f},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", r.step, r.time, r.phase,
                       r.pin_position_error, r.pin_orientation_error, r.drag_error, r.max_speed_ratio, r.sr_damping,
                       r.velocity_scale, r.limit_violation);
  return csv;
}

std::string summaryText(const PinDragExperimentResult& result) {
  std::string t =
      fmt::format("pin-and-drag IK on {} ({} DoF), dt = {} s: 2 feet pinned (pose) + 1 hand pinned, 1 hand dragged\n",
                  result.model_name, result.dof, result.dt);
  t += fmt::format("  {:<8}{:>18}{:>20}{:>14}{:>20}{:>14}{:>12}{:>8}\n", "phase", "pin pos max (m)",
                   "pin rot max (rad)", "speed/limit", "limit viol. (rad)", "drag err (m)", "SR k max", "finite");
  for (const PinDragPhase& s : result.phases)
    t += fmt::format("  {:<8}{:>18.3g}{:>20.3g}{:>14.3f}{:>20.3g}{:>14.3g}{:>12.3g}{:>8}\n", s.name, s.pin_position,
                     s.pin_orientation, s.speed_ratio, s.limit_violation, s.drag_error, s.sr_damping,
                     s.finite ? "yes" : "NO");
  t += fmt::format("wrote {}\n", (std::filesystem::path(result.out) / "pindrag.csv").string());
  return t;
}

}  // namespace kinetrack::experiments
